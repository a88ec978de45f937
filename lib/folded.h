/*
 * folded.h — reading folded stacks (formats/folded.md): `frame;frame count`.
 *
 * One reader for zt-stat and zt-diff, strict where the format's readers
 * disagree: it names the line and the problem (a missing, negative,
 * fractional or non-numeric count, CRLF, a NUL byte, an empty line, an
 * empty file) instead of guessing.
 */
#ifndef ZT_FOLDED_H
#define ZT_FOLDED_H

#include <stddef.h>
#include <stdint.h>

struct zt_input;

/*
 * Parse one line (len bytes, no '\n'). On success returns NULL and sets
 * *stacklen (the stack is line[0 .. *stacklen)) and *count. On failure
 * returns what is wrong, as a static string. A '#' line is not a stack:
 * callers skip those before calling this.
 */
const char *zt_folded_parse(const char *line, size_t len, size_t *stacklen,
			    uint64_t *count);

enum zt_folded_kind {
	ZT_FOLDED_STACK,	/* stack, stacklen, count */
	ZT_FOLDED_COMMENT,	/* stack holds the whole '#' line */
};

struct zt_folded_item {
	enum zt_folded_kind kind;
	const char *stack;	/* in the current line; valid until the next call */
	size_t stacklen;
	uint64_t count;
	unsigned long lineno;
};

/*
 * The next item of in: 1 when *it was filled, 0 at the end, -1 on bad
 * input with the message, place first, in err ("'f': line 3: missing
 * count"; util.h). At the end, an input with no lines at all is the error
 * "'f': empty file", and one with no stacks "'f': no stacks". stacks counts
 * the stacks read so far, for that check; start it at 0.
 */
int zt_folded_next(struct zt_input *in, struct zt_folded_item *it, uint64_t *stacks,
		   char *err, size_t errlen);

/*
 * The byte order of stacks (memcmp, then the shorter first), as sort(1)
 * with LC_ALL=C and flamegraph.pl's sort order them: zt-fold writes its
 * stacks in it and zt-diff's merge-join relies on every reader agreeing on
 * it, so every sort of stacks or names uses this one comparison.
 */
int zt_folded_cmp(const char *a, size_t na, const char *b, size_t nb);

#endif
