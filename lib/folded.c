/*
 * folded.c — the folded-stack line parser and reader (with the '#' lines'
 * weight declarations), zt-diff's differential lines, and the one order of
 * stacks. The count is the digits after the last space or tab; everything
 * before that one separator is the stack.
 */
#include "folded.h"
#include "factlines.h"
#include "hex.h"
#include "input.h"
#include "util.h"
#include "weight.h"

#include <stdlib.h>
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
	for (i = 0; i < digits && t[i] >= '0' && t[i] <= '9'; i++)
		;
	if (i > 0 && !zt_dec(t, t + i, &v))
		return "count does not fit in 64 bits";
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

/* zt_folded_next; with none_ok an input without stacks is no error. */
static int next(struct zt_input *in, struct zt_folded_item *it, uint64_t *stacks, int none_ok,
		char *err, size_t errlen)
{
	size_t len;
	char *s = zt_input_line(in, &len);
	const char *problem;

	it->lineno = zt_input_lineno(in);
	if (!s) {
		if (zt_input_error(in)) {
			zt_errf(err, errlen, "%s", zt_input_error(in));
			return -1;
		}
		if (!none_ok && (it->lineno == 0 || *stacks == 0)) {
			/* About the file, not a line. */
			zt_err_at(err, errlen, zt_input_name(in), 0, "%s",
				  it->lineno == 0 ? "empty file" : "no stacks");
			return -1;
		}
		return 0;
	}
	it->stack = s;
	it->linelen = len;
	if (len > 0 && s[0] == '#' && !memchr(s, '\0', len) && s[len - 1] != '\r') {
		it->kind = ZT_FOLDED_COMMENT;
		it->stacklen = len;
		return 1;
	}
	problem = zt_folded_parse(s, len, &it->stacklen, &it->count);
	if (problem) {
		zt_err_at(err, errlen, zt_input_name(in), it->lineno, "%s", problem);
		return -1;
	}
	it->kind = ZT_FOLDED_STACK;
	(*stacks)++;
	return 1;
}

int zt_folded_next(struct zt_input *in, struct zt_folded_item *it, uint64_t *stacks,
		   char *err, size_t errlen)
{
	return next(in, it, stacks, 0, err, errlen);
}

void zt_folded_reader_init(struct zt_folded_reader *r, struct zt_input *in)
{
	memset(r, 0, sizeof *r);
	r->in = in;
}

void zt_folded_reader_init_stacks(struct zt_folded_reader *r, const struct zt_folded_stacks *fs,
				  const char *name)
{
	memset(r, 0, sizeof *r);
	r->mem = fs;
	r->name = name;
}

const char *zt_folded_reader_name(const struct zt_folded_reader *r)
{
	return r->mem ? r->name : zt_input_name(r->in);
}

void zt_folded_stacks_free(struct zt_folded_stacks *fs)
{
	free(fs->decl);
	free(fs->text);
	free(fs->line);
	*fs = (struct zt_folded_stacks){ 0 };
}

/*
 * next() over stacks in memory: their declaration, then each stack as the
 * parser would have taken its line (a stack with a NUL byte or none at all
 * is refused as that line would be).
 */
static int next_mem(struct zt_folded_reader *r, struct zt_folded_item *it, char *err,
		    size_t errlen)
{
	const struct zt_folded_stacks *fs = r->mem;
	size_t decl = fs->decl != NULL, k = r->next++;	/* line k + 1 */
	const struct zt_folded_line *l;

	it->lineno = (unsigned long)k + 1;
	if (k < decl) {
		it->kind = ZT_FOLDED_COMMENT;
		it->stack = fs->decl;
		it->stacklen = it->linelen = strlen(fs->decl);
		return 1;
	}
	if (k - decl >= fs->n) {
		r->next--;
		if (!r->none_ok && r->stacks == 0) {
			zt_err_at(err, errlen, r->name, 0, "no stacks");
			return -1;
		}
		return 0;
	}
	l = &fs->line[k - decl];
	if (l->len == 0 || memchr(fs->text + l->off, '\0', l->len)) {
		zt_err_at(err, errlen, r->name, it->lineno, "%s",
			  l->len ? "NUL byte in text (a binary file?)" : "empty stack");
		return -1;
	}
	it->kind = ZT_FOLDED_STACK;
	it->stack = fs->text + l->off;
	it->stacklen = l->len;
	it->count = l->count;
	it->linelen = 0;
	r->stacks++;
	return 1;
}

/* A '#' line (n bytes, with its '#'): NULL, or what is wrong with it. */
static const char *comment(struct zt_folded_reader *r, const char *s, size_t n)
{
	const char *problem = NULL;

	int alloc;
	uint64_t rate;

	r->wall |= zt_weight_declares_ns(s, n);
	if ((alloc = zt_weight_declares_alloc(s, n, &rate)) && !r->alloc) {
		r->alloc = alloc;
		r->rate = rate;
	}
	if (r->facts)
		problem = zt_factlines_line(r->facts, s, n);
	if (!problem && r->weighed)
		problem = zt_weight_comment(&r->w, s, n);
	return problem;
}

int zt_folded_read(struct zt_folded_reader *r, struct zt_folded_item *it, char *err,
		   size_t errlen)
{
	const char *problem;
	int got;

	while ((got = r->mem ? next_mem(r, it, err, errlen)
			     : next(r->in, it, &r->stacks, r->none_ok, err, errlen)) > 0) {
		if (it->kind == ZT_FOLDED_STACK) {
			zt_weight_count(&r->w, it->count);
			return 1;
		}
		if ((problem = comment(r, it->stack, it->stacklen))) {
			zt_err_at(err, errlen, zt_folded_reader_name(r), it->lineno, "%s", problem);
			return -1;
		}
	}
	return got;
}

void zt_folded_diff_write(FILE *out, const char *stack, size_t n, uint64_t before,
			  uint64_t after)
{
	fwrite(stack, 1, n, out);
	fprintf(out, " %llu %llu\n", (unsigned long long)before, (unsigned long long)after);
}

const char *zt_folded_diff_before(const char *s, size_t n, size_t *stacklen,
				  uint64_t *before)
{
	if (n == 0 || s[n - 1] < '0' || s[n - 1] > '9')
		return "missing count";
	return zt_folded_parse(s, n, stacklen, before);
}

int zt_folded_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : (na > nb) - (na < nb);
}

size_t zt_folded_reroot(const struct zt_reroot *r, const char *s, size_t n, char *out)
{
	const char *semi = memchr(s, ';', n);
	size_t rest, k;

	if (!r || r->how == ZT_ROOT_KEEP || r->how == ZT_ROOT_LABEL ||
	    (r->how == ZT_ROOT_DROP && !semi)) {
		memcpy(out, s, n);
		return n;
	}
	rest = semi ? n - (size_t)(semi - s) : 0;	/* ";frames..." after the root */
	if (r->how == ZT_ROOT_DROP) {
		memcpy(out, semi + 1, rest - 1);
		return rest - 1;
	}
	k = strlen(r->name);
	memcpy(out, r->name, k);
	if (rest)
		memcpy(out + k, semi, rest);
	return k + rest;
}

const char *zt_folded_root_option(struct zt_reroot *r, const char *arg)
{
	enum zt_root_how how = arg ? ZT_ROOT_RENAME : ZT_ROOT_DROP;

	if (r->how != ZT_ROOT_KEEP && (r->how != how || (arg && strcmp(arg, r->name) != 0)))
		return "--root and --no-root are one choice: give one of them, once";
	if (arg && (!*arg || strpbrk(arg, "; \t\n\r")))
		return "--root wants a frame name: not empty, no ';', no white space";
	r->how = how;
	r->name = arg;
	return NULL;
}
