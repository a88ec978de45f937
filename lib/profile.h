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

struct zt_profile;

struct zt_profile *zt_profile_new(void);
void zt_profile_free(struct zt_profile *p);

/* The id of a key, added with zero counts when new. */
uint32_t zt_profile_key(struct zt_profile *p, const char *name, size_t n);

/*
 * Add count samples of a stack of key ids, leaf first (ids[0] is the leaf).
 * n may be 0: the samples then count in the total only.
 */
void zt_profile_add(struct zt_profile *p, const uint32_t *ids, size_t n,
		    uint64_t count);

/* Add a folded stack "root;...;leaf" (frames split at ';'). */
void zt_profile_add_folded(struct zt_profile *p, const char *stack, size_t n,
			   uint64_t count);

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

/* All samples added. */
uint64_t zt_profile_samples(const struct zt_profile *p);

/*
 * The ids of keys that counted at all (total > 0), ordered for a report: by
 * self descending, then total descending, then name in byte order. *n is
 * set to their number. The caller frees the array.
 */
uint32_t *zt_profile_sorted(const struct zt_profile *p, uint32_t *n);

#endif
