/*
 * filter.c — focus, ignore and hide over interned names (see filter.h).
 * One byte per name id remembers its matches: bit 0 set once it has been
 * matched, then one bit per regex.
 */
#include "filter.h"
#include "util.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct zt_filter {
	zt_name_fn name;
	const void *ctx;
	regex_t re[3];
	int set[3];
	unsigned char *seen;
	size_t cap;
};

struct zt_filter *zt_filter_new(zt_name_fn name, const void *ctx)
{
	struct zt_filter *f = zt_calloc(1, sizeof *f);

	f->name = name;
	f->ctx = ctx;
	return f;
}

void zt_filter_free(struct zt_filter *f)
{
	if (!f)
		return;
	for (int k = 0; k < 3; k++)
		if (f->set[k])
			regfree(&f->re[k]);
	free(f->seen);
	free(f);
}

int zt_filter_set(struct zt_filter *f, enum zt_filter_kind k, const char *re,
		  char *err, size_t cap)
{
	regex_t r;
	int rc = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		regerror(rc, &r, err, cap);
		regfree(&r);
		return -1;
	}
	if (f->set[k])
		regfree(&f->re[k]);
	f->re[k] = r;
	f->set[k] = 1;
	/* Matches cached for the old regex are stale. */
	if (f->seen)
		memset(f->seen, 0, f->cap);
	return 0;
}

int zt_filter_active(const struct zt_filter *f)
{
	return f && (f->set[0] || f->set[1] || f->set[2]);
}

static unsigned matches(struct zt_filter *f, uint32_t id)
{
	size_t old = f->cap, n;
	const char *s;

	if (id >= f->cap) {
		zt_grow(&f->seen, &f->cap, (size_t)id + 1, 1);
		memset(f->seen + old, 0, f->cap - old);
	}
	if (!f->seen[id]) {
		unsigned char b = 1;

		s = f->name(f->ctx, id, &n);
		for (int k = 0; k < 3; k++)
			if (f->set[k] && regexec(&f->re[k], s, 0, NULL, 0) == 0)
				b |= (unsigned char)(2u << k);
		f->seen[id] = b;
	}
	return f->seen[id];
}

int zt_filter_match(struct zt_filter *f, enum zt_filter_kind k, uint32_t id)
{
	return f->set[k] && (matches(f, id) & (2u << k)) != 0;
}

long zt_filter_stack(struct zt_filter *f, uint32_t *ids, uint32_t *aux, size_t n)
{
	int focused = !f->set[ZT_FOCUS];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned m = matches(f, ids[i]);

		if (m & (2u << ZT_IGNORE))
			return -1;
		if (m & (2u << ZT_FOCUS))
			focused = 1;
	}
	if (!focused)
		return -1;
	if (!f->set[ZT_HIDE])
		return (long)n;
	for (size_t i = 0; i < n; i++) {
		if (matches(f, ids[i]) & (2u << ZT_HIDE))
			continue;
		if (aux)
			aux[k] = aux[i];
		ids[k++] = ids[i];
	}
	return (long)k;
}
