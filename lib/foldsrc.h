/*
 * foldsrc.h — a folded file as a sorted stream of distinct stacks, for
 * zt-diff's merge-join.
 *
 * A file is checked whole first (format, totals, order). A sorted file that
 * can be read again (not stdin) is then streamed, in constant memory. Any
 * other input — unsorted, with repeated stacks, stdin, or read with hex
 * addresses stripped — is loaded, summed and sorted in memory.
 */
#ifndef ZT_FOLDSRC_H
#define ZT_FOLDSRC_H

#include <stddef.h>
#include <stdint.h>

struct zt_input;

struct zt_foldsrc;

/*
 * Open and check path ("-" is stdin). With strip, every 0x<hex> in a stack
 * becomes "0x..." (as difffolded.pl -s does). *total is the sum of counts.
 * Returns NULL on bad input, with "'path': line N: problem" in err
 * (util.h).
 */
struct zt_foldsrc *zt_foldsrc_open(const char *path, int strip, uint64_t *total,
				   char *err, size_t errlen);

/*
 * The same for an input already open (the caller still owns it and closes
 * it after this returns): reopen names the file again for streaming, or is
 * NULL when the input cannot be read twice (stdin, stacks folded in
 * memory), which then is loaded.
 */
struct zt_foldsrc *zt_foldsrc_from(struct zt_input *in, const char *reopen, int strip,
				   uint64_t *total, char *err, size_t errlen);

/*
 * The stacks of n inputs (the caller's), summed and sorted in memory, as
 * one: zt-fold's folded inputs.
 */
struct zt_foldsrc *zt_foldsrc_sum(struct zt_input **in, size_t n, uint64_t *total,
				  char *err, size_t errlen);

/*
 * The next stack in zt_folded_cmp's order, each once: 1, or 0 at the end.
 * The stack is valid until the next call. A streamed file is read a second
 * time here: -1 with the message in err if it changed in between.
 */
int zt_foldsrc_next(struct zt_foldsrc *s, const char **stack, size_t *len,
		    uint64_t *count, char *err, size_t errlen);

void zt_foldsrc_close(struct zt_foldsrc *s);

/* Append stack with every 0x<hex digits> replaced by "0x..." to out. */
size_t zt_foldsrc_strip_hex(const char *s, size_t n, char *out);

#endif
