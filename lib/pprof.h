/*
 * pprof.h — a raw dump and its symbols as pprof's profile.proto
 * (github.com/google/pprof, proto/profile.proto), written gzipped, as
 * `go tool pprof` reads it.
 *
 * zt_pprof_build turns a dump into the profile's tables below, naming each
 * distinct address once through the symbolizer, as zt-symbolize names it;
 * zt_pprof_encode writes those tables in the protocol buffer wire format
 * (varints, length-delimited fields, packed repeated integers) with no
 * library; zt_pprof_write gzips that. The tables are public so that a
 * benchmark can encode the same profile another way.
 */
#ifndef ZT_PPROF_H
#define ZT_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "raw.h"
#include "strtab.h"
#include "symbolize.h"

/* Strings are indices into the string table, whose entry 0 is "". */
struct zt_pprof_mapping {
	uint64_t id, start, limit, offset;
	uint64_t file, build_id;
	int has_functions, has_filenames, has_line_numbers, has_inline_frames;
};

struct zt_pprof_line {
	uint64_t function_id;
	int64_t line;
};

struct zt_pprof_location {
	uint64_t id, mapping_id, address;
	size_t first_line, nlines;	/* in lines[], innermost inlined first */
};

struct zt_pprof_function {
	uint64_t id, name, system_name, filename;
};

/* The most sample types a profile has: an allocation profile's six. */
#define ZT_PPROF_TYPES 6

struct zt_pprof_sample {
	size_t first_loc, nlocs;	/* in locids[], leaf first */
	int64_t value[ZT_PPROF_TYPES];
	uint64_t bytes;			/* label "bytes" of an allocation profile: the
					   block size, 0 for none */
	int64_t tid;			/* label "tid", a number */
	uint64_t thread;		/* label "thread", the thread's name */
	uint64_t state;			/* label "state" of a wall-clock profile, 0 if none */
};

struct zt_pprof {
	struct zt_strtab *strtab;	/* the string table, by id */
	uint64_t sample_type[ZT_PPROF_TYPES][2];	/* (type, unit) */
	size_t nsample_types;
	uint64_t default_sample_type;	/* a sample type's name, 0 for pprof's choice (the last) */
	uint64_t period_type[2];
	int64_t period, time_nanos, duration_nanos;
	uint64_t key_tid, key_thread, key_state, key_bytes;	/* label keys */
	/* Values past 2^63 - 1 (a count, a count times the period, the
	   duration), which profile.proto's int64 cannot hold: written as
	   2^63 - 1. The tool says how many. */
	size_t saturated;

	struct zt_pprof_sample *samples;
	size_t nsamples, capsamples;
	uint64_t *locids;
	size_t nlocids, caplocids;
	struct zt_pprof_mapping *mappings;
	size_t nmappings;
	struct zt_pprof_location *locations;
	size_t nlocations, caplocations;
	struct zt_pprof_line *lines;
	size_t nlines, caplines;
	struct zt_pprof_function *functions;
	size_t nfunctions, capfunctions;
	uint64_t *comments;
	size_t ncomments, capcomments;
	struct zt_pprof_index *index;	/* for zt_pprof_merge, or NULL */
};

/*
 * The profile of dump d, named by s (made over d); lines says whether s
 * reads DWARF, for the mappings' flags. The caller frees the result with
 * zt_pprof_free. Only allocation can fail, and that exits.
 *
 * A dump with allocation samples (raw version 6) gives a heap profile as
 * Go writes one: the sample types alloc_objects/count, alloc_space/bytes,
 * inuse_objects/count, inuse_space/bytes, then peak_inuse_objects/count
 * and peak_inuse_space/bytes; period space/bytes of the dump's alloc-rate;
 * each sample labelled "bytes" with its block size; default_sample_type
 * inuse_space. view (lib/event.h, --event) makes an allocation view the
 * default sample type, or with ZT_VIEW_TIME keeps the CPU profile; the
 * CPU samples of a dump with allocation samples are not in its heap
 * profile. zt_pprof_build is zt_pprof_build_view with ZT_VIEW_DEFAULT.
 */
struct zt_pprof *zt_pprof_build(const struct zt_raw *d, struct zt_symbolizer *s,
				int lines);
struct zt_pprof *zt_pprof_build_view(const struct zt_raw *d, struct zt_symbolizer *s,
				     int lines, int view);
void zt_pprof_free(struct zt_pprof *p);

/*
 * A profile of stacks that are names already (folded stacks, records
 * folded by zt-fold's rules): one Function and one Location per distinct
 * frame name, with no address, mapping or line, so pprof aggregates by
 * name as zt-stat does; samples counted in samples. note, when not NULL,
 * is the profile's first comment ("zt: note"). Add the stacks, then end
 * the build with zt_pprof_folded_end, which divides every count by div
 * (perf periods into samples, lib/weight.h) and returns the profile.
 */
struct zt_pprof_folded;
struct zt_pprof_folded *zt_pprof_folded_new(const char *note);
/* count samples of stack "root;...;leaf" (n bytes). */
void zt_pprof_folded_add(struct zt_pprof_folded *f, const char *stack, size_t n,
			 uint64_t count);
struct zt_pprof *zt_pprof_folded_end(struct zt_pprof_folded *f, uint64_t div);

/*
 * The stacks added from now on are a wall-clock profile's ('# zt weight:
 * ns'): the one sample type is wall/nanoseconds, and each sample is
 * labelled with its state (lib/waitframes.h: its leaf frame's). Call before the
 * first zt_pprof_folded_add; end with a div of 1.
 */
void zt_pprof_folded_wall(struct zt_pprof_folded *f);

/*
 * The same for an allocation profile's stacks ('# zt weight: bytes' or
 * 'objects'): the one sample type is space/bytes, or objects/count with
 * objects set.
 */
void zt_pprof_folded_alloc(struct zt_pprof_folded *f, int objects);

/*
 * The samples added so far, and the division of those from sample from on
 * by div (one input's perf periods into samples), for a profile of several
 * inputs whose weights differ.
 */
size_t zt_pprof_folded_samples(const struct zt_pprof_folded *f);
void zt_pprof_folded_divide(struct zt_pprof_folded *f, size_t from, uint64_t div);

/*
 * Add profile q (another input's, left as it is) to p, as pprof's own merge
 * does: a function, mapping, location or sample that p has already (the
 * same names; the same file at the same size and offset, wherever it was
 * loaded; the same place in it with the same lines; the same locations and
 * labels) is p's, a sample's values added to it; the others are added
 * under ids of their own. Its comments too; durations add up. Memory
 * grows with what is distinct, not with the inputs.
 * Returns NULL, or why they cannot be added (their sample types differ),
 * in why.
 */
const char *zt_pprof_merge(struct zt_pprof *p, const struct zt_pprof *q, char *why,
			   size_t cap);

/* The profile in the wire format, uncompressed; *len is its size. */
unsigned char *zt_pprof_encode(const struct zt_pprof *p, size_t *len);

/*
 * The encoded profile, gzipped, to f. Returns 0, or -1 with errno set by
 * the failed write, or with errlen bytes of err saying what zlib refused.
 */
int zt_pprof_write(const unsigned char *buf, size_t len, FILE *f, char *err,
		   size_t errlen);

#endif
