/*
 * profile.c — per-key counts over interned names. A stamp per key (the
 * serial number of the last stack that counted it) keeps a recursive
 * function from counting twice in one stack's total, without a set per
 * stack.
 */
#include "profile.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_profile {
	struct zt_strtab *names;
	uint64_t *self, *total, *stamp;
	size_t cap;
	uint64_t serial;
	uint64_t samples;
	uint32_t *ids;
	size_t nids, capids;
};

struct zt_profile *zt_profile_new(void)
{
	struct zt_profile *p = zt_calloc(1, sizeof *p);

	p->names = zt_strtab_new();
	return p;
}

void zt_profile_free(struct zt_profile *p)
{
	if (!p)
		return;
	zt_strtab_free(p->names);
	free(p->self);
	free(p->total);
	free(p->stamp);
	free(p->ids);
	free(p);
}

uint32_t zt_profile_key(struct zt_profile *p, const char *name, size_t n)
{
	int isnew;
	uint32_t id = zt_strtab_intern(p->names, name, n, &isnew);

	if (isnew) {
		size_t cap = p->cap;
		zt_grow(&p->self, &cap, (size_t)id + 1, sizeof *p->self);
		cap = p->cap;
		zt_grow(&p->total, &cap, (size_t)id + 1, sizeof *p->total);
		cap = p->cap;
		zt_grow(&p->stamp, &cap, (size_t)id + 1, sizeof *p->stamp);
		p->cap = cap;
		p->self[id] = p->total[id] = p->stamp[id] = 0;
	}
	return id;
}

void zt_profile_add(struct zt_profile *p, const uint32_t *ids, size_t n,
		    uint64_t count)
{
	p->serial++;
	p->samples += count;
	if (n == 0)
		return;
	p->self[ids[0]] += count;
	for (size_t i = 0; i < n; i++) {
		if (p->stamp[ids[i]] == p->serial)
			continue;
		p->stamp[ids[i]] = p->serial;
		p->total[ids[i]] += count;
	}
}

void zt_profile_add_folded(struct zt_profile *p, const char *s, size_t n,
			   uint64_t count)
{
	const char *end = s + n, *semi;

	p->nids = 0;
	for (;;) {
		semi = memchr(s, ';', (size_t)(end - s));
		zt_grow(&p->ids, &p->capids, p->nids + 1, sizeof *p->ids);
		p->ids[p->nids++] = zt_profile_key(p, s, semi ? (size_t)(semi - s) : (size_t)(end - s));
		if (!semi)
			break;
		s = semi + 1;
	}
	/* Root first in the text; leaf first for zt_profile_add. */
	for (size_t i = 0, j = p->nids - 1; i < j; i++, j--) {
		uint32_t t = p->ids[i];
		p->ids[i] = p->ids[j];
		p->ids[j] = t;
	}
	zt_profile_add(p, p->ids, p->nids, count);
}

uint32_t zt_profile_nkeys(const struct zt_profile *p)
{
	return zt_strtab_count(p->names);
}

const char *zt_profile_name(const struct zt_profile *p, uint32_t id, size_t *n)
{
	return zt_strtab_key(p->names, id, n);
}

uint64_t zt_profile_self(const struct zt_profile *p, uint32_t id)
{
	return p->self[id];
}

uint64_t zt_profile_total(const struct zt_profile *p, uint32_t id)
{
	return p->total[id];
}

int64_t zt_profile_find(const struct zt_profile *p, const char *name, size_t n)
{
	return zt_strtab_find(p->names, name, n);
}

void zt_profile_divide(struct zt_profile *p, uint64_t d)
{
	uint32_t k = zt_profile_nkeys(p);

	if (d <= 1)
		return;
	for (uint32_t i = 0; i < k; i++) {
		p->self[i] /= d;
		p->total[i] /= d;
	}
	p->samples /= d;
}

uint64_t zt_profile_samples(const struct zt_profile *p)
{
	return p->samples;
}

static const struct zt_profile *sorting;

static int byweight(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct zt_profile *p = sorting;
	size_t nx, ny;
	const char *sx, *sy;
	int c;

	if (p->self[x] != p->self[y])
		return p->self[x] > p->self[y] ? -1 : 1;
	if (p->total[x] != p->total[y])
		return p->total[x] > p->total[y] ? -1 : 1;
	sx = zt_strtab_key(p->names, x, &nx);
	sy = zt_strtab_key(p->names, y, &ny);
	c = memcmp(sx, sy, nx < ny ? nx : ny);
	if (c)
		return c;
	return (nx > ny) - (nx < ny);
}

uint32_t *zt_profile_sorted(const struct zt_profile *p, uint32_t *n)
{
	uint32_t k = zt_profile_nkeys(p);
	uint32_t *ids = zt_calloc(k ? k : 1, sizeof *ids);

	*n = 0;
	for (uint32_t i = 0; i < k; i++)
		if (p->total[i])
			ids[(*n)++] = i;
	sorting = p;
	qsort(ids, *n, sizeof *ids, byweight);
	sorting = NULL;
	return ids;
}
