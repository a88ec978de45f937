/*
 * foldsrc.c — sorted access to a folded file: stream it when it is already
 * sorted, otherwise sum and sort it in memory (a strtab of stacks).
 */
#include "foldsrc.h"
#include "folded.h"
#include "input.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_foldsrc {
	char *path;
	struct zt_input *in;		/* streaming */
	uint64_t stacks;
	struct zt_strtab *tab;		/* in memory */
	uint64_t *counts;
	uint32_t *order;
	uint32_t next, n;
};

/*
 * The source and input being opened, in file scope so that they stay
 * reachable when an error exits the program (LeakSanitizer would call
 * locals leaked).
 */
static struct zt_foldsrc *opening;
static struct zt_input *opening_in;

static void die_at(struct zt_input *in, unsigned long line, const char *msg)
{
	const char *name = zt_input_name(in);

	if (line == 0)
		zt_die(ZT_EXIT_DATA, "%s: %s", name, msg);
	if (strcmp(name, "<stdin>") == 0)
		zt_die(ZT_EXIT_DATA, "line %lu: %s", line, msg);
	zt_die(ZT_EXIT_DATA, "%s: line %lu: %s", name, line, msg);
}

size_t zt_strip_hex(const char *s, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		if (i + 2 < n && s[i] == '0' && s[i + 1] == 'x' &&
		    strchr("0123456789abcdefABCDEF", s[i + 2]) && s[i + 2]) {
			i += 2;
			while (i < n && s[i] && strchr("0123456789abcdefABCDEF", s[i]))
				i++;
			memcpy(out + o, "0x...", 5);
			o += 5;
		} else {
			out[o++] = s[i++];
		}
	}
	return o;
}

static const struct zt_strtab *sorttab;

static int bykey(const void *a, const void *b)
{
	size_t nx, ny;
	const char *x = zt_strtab_key(sorttab, *(const uint32_t *)a, &nx);
	const char *y = zt_strtab_key(sorttab, *(const uint32_t *)b, &ny);
	int c = memcmp(x, y, nx < ny ? nx : ny);

	return c ? c : (nx > ny) - (nx < ny);
}

/* Read the whole input into the table, summing repeated stacks. */
static void load(struct zt_foldsrc *s, struct zt_input *in, int strip)
{
	struct zt_folded_item it;
	uint64_t stacks = 0;
	char *buf = NULL;
	size_t cap = 0, cnt = 0;

	s->tab = zt_strtab_new();
	for (;;) {
		zt_folded_next(in, &it, &stacks);
		if (it.kind == ZT_FOLDED_ERROR) {
			free(buf);
			die_at(in, it.lineno, it.error);
		}
		if (it.kind == ZT_FOLDED_EOF)
			break;
		if (it.kind != ZT_FOLDED_STACK)
			continue;
		const char *key = it.stack;
		size_t klen = it.stacklen;
		int isnew;
		uint32_t id;

		if (strip) {
			/* "0x1" (3 bytes) grows to "0x..." (5): at most 5/3. */
			zt_grow(&buf, &cap, klen * 2 + 8, 1);
			klen = zt_strip_hex(it.stack, it.stacklen, buf);
			key = buf;
		}
		id = zt_strtab_intern(s->tab, key, klen, &isnew);
		zt_grow(&s->counts, &cnt, (size_t)id + 1, sizeof *s->counts);
		if (isnew)
			s->counts[id] = 0;
		if (s->counts[id] > UINT64_MAX - it.count) {
			free(buf);
			die_at(in, it.lineno, "sum of counts does not fit in 64 bits");
		}
		s->counts[id] += it.count;
	}
	free(buf);
	s->n = zt_strtab_count(s->tab);
	s->order = zt_calloc(s->n ? s->n : 1, sizeof *s->order);
	for (uint32_t i = 0; i < s->n; i++)
		s->order[i] = i;
	sorttab = s->tab;
	qsort(s->order, s->n, sizeof *s->order, bykey);
	sorttab = NULL;
}

struct zt_foldsrc *zt_foldsrc_open(const char *path, int strip, uint64_t *total)
{
	struct zt_foldsrc *s = opening = zt_calloc(1, sizeof *s);
	int is_stdin = !path || strcmp(path, "-") == 0;
	struct zt_input *in = opening_in = zt_input_open(path);
	struct zt_folded_item it;
	char *prev = NULL;
	size_t prevlen = 0, prevcap = 0;
	int sorted = 1;
	uint64_t stacks = 0;

	*total = 0;
	s->path = zt_strdup(is_stdin ? "-" : path);
	if (is_stdin || strip) {
		load(s, in, strip);
		for (uint32_t i = 0; i < s->n; i++) {
			if (*total > UINT64_MAX - s->counts[i])
				die_at(in, 0, "total count does not fit in 64 bits");
			*total += s->counts[i];
		}
		zt_input_close(in);
		return s;
	}
	/* Check pass: format, total, order; constant memory. */
	for (;;) {
		zt_folded_next(in, &it, &stacks);
		if (it.kind == ZT_FOLDED_ERROR) {
			free(prev);
			die_at(in, it.lineno, it.error);
		}
		if (it.kind == ZT_FOLDED_EOF)
			break;
		if (it.kind != ZT_FOLDED_STACK)
			continue;
		if (*total > UINT64_MAX - it.count)
			die_at(in, it.lineno, "total count does not fit in 64 bits");
		*total += it.count;
		if (sorted && prev) {
			int c = memcmp(prev, it.stack, prevlen < it.stacklen ? prevlen : it.stacklen);
			if (c > 0 || (c == 0 && prevlen >= it.stacklen))
				sorted = 0;
		}
		if (sorted) {
			zt_grow(&prev, &prevcap, it.stacklen + 1, 1);
			memcpy(prev, it.stack, it.stacklen);
			prevlen = it.stacklen;
		}
	}
	free(prev);
	prev = NULL;
	zt_input_close(in);
	in = opening_in = zt_input_open(path);
	if (sorted) {
		s->in = in;
		return s;
	}
	load(s, in, 0);
	zt_input_close(in);
	return s;
}

int zt_foldsrc_next(struct zt_foldsrc *s, const char **stack, size_t *len,
		    uint64_t *count)
{
	struct zt_folded_item it;

	if (s->in) {
		for (;;) {
			zt_folded_next(s->in, &it, &s->stacks);
			if (it.kind == ZT_FOLDED_ERROR)
				die_at(s->in, it.lineno, it.error);
			if (it.kind == ZT_FOLDED_EOF)
				return 0;
			if (it.kind == ZT_FOLDED_STACK)
				break;
		}
		*stack = it.stack;
		*len = it.stacklen;
		*count = it.count;
		return 1;
	}
	if (s->next >= s->n)
		return 0;
	*stack = zt_strtab_key(s->tab, s->order[s->next], len);
	*count = s->counts[s->order[s->next]];
	s->next++;
	return 1;
}

int zt_foldsrc_streamed(const struct zt_foldsrc *s)
{
	return s->in != NULL;
}

void zt_foldsrc_close(struct zt_foldsrc *s)
{
	if (!s)
		return;
	zt_input_close(s->in);
	zt_strtab_free(s->tab);
	free(s->counts);
	free(s->order);
	free(s->path);
	free(s);
}
