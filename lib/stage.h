/*
 * stage.h — one reader for every analysis tool (zt-stat, zt-fold,
 * zt-flame, zt-diff, zt-pprof): a raw dump (plain or gzip), zt-symbolize's
 * stream or any perf script output, folded stacks, or differential folded
 * stacks, told apart by their content, never by their names.
 *
 * A raw dump is symbolized here with lib/symbolize.c and the options the
 * tool took (lib/symargs.h), each distinct address once, and its records
 * are the items of the lines zt-symbolize would write (lib/symstream.c):
 * each distinct address's lines are read once by the same perf script
 * reader and a record's items are handed out from them, never formatted
 * and parsed again per record. Whatever a tool computes from a raw dump is
 * what it computes from `zt-symbolize --merge dump |`. Records are folded as zt-fold folds them with its
 * default options for the tools that want folded stacks. An input of a
 * kind no tool reads (a pprof profile, a perf.data file, an SVG) is
 * refused with one line saying what it looks like and what reads it.
 */
#ifndef ZT_STAGE_H
#define ZT_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "perfscriptfold.h"
#include "perfscript.h"
#include "raw.h"
#include "symbolize.h"

struct zt_input;

enum zt_stage_kind {
	ZT_STAGE_RAW,		/* a zt raw dump (formats/raw.md) */
	ZT_STAGE_SCRIPT,	/* perf script text, or zt-symbolize's stream */
	ZT_STAGE_FOLDED,	/* folded stacks (formats/folded.md) */
	ZT_STAGE_DIFF,		/* differential folded stacks (formats/diff.md) */
};

struct zt_stage;

/*
 * Open path (NULL or "-": stdin) and tell what it holds from its first
 * bytes and lines. Returns NULL with the message in err: the input cannot
 * be opened or read, is empty, or holds what no tool reads ("'f': a
 * perf.data file: ..."). The caller frees the result with zt_stage_close.
 */
struct zt_stage *zt_stage_open(const char *path, char *err, size_t errlen);
/* The same for an input already open, which s then owns (closed on failure too). */
struct zt_stage *zt_stage_open_input(struct zt_input *in, char *err, size_t errlen);
void zt_stage_close(struct zt_stage *s);

enum zt_stage_kind zt_stage_kind(const struct zt_stage *s);

/* "'f'" or "<stdin>", as messages name the input. */
const char *zt_stage_name(const struct zt_stage *s);

/*
 * Refuse differential folded stacks where one profile is wanted: -1 with
 * the message ("'f': differential folded stacks (zt-diff's output): ...")
 * in err, else 0.
 */
int zt_stage_refuse_diff(const struct zt_stage *s, char *err, size_t errlen);

/*
 * The input itself, not yet read, for folded and differential stacks
 * (zt_folded_read, lib/folded.h). s keeps owning it.
 */
struct zt_input *zt_stage_input(struct zt_stage *s);

/*
 * A raw dump's records handed out one per wall-clock bucket of bucket_ns
 * and stack, each with the time of its bucket's first sample
 * (zt_symstream_bucket), not one per distinct stack: for a reader that
 * puts samples in time buckets (zt-ingest). Before zt_stage_records.
 */
void zt_stage_buckets(struct zt_stage *s, uint64_t bucket_ns);

/*
 * Get ready to hand out the records of a raw dump or perf script text:
 * a raw dump is read whole and every address resolved with options o
 * (NULL: the defaults), which must outlive s. Returns 0, or -1 with the
 * message in err. Call once, before zt_stage_next.
 */
int zt_stage_records(struct zt_stage *s, const struct zt_symopts *o, char *err,
		     size_t errlen);

/* The perf script reader the records go through (its event, the records it skipped). */
struct zt_ps_reader *zt_stage_reader(struct zt_stage *s);

/*
 * The next item, as zt_ps_next gives it (lib/perfscript.h): 1, 0 at the
 * end, -1 with the message in err. A raw dump's items are those of its
 * stream: its `# zt` facts as comments, then one record per distinct stack
 * (zt-symbolize --merge's records, which every reader sums as it sums one
 * record per sample), with line numbers as in that stream.
 */
int zt_stage_next(struct zt_stage *s, struct zt_ps_item *it, char *err, size_t errlen);

/*
 * What zt-fold warns about without stopping: the symbolizer's warnings
 * (zt_symbolizer_warnings), a last record with no blank line after it.
 * Each without the tool's name; valid while s is.
 */
const char *const *zt_stage_warnings(const struct zt_stage *s, size_t *n);

/* The event records are kept for across inputs: several inputs are one stream. */
struct zt_stage_events {
	char *event;		/* the first one seen rules */
	char *skipped_event;	/* the first one skipped */
	unsigned long skipped;
};

/*
 * Fold every record of s into f, as zt-fold does: call zt_stage_records
 * first. ev (zeroed by the caller before the first input) carries the
 * event from one input to the next. Returns 0, or -1 with the message in
 * err.
 */
int zt_stage_fold(struct zt_stage *s, struct zt_perfscriptfold *f, struct zt_stage_events *ev,
		  char *err, size_t errlen);

/*
 * The warning about records of other events, or NULL, once every input
 * is folded; frees ev's strings either way. The caller frees the result.
 */
char *zt_stage_events_end(struct zt_stage_events *ev);

/*
 * s as folded stacks, for the tools that draw, compare or encode them:
 * folded and differential stacks as they are; records (a raw dump,
 * symbolized with o, or perf script text) folded with zt-fold's default
 * options, one sample a record (--weight=count: perf's periods are not
 * counts), into the stacks `zt-fold --weight=count` would write, held in
 * memory (lib/folded.h: zt_folded_stacks); records that hold no sample give
 * no stacks (the caller names the input: zt_stage_empties_add). Sets up rd
 * to read them with zt_folded_read (s keeps owning what it reads: close s
 * after rd), its flags left for the caller to set; 0, or -1 with the
 * message in err. Whether the stacks were folded here: zt_stage_kind is
 * then still the input's.
 */
int zt_stage_folded(struct zt_stage *s, struct zt_folded_reader *rd,
		    const struct zt_symopts *o, char *err, size_t errlen);

/* Whether zt_stage_folded found records but no sample in them: there are
   then no stacks, and rd is not to be read. */
int zt_stage_empty(const struct zt_stage *s);

/*
 * Inputs with no samples among a tool's several (a dump of a descendant
 * that never ran long enough, perf script with no records, folded stacks
 * with none): each is named once, the others are read, and only when every
 * input is empty is it an error. Zero it before the first input.
 */
struct zt_stage_empties {
	char *names;		/* "'a', 'b'", the empty inputs' */
	size_t len, cap;
	unsigned long empty, full;
};

/* One input, by its name (zt_stage_name), and whether it held no samples. */
void zt_stage_empties_add(struct zt_stage_empties *e, const char *name, int empty);

/*
 * After the last input: NULL when every input had samples; else what to
 * say (the caller frees it), with *fatal set when no input had any:
 * "'a': no samples in the input", "no samples in any input ('a', 'b')",
 * or the warning "no samples in 'a'; read the other 3 inputs". Frees e's
 * strings.
 */
char *zt_stage_empties_end(struct zt_stage_empties *e, int *fatal);

/*
 * zt_stage_empties_end for a tool with one set of inputs: after an earlier
 * failure (failed), only frees; else warns of the empty inputs and
 * returns 0, or, when no input had samples, puts the reason in err and
 * returns -1.
 */
int zt_stage_empties_settle(struct zt_stage_empties *e, int failed, char *err, size_t errlen);

/*
 * The raw dump of a ZT_STAGE_RAW input after zt_stage_records, and its
 * symbolizer (zt-pprof builds its profile from them); NULL for others.
 */
struct zt_raw *zt_stage_raw(struct zt_stage *s);
struct zt_symbolizer *zt_stage_symbolizer(struct zt_stage *s);

#endif
