/*
 * filter.h — pprof's -focus, -ignore and -hide on stacks of interned names,
 * for zt-stat's views and zt-fold's flame graphs.
 *
 * focus keeps the stacks that hold a frame matching it; ignore drops the
 * stacks that hold one; both look at the whole stack as read. hide then
 * removes the matching frames themselves, so that their samples count in
 * their callers, as pprof does. Regexes are POSIX extended (regcomp with
 * REG_EXTENDED), unanchored, matched against the whole frame name.
 *
 * Names are ids of one table of the caller's (a strtab, a profile); the
 * filter caches each id's matches, so every name is matched once.
 */
#ifndef ZT_FILTER_H
#define ZT_FILTER_H

#include <stddef.h>
#include <stdint.h>

enum zt_filter_kind { ZT_FOCUS, ZT_IGNORE, ZT_HIDE };

struct zt_filter;

/* The NUL-terminated name of id (its length in *n) in the caller's table. */
typedef const char *(*zt_name_fn)(const void *ctx, uint32_t id, size_t *n);

/* A filter that keeps everything; the caller frees it. */
struct zt_filter *zt_filter_new(zt_name_fn name, const void *ctx);
void zt_filter_free(struct zt_filter *f);

/*
 * Set one regex (a second call for the same kind replaces it). Returns 0,
 * or -1 with regcomp's message for a bad regex in err.
 */
int zt_filter_set(struct zt_filter *f, enum zt_filter_kind k, const char *re,
		  char *err, size_t cap);

/* Whether any regex is set. */
int zt_filter_active(const struct zt_filter *f);

/* Whether name id matches regex k (0 when k is not set). */
int zt_filter_match(struct zt_filter *f, enum zt_filter_kind k, uint32_t id);

/*
 * Filter a stack of n ids in place (any order; aux, when not NULL, is a
 * parallel array compacted alongside). Returns the number of frames left
 * (0 when every frame was hidden: the samples still count, in no function),
 * or -1 when focus or ignore drops the stack.
 */
long zt_filter_stack(struct zt_filter *f, uint32_t *ids, uint32_t *aux, size_t n);

#endif
