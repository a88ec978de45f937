/*
 * profile.c — per-key counts over interned names. A stamp per key (the
 * serial number of the last stack that counted it) keeps a recursive
 * function from counting twice in one stack's total, without a set per
 * stack; edges carry a stamp of their own for the same reason.
 */
#include "profile.h"
#include "folded.h"
#include "hash.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_profile {
	struct zt_strtab *names;
	uint64_t *self, *total, *stamp;
	size_t cap;
	uint64_t serial;
	uint64_t samples, skipped;
	uint32_t *ids;
	size_t nids, capids;
	struct zt_filter *filter;
	int edges_on;
	struct edge {
		uint32_t caller, callee;
		uint64_t count, stamp;
	} *edges;
	size_t nedges, capedges;
	struct zt_hash_index eix;
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
	free(p->edges);
	zt_hash_index_free(&p->eix);
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

static int edge_eq(void *ctx, uint32_t i, const void *key)
{
	const struct zt_profile *p = ctx;
	const uint32_t *k = key;

	return p->edges[i].caller == k[0] && p->edges[i].callee == k[1];
}

static void add_edge(struct zt_profile *p, uint32_t caller, uint32_t callee,
		     uint64_t count)
{
	uint32_t key[2] = { caller, callee };
	uint64_t h = zt_hash_u64(((uint64_t)caller << 32) | callee);
	int64_t i = zt_hash_index_find(&p->eix, h, edge_eq, p, key);

	if (i < 0) {
		zt_grow(&p->edges, &p->capedges, p->nedges + 1, sizeof *p->edges);
		i = (int64_t)p->nedges++;
		p->edges[i] = (struct edge){ caller, callee, 0, 0 };
		zt_hash_index_add(&p->eix, h, (uint32_t)i);
	}
	if (p->edges[i].stamp == p->serial)
		return;
	p->edges[i].stamp = p->serial;
	p->edges[i].count += count;
}

/* Add a stack that the filter kept (n frames), or -1 when it dropped it. */
static long add_kept(struct zt_profile *p, uint32_t *ids, long kept, uint64_t count)
{
	size_t n;

	p->serial++;
	p->samples += count;
	if (kept < 0) {
		p->skipped += count;
		return -1;
	}
	n = (size_t)kept;
	if (n == 0)
		return 0;
	p->self[ids[0]] += count;
	for (size_t i = 0; i < n; i++) {
		if (p->edges_on && i + 1 < n && ids[i + 1] != ids[i])
			add_edge(p, ids[i + 1], ids[i], count);
		if (p->stamp[ids[i]] == p->serial)
			continue;
		p->stamp[ids[i]] = p->serial;
		p->total[ids[i]] += count;
	}
	return kept;
}

long zt_profile_add(struct zt_profile *p, uint32_t *ids, uint32_t *aux, size_t n,
		    uint64_t count)
{
	long kept = (long)n;

	if (p->filter && zt_filter_active(p->filter))
		kept = zt_filter_stack(p->filter, ids, aux, n);
	return add_kept(p, ids, kept, count);
}

void zt_profile_set_filter(struct zt_profile *p, struct zt_filter *f)
{
	p->filter = f;
}

const char *zt_profile_name_fn(const void *p, uint32_t id, size_t *n)
{
	return zt_profile_name(p, id, n);
}

void zt_profile_track_edges(struct zt_profile *p)
{
	p->edges_on = 1;
}

/* How a sort orders keys or edges: qsort_r's argument. */
struct order {
	const struct zt_profile *p;
	int callers;		/* edges: by caller's name, else callee's */
	int cum;		/* keys: by total first */
};

/* The byte order of two keys' names. */
static int byname(const struct zt_profile *p, uint32_t x, uint32_t y)
{
	size_t nx, ny;
	const char *sx = zt_strtab_key(p->names, x, &nx);
	const char *sy = zt_strtab_key(p->names, y, &ny);

	return zt_folded_cmp(sx, nx, sy, ny);
}

static int byedge(const void *a, const void *b, void *arg)
{
	const struct zt_edge *x = a, *y = b;
	const struct order *o = arg;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return byname(o->p, o->callers ? x->caller : x->callee,
		      o->callers ? y->caller : y->callee);
}

struct zt_edge *zt_profile_edges(const struct zt_profile *p, uint32_t id, int callers,
				 size_t *n)
{
	struct zt_edge *out = zt_calloc(p->nedges ? p->nedges : 1, sizeof *out);

	*n = 0;
	for (size_t i = 0; i < p->nedges; i++) {
		const struct edge *e = &p->edges[i];

		if (e->count && (callers ? e->callee : e->caller) == id)
			out[(*n)++] = (struct zt_edge){ e->caller, e->callee, e->count };
	}
	qsort_r(out, *n, sizeof *out, byedge, &(struct order){ .p = p, .callers = callers });
	return out;
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
	/* The root frame (the command, as zt-fold names it) is not a
	 * function: filters skip it, as records' (which have it apart) and
	 * zt-fold's do, so --focus matches alike in every input. */
	if (p->filter && zt_filter_active(p->filter)) {
		uint32_t root = p->ids[p->nids - 1];
		long kept = zt_filter_stack(p->filter, p->ids, NULL, p->nids - 1);

		if (kept >= 0)
			p->ids[kept++] = root;
		add_kept(p, p->ids, kept, count);
		return;
	}
	zt_profile_add(p, p->ids, NULL, p->nids, count);
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
	for (size_t i = 0; i < p->nedges; i++)
		p->edges[i].count /= d;
	p->samples /= d;
	p->skipped /= d;
}

uint64_t zt_profile_samples(const struct zt_profile *p)
{
	return p->samples;
}

uint64_t zt_profile_kept(const struct zt_profile *p)
{
	return p->samples - p->skipped;
}

static int byweight(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct order *o = arg;
	const struct zt_profile *p = o->p;

	if (o->cum && p->total[x] != p->total[y])
		return p->total[x] > p->total[y] ? -1 : 1;
	if (p->self[x] != p->self[y])
		return p->self[x] > p->self[y] ? -1 : 1;
	if (p->total[x] != p->total[y])
		return p->total[x] > p->total[y] ? -1 : 1;
	return byname(p, x, y);
}

uint32_t *zt_profile_sorted_by(const struct zt_profile *p, uint32_t *n, int cum)
{
	uint32_t k = zt_profile_nkeys(p);
	uint32_t *ids = zt_calloc(k ? k : 1, sizeof *ids);

	*n = 0;
	for (uint32_t i = 0; i < k; i++)
		if (p->total[i])
			ids[(*n)++] = i;
	qsort_r(ids, *n, sizeof *ids, byweight, &(struct order){ .p = p, .cum = cum });
	return ids;
}
