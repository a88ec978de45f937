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
	ZT_FOLDED_EOF,
	ZT_FOLDED_STACK,	/* stack, stacklen, count */
	ZT_FOLDED_COMMENT,	/* stack holds the whole '#' line */
	ZT_FOLDED_ERROR,	/* error says what is wrong with line lineno */
};

struct zt_folded_item {
	enum zt_folded_kind kind;
	const char *stack;	/* in the current line; valid until the next call */
	size_t stacklen;
	uint64_t count;
	unsigned long lineno;
	const char *error;
};

/*
 * The next item of in. At the end, an input with no lines at all gives the
 * error "empty file" (lineno 0), and one with no stacks "no stacks".
 * stacks counts the stacks read so far, for that check; start it at 0.
 */
void zt_folded_next(struct zt_input *in, struct zt_folded_item *it,
		    uint64_t *stacks);

#endif
