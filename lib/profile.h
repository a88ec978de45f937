/*
 * profile.h — self and total counts per key (a function, a module, a source
 * line, a thread), summed over stacks. zt-stat reports them; zt-diff
 * --report compares two of them.
 *
 * Self is the count of stacks whose leaf is the key. Total is the count of
 * stacks that hold the key anywhere, each stack counted once however often
 * the key recurs in it, as pprof's cum.
 */
#ifndef ZT_PROFILE_H
#define ZT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"

struct zt_profile;

struct zt_profile *zt_profile_new(void);
void zt_profile_free(struct zt_profile *p);

/* The id of a key, added with zero counts when new. */
uint32_t zt_profile_key(struct zt_profile *p, const char *name, size_t n);

/*
 * Add count samples of a stack of key ids, leaf first (ids[0] is the leaf).
 * n may be 0: the samples then count in the total only. A filter set with
 * zt_profile_set_filter first filters ids in place, with aux (a parallel
 * array, or NULL) compacted alongside. Returns the frames kept, or -1 when
 * the filter dropped the stack: its samples then count in
 * zt_profile_samples but not in zt_profile_kept.
 */
long zt_profile_add(struct zt_profile *p, uint32_t *ids, uint32_t *aux, size_t n,
		    uint64_t count);

/* Add a folded stack "root;...;leaf" (frames split at ';'); a filter skips the root
   frame (the command), as it is apart in records. */
void zt_profile_add_folded(struct zt_profile *p, const char *stack, size_t n,
			   uint64_t count);

/*
 * Filter every stack added from now on with f, whose names are p's keys
 * (make it with zt_filter_new(zt_profile_name_fn, p)). f stays the
 * caller's.
 */
void zt_profile_set_filter(struct zt_profile *p, struct zt_filter *f);
const char *zt_profile_name_fn(const void *p, uint32_t id, size_t *n);

/*
 * Count caller -> callee edges from now on (for pprof's -peek): an edge
 * counts once per stack that holds it, as a total does. A function calling
 * itself makes no edge.
 */
void zt_profile_track_edges(struct zt_profile *p);

struct zt_edge {
	uint32_t caller, callee;
	uint64_t count;
};

/*
 * The edges into id (callers != 0) or out of it, by count descending, then
 * name; *n is set to their number. The caller frees the array.
 */
struct zt_edge *zt_profile_edges(const struct zt_profile *p, uint32_t id, int callers,
				 size_t *n);

uint32_t zt_profile_nkeys(const struct zt_profile *p);
const char *zt_profile_name(const struct zt_profile *p, uint32_t id, size_t *n);
uint64_t zt_profile_self(const struct zt_profile *p, uint32_t id);
uint64_t zt_profile_total(const struct zt_profile *p, uint32_t id);
/* The id of a name, or -1. */
int64_t zt_profile_find(const struct zt_profile *p, const char *name, size_t n);
/*
 * Divide every count by d (perf periods into samples: lib/weight.h). The
 * caller has checked that every count added was a multiple of d.
 */
void zt_profile_divide(struct zt_profile *p, uint64_t d);

/* All samples added, whether a filter kept them or not. */
uint64_t zt_profile_samples(const struct zt_profile *p);
/* The samples a filter kept (all of them without a filter). */
uint64_t zt_profile_kept(const struct zt_profile *p);

/*
 * The ids of keys that counted at all (total > 0), ordered for a report: by
 * self descending, then total descending, then name in byte order; with cum
 * set (pprof's -cum), by total first. *n is set to their number. The caller
 * frees the array.
 */
uint32_t *zt_profile_sorted_by(const struct zt_profile *p, uint32_t *n, int cum);

#endif
