/*
 * threadstates.c — a wall-clock profile's time per thread and state
 * (threadstates.h).
 */
#include "threadstates.h"
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_threadstates {
	struct zt_threadstates_row *threads;
	size_t n, cap;
	struct zt_hash_index ix;
	uint64_t total[ZT_STATES];
	int have_ids;
	struct zt_threadstates_row *rows;	/* zt_threadstates_rows' */
	size_t nrows, caprows;
	/* The last call's pid and tid text, and its row (-1: none): record
	   after record of one thread costs a comparison. */
	char lastids[48];
	size_t lastpidn, lasttidn;
	int64_t last;
};

struct key {
	uint64_t pid, tid;
};

static int row_eq(void *ctx, uint32_t i, const void *k)
{
	const struct zt_threadstates *s = ctx;
	const struct key *key = k;

	return s->threads[i].pid == key->pid && s->threads[i].tid == key->tid;
}

/* Decimal digits as a number; 0 for anything else ("?", empty). */
static uint64_t id_of(const char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	return v;
}

struct zt_threadstates *zt_threadstates_new(void)
{
	return zt_calloc(1, sizeof(struct zt_threadstates));
}

void zt_threadstates_free(struct zt_threadstates *s)
{
	if (!s)
		return;
	free(s->threads);
	free(s->rows);
	zt_hash_index_free(&s->ix);
	free(s);
}

int zt_threadstates_add(struct zt_threadstates *s, const char *pid, size_t pidn, const char *tid,
			size_t tidn, const char *name, size_t namen, enum zt_state st, uint64_t w)
{
	struct key key;
	uint64_t h;
	int64_t i;
	struct zt_threadstates_row *r;

	if (s->total[st] > UINT64_MAX - w)
		return -1;
	s->total[st] += w;
	if (s->lastpidn + s->lasttidn > 0 && pidn == s->lastpidn && tidn == s->lasttidn &&
	    memcmp(s->lastids, pid, pidn) == 0 && memcmp(s->lastids + pidn, tid, tidn) == 0) {
		if (s->last >= 0)
			s->threads[s->last].ns[st] += w;
		return 0;
	}
	key = (struct key){ id_of(pid, pidn), id_of(tid, tidn) };
	s->lastpidn = s->lasttidn = 0;
	if (pidn + tidn <= sizeof s->lastids && pidn + tidn > 0) {
		memcpy(s->lastids, pid, pidn);
		memcpy(s->lastids + pidn, tid, tidn);
		s->lastpidn = pidn;
		s->lasttidn = tidn;
	}
	s->last = -1;
	if (!key.tid)
		return 0;
	h = zt_hash(&key, sizeof key, 0);
	i = zt_hash_index_find(&s->ix, h, row_eq, s, &key);
	s->have_ids = 1;
	if (i < 0) {
		zt_grow(&s->threads, &s->cap, s->n + 1, sizeof *s->threads);
		r = &s->threads[s->n];
		memset(r, 0, sizeof *r);
		r->pid = key.pid;
		r->tid = key.tid;
		if (namen >= sizeof r->name)
			namen = sizeof r->name - 1;
		if (namen)
			memcpy(r->name, name, namen);
		zt_hash_index_add(&s->ix, h, (uint32_t)s->n);
		i = (int64_t)s->n++;
	}
	s->threads[i].ns[st] += w;
	s->last = i;
	return 0;
}

uint64_t zt_threadstates_total(const struct zt_threadstates *s, enum zt_state st)
{
	return s->total[st];
}

static int by_ids(const void *a, const void *b)
{
	const struct zt_threadstates_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

const struct zt_threadstates_row *zt_threadstates_rows(struct zt_threadstates *s, size_t *n)
{
	size_t prow = 0;

	s->nrows = 0;
	if (s->n)
		qsort(s->threads, s->n, sizeof *s->threads, by_ids);
	zt_hash_index_free(&s->ix);
	memset(&s->ix, 0, sizeof s->ix);
	for (size_t i = 0; i < s->n; i++) {
		struct key key = { s->threads[i].pid, s->threads[i].tid };

		zt_hash_index_add(&s->ix, zt_hash(&key, sizeof key, 0), (uint32_t)i);
		if (i == 0 || s->threads[i].pid != s->threads[i - 1].pid) {
			zt_grow(&s->rows, &s->caprows, s->nrows + 1, sizeof *s->rows);
			memset(&s->rows[s->nrows], 0, sizeof *s->rows);
			s->rows[s->nrows].pid = s->threads[i].pid;
			prow = s->nrows++;
		}
		/* A process is named by its main thread (tid = pid), else its first. */
		if (!s->rows[prow].name[0] || s->threads[i].tid == s->rows[prow].pid)
			memcpy(s->rows[prow].name, s->threads[i].name, sizeof s->rows[prow].name);
		for (int k = 0; k < ZT_STATES; k++)
			s->rows[prow].ns[k] += s->threads[i].ns[k];
		zt_grow(&s->rows, &s->caprows, s->nrows + 1, sizeof *s->rows);
		s->rows[s->nrows++] = s->threads[i];
	}
	*n = s->nrows;
	return s->rows;
}
