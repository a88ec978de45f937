/*
 * perfscriptprofile.h — a profile (lib/profile.h) built from perf script
 * records, keyed by function, module, source line or thread.
 *
 * Functions are named as zt-fold names them (lib/framenames.h, default
 * options), so zt-stat on a symbolized stream and on its folded stacks
 * agree. A record counts its period: zt's records (event zt-samples) group
 * identical samples and their period is their number; perf's periods are
 * nanoseconds or events, which the caller turns into samples, or not, with
 * lib/weight.h.
 */
#ifndef ZT_PERFSCRIPTPROFILE_H
#define ZT_PERFSCRIPTPROFILE_H

#include <stdint.h>

#include "perfscript.h"
#include "profile.h"

/* ZT_BY_STATE: a wall-clock profile's thread states, "on-CPU", "off-CPU
   [futex]" (one key per wait), "waiting for a CPU" (lib/waitframes.h).
   ZT_BY_LABEL: every record under one key the caller sets
   (zt_psprof_set_key): its input's value of a label. */
enum zt_by { ZT_BY_FUNCTION, ZT_BY_MODULE, ZT_BY_LINE, ZT_BY_THREAD, ZT_BY_STATE,
	     ZT_BY_LABEL };

struct zt_threadstates;

struct zt_psprof;

/* Feed p (still the caller's) with records, keyed by by. */
struct zt_psprof *zt_psprof_new(struct zt_profile *p, enum zt_by by);
void zt_psprof_free(struct zt_psprof *pp);

/* ZT_BY_LABEL: the key of the records from now on (copied). */
void zt_psprof_set_key(struct zt_psprof *pp, const char *key, size_t n);

/*
 * Take one item from a perf script reader: headers, frames, source lines
 * and record ends; other kinds are ignored. Returns NULL, or what is wrong
 * with the item's line when a count overflows, for the caller to place
 * (zt_err_at, util.h).
 */
const char *zt_psprof_item(struct zt_psprof *pp, const struct zt_ps_item *it);

/*
 * Also count source lines into lp (the caller's), for pprof's -list: a
 * key "FUNCTION\tPATH:LINE" for each frame that has a source line, where
 * FUNCTION is the innermost name zt-fold gives the frame. Stacks are those
 * kept by p's filter, and a leaf without a line counts under the key "".
 */
void zt_psprof_set_lines(struct zt_psprof *pp, struct zt_profile *lp);

/*
 * Also add every record's period to st (the caller's) by its thread and
 * state: off-CPU when its leaf frame is a wait frame (module "[off-cpu]",
 * formats/symbolized.md), else on-CPU.
 */
void zt_psprof_set_states(struct zt_psprof *pp, struct zt_threadstates *st);

/* Whether any record carried source lines. */
int zt_psprof_saw_lines(const struct zt_psprof *pp);

#endif
