/*
 * folded.c — the folded-stack line parser. The count is the digits after
 * the last space or tab; everything before that one separator is the stack.
 */
#include "folded.h"
#include "input.h"

#include <string.h>

const char *zt_folded_parse(const char *s, size_t len, size_t *stacklen,
			    uint64_t *count)
{
	size_t sep, i, digits;
	uint64_t v = 0;
	const char *t;

	if (memchr(s, '\0', len))
		return "NUL byte in text (a binary file?)";
	if (len > 0 && s[len - 1] == '\r')
		return "line ends in CR (CRLF line endings are not accepted)";
	if (len == 0)
		return "empty line";
	for (sep = len; sep > 0; sep--)
		if (s[sep - 1] == ' ' || s[sep - 1] == '\t')
			break;
	if (sep == 0 || sep == len)
		return "missing count";
	t = s + sep;
	digits = len - sep;
	if (t[0] == '-') {
		for (i = 1; i < digits && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.'); i++)
			;
		return i == digits && digits > 1 ? "negative count" : "count is not a number";
	}
	for (i = 0; i < digits && t[i] >= '0' && t[i] <= '9'; i++) {
		unsigned c = (unsigned)(t[i] - '0');
		if (v > (UINT64_MAX - c) / 10)
			return "count does not fit in 64 bits";
		v = v * 10 + c;
	}
	if (i < digits) {
		if (t[i] == '.' && i > 0) {
			size_t j = i + 1;
			while (j < digits && t[j] >= '0' && t[j] <= '9')
				j++;
			if (j == digits)
				return "fractional count (counts are whole numbers of samples)";
		}
		return "count is not a number";
	}
	/* A stack may end in a space: stackcollapse-perf.pl names some frames
	   " " (real perf script output does this), and flamegraph.pl keeps it. */
	if (sep == 1)
		return "empty stack";
	*stacklen = sep - 1;
	*count = v;
	return NULL;
}

void zt_folded_next(struct zt_input *in, struct zt_folded_item *it,
		    uint64_t *stacks)
{
	size_t len;
	char *s = zt_input_line(in, &len);

	it->lineno = zt_input_lineno(in);
	it->error = NULL;
	if (!s) {
		it->kind = ZT_FOLDED_EOF;
		if (it->lineno == 0) {
			it->kind = ZT_FOLDED_ERROR;
			it->error = "empty file";
		} else if (*stacks == 0) {
			it->kind = ZT_FOLDED_ERROR;
			it->error = "no stacks";
			it->lineno = 0;		/* about the file, not a line */
		}
		return;
	}
	it->stack = s;
	if (len > 0 && s[0] == '#' && !memchr(s, '\0', len) && s[len - 1] != '\r') {
		it->kind = ZT_FOLDED_COMMENT;
		it->stacklen = len;
		return;
	}
	it->error = zt_folded_parse(s, len, &it->stacklen, &it->count);
	if (it->error) {
		it->kind = ZT_FOLDED_ERROR;
		return;
	}
	it->kind = ZT_FOLDED_STACK;
	(*stacks)++;
}
