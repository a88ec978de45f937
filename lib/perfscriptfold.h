/*
 * perfscriptfold.h — folding perf script records into flamegraph.pl's folded
 * stacks (zt-fold). The folded format itself is lib/folded.h.
 *
 * A fold object takes every record of one or more readers, names frames as
 * stackcollapse-perf.pl does (lib/framenames.h), sums identical stacks and
 * writes them byte-sorted. Frame names are interned and a stack is kept as
 * an array of name ids, so memory grows with the number of distinct stacks
 * and names, not with the input.
 */
#ifndef ZT_PERFSCRIPTFOLD_H
#define ZT_PERFSCRIPTFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "folded.h"
#include "framenames.h"
#include "perfscript.h"
#include "weight.h"

struct zt_perfscriptfold;

/* A new fold with options o (copied). Free it with zt_perfscriptfold_free. */
struct zt_perfscriptfold *zt_perfscriptfold_new(const struct zt_framenames_opts *o);

/*
 * The next records are another input's: with --root=label:NAME, its root
 * is its own value of NAME, "[no NAME]" until its facts say one.
 */
void zt_perfscriptfold_next_input(struct zt_perfscriptfold *f);
void zt_perfscriptfold_free(struct zt_perfscriptfold *f);

/*
 * Fold one item of a perf script reader (lib/perfscript.h). Returns NULL,
 * or what is wrong with the item's line when a count overflows, for the
 * caller to place (zt_err_at, util.h).
 */
const char *zt_perfscriptfold_item(struct zt_perfscriptfold *f, const struct zt_ps_item *it);

/*
 * The '# zt weight:' line (lib/weight.h) that says what the counts written
 * weigh: samples (--weight=count, zt's records), or perf's periods, with
 * the period of one sample when every period is a multiple of it.
 */
void zt_perfscriptfold_weight_line(struct zt_perfscriptfold *f, char *buf, size_t cap);

/*
 * What the records' periods were (lib/weight.h), whatever the fold summed:
 * their event, and whether they were perf's periods or zt's own weights.
 */
const struct zt_weight *zt_perfscriptfold_weight(const struct zt_perfscriptfold *f);

/*
 * The fold's filter (lib/filter.h), over its frame names: set its regexes
 * before the first record. A record it drops is read but not written; the
 * root frame (the command) is never matched.
 */
struct zt_filter *zt_perfscriptfold_filter(struct zt_perfscriptfold *f);

/* Whether the records are a wall-clock profile's (event zt-wall-ns): counts in ns. */
int zt_perfscriptfold_wall(const struct zt_perfscriptfold *f);

/* Whether they are an allocation profile's (zt-alloc-bytes and the like):
   ZT_WEIGHT_BYTES or ZT_WEIGHT_OBJECTS (weight.h), else 0. */
int zt_perfscriptfold_alloc(const struct zt_perfscriptfold *f);

/* Records folded so far, and those of them the filter kept. */
uint64_t zt_perfscriptfold_records(const struct zt_perfscriptfold *f);
uint64_t zt_perfscriptfold_kept(const struct zt_perfscriptfold *f);

/*
 * Every distinct stack with its count, in byte order (zt_folded_cmp), into
 * *fs (the caller frees it: zt_folded_stacks_free), after the weight
 * declaration zt_perfscriptfold_weight_line gives: what zt_perfscriptfold_write
 * writes, held in memory.
 */
void zt_perfscriptfold_stacks(struct zt_perfscriptfold *f, struct zt_folded_stacks *fs);

/*
 * Write "stack count\n" for every distinct stack, in byte order
 * (zt_folded_cmp), to out. Returns the number of lines written.
 */
uint64_t zt_perfscriptfold_write(struct zt_perfscriptfold *f, FILE *out);

#endif
