/*
 * foldedsort.h — a folded file as a sorted stream of distinct stacks, for
 * zt-diff's merge-join.
 *
 * A file is checked whole first (format, totals, order). A sorted file that
 * can be read again (not stdin) is then streamed, in constant memory. Any
 * other input — unsorted, with repeated stacks, stdin, or read with hex
 * addresses stripped or its root frame dropped or renamed — is loaded,
 * summed and sorted in memory.
 */
#ifndef ZT_FOLDEDSORT_H
#define ZT_FOLDEDSORT_H

#include <stddef.h>
#include <stdint.h>

#include "folded.h"

struct zt_input;

struct zt_foldedsort;

/* How stacks are rewritten as they are read; all zero (or NULL) keeps them. */
struct zt_foldedsort_opts {
	int strip;		/* every 0x<hex> becomes "0x..." (difffolded.pl -s) */
	struct zt_reroot root;	/* the root frame dropped or renamed (--no-root, --root) */
};

/*
 * Check an input already open, read by rd (zt_folded_reader_init or
 * zt_stage_folded, its flags left at 0), its stacks rewritten as o says
 * (its root first, then strip); rewritten stacks that become equal are
 * summed. *total is the sum of counts. The caller still owns what rd reads
 * and closes it after this returns: reopen names the file again for
 * streaming, or is NULL when the input cannot be read twice (stdin, stacks
 * folded in memory), which then is loaded. Returns NULL on bad input, with
 * "'path': line N: problem" in err (util.h).
 */
struct zt_foldedsort *zt_foldedsort_from(struct zt_folded_reader *rd, const char *reopen,
					 const struct zt_foldedsort_opts *o, uint64_t *total,
					 char *err, size_t errlen);

/*
 * The stacks of several inputs (a side of zt-diff, zt-fold's output),
 * summed and sorted in memory, as one, read one input at a time, each
 * closed by the caller after it was added: zt_foldedsort_sum_new,
 * zt_foldedsort_sum_add for each (its reader as for zt_foldedsort_from;
 * first names the first input added, NULL for the first itself: inputs
 * weighed in samples and in nanoseconds are refused together), then
 * zt_foldedsort_sum_end (name for its messages, *total the sum of counts).
 * -1 with err on bad input. No input at all is a side with no stacks.
 */
struct zt_foldedsort *zt_foldedsort_sum_new(void);
int zt_foldedsort_sum_add(struct zt_foldedsort *s, struct zt_folded_reader *rd, const char *first,
			  const struct zt_foldedsort_opts *o, char *err, size_t errlen);
int zt_foldedsort_sum_end(struct zt_foldedsort *s, const char *name, uint64_t *total, char *err,
			  size_t errlen);

/*
 * The next stack in zt_folded_cmp's order, each once: 1, or 0 at the end.
 * The stack is valid until the next call. A streamed file is read a second
 * time here: -1 with the message in err if it changed in between.
 */
int zt_foldedsort_next(struct zt_foldedsort *s, const char **stack, size_t *len,
		       uint64_t *count, char *err, size_t errlen);

/* Whether the input (every input, for a sum) declared
   '# zt weight: ns'. */
int zt_foldedsort_wall(const struct zt_foldedsort *s);

/* Whether it declared '# zt weight: bytes' or 'objects': ZT_WEIGHT_BYTES or
   ZT_WEIGHT_OBJECTS (weight.h), else 0; and the rate it gave (the first
   input's that gave one), 0 if none. */
int zt_foldedsort_alloc(const struct zt_foldedsort *s);
uint64_t zt_foldedsort_rate(const struct zt_foldedsort *s);

void zt_foldedsort_close(struct zt_foldedsort *s);

/*
 * Stack s (n bytes) rewritten as o says: its root first, then strip. The
 * bytes are s itself when o changes nothing, else in *buf, grown as needed
 * (the caller frees it); *len is their length.
 */
const char *zt_foldedsort_rewrite(const struct zt_foldedsort_opts *o, const char *s, size_t n,
				  size_t *len, char **buf, size_t *cap);

/* Append stack with every 0x<hex digits> replaced by "0x..." to out. */
size_t zt_foldedsort_strip_hex(const char *s, size_t n, char *out);

#endif
