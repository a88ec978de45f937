/*
 * foldedsort.c — sorted access to a folded file: stream it when it is already
 * sorted, otherwise sum and sort it in memory (a strtab of stacks).
 */
#include "foldedsort.h"
#include "folded.h"
#include "input.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_foldedsort {
	struct zt_folded_reader rd;	/* streaming: rd.in */
	struct zt_strtab *tab;		/* in memory */
	uint64_t *counts;
	size_t countcap;		/* counts' room, kept across inputs */
	uint32_t *order;
	uint32_t next, n;
	int unit;			/* what the input declared: ZT_WEIGHT_WALL ('# zt
					   weight: ns'), ZT_WEIGHT_BYTES, ZT_WEIGHT_OBJECTS,
					   or 0: samples or periods */
	uint64_t rate;			/* an allocation profile's rate, 0 if not said */
};

/* What a reader's input declared, into *unit (and s's rate). */
static void declared(struct zt_foldedsort *s, const struct zt_folded_reader *rd, int *unit)
{
	if (rd->wall)
		*unit = ZT_WEIGHT_WALL;
	else if (rd->alloc)
		*unit = rd->alloc;
	if (rd->rate && !s->rate)
		s->rate = rd->rate;
}

/* How a unit is said in messages. */
static const char *unit_words(int unit)
{
	return unit == ZT_WEIGHT_WALL ? "is a wall-clock profile ('# zt weight: ns')" :
	       unit == ZT_WEIGHT_BYTES ? "is an allocation profile in bytes ('# zt weight: bytes')" :
	       unit == ZT_WEIGHT_OBJECTS ? "is an allocation profile in objects ('# zt weight: "
					   "objects')" :
	       "weighs its stacks in samples or periods";
}

size_t zt_foldedsort_strip_hex(const char *s, size_t n, char *out)
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

static int bykey(const void *a, const void *b, void *tab)
{
	size_t nx, ny;
	const char *x = zt_strtab_key(tab, *(const uint32_t *)a, &nx);
	const char *y = zt_strtab_key(tab, *(const uint32_t *)b, &ny);

	return zt_folded_cmp(x, nx, y, ny);
}

const char *zt_foldedsort_rewrite(const struct zt_foldedsort_opts *o, const char *s, size_t n,
				  size_t *len, char **buf, size_t *cap)
{
	size_t extra = o && o->root.name ? strlen(o->root.name) : 0;

	*len = n;
	if (!o || (!o->strip && o->root.how == ZT_ROOT_KEEP))
		return s;
	/* Both rewrites in one buffer: the root's in its first half, then
	 * "0x1" (3 bytes) grown to "0x..." (5), at most 5/3, after it. */
	zt_grow(buf, cap, 3 * (n + extra) + 16, 1);
	if (o->root.how != ZT_ROOT_KEEP) {
		*len = zt_folded_reroot(&o->root, s, n, *buf);
		s = *buf;
	}
	if (o->strip) {
		char *out = *buf + n + extra + 1;

		*len = zt_foldedsort_strip_hex(s, *len, out);
		s = out;
	}
	return s;
}

/* Whether o rewrites stacks, so that a file cannot be streamed as it is. */
static int rewrites(const struct zt_foldedsort_opts *o)
{
	return o && (o->strip || o->root.how != ZT_ROOT_KEEP);
}

/*
 * Read the whole input into the table, each stack rewritten as o says
 * (NULL: as it is), summing repeated stacks; -1 on bad input.
 */
static int load(struct zt_foldedsort *s, struct zt_folded_reader *rd,
		const struct zt_foldedsort_opts *o, int *unit, char *err, size_t errlen)
{
	struct zt_folded_item it;
	char *buf = NULL;
	size_t cap = 0;
	int got;

	if (!s->tab)
		s->tab = zt_strtab_new();
	while ((got = zt_folded_read(rd, &it, err, errlen)) > 0) {
		const char *key;
		size_t klen;
		int isnew;
		uint32_t id;

		key = zt_foldedsort_rewrite(o, it.stack, it.stacklen, &klen, &buf, &cap);
		id = zt_strtab_intern(s->tab, key, klen, &isnew);
		zt_grow(&s->counts, &s->countcap, (size_t)id + 1, sizeof *s->counts);
		if (isnew)
			s->counts[id] = 0;
		if (s->counts[id] > UINT64_MAX - it.count) {
			zt_err_at(err, errlen, zt_folded_reader_name(rd), it.lineno,
				  "sum of counts does not fit in 64 bits");
			got = -1;
			break;
		}
		s->counts[id] += it.count;
	}
	free(buf);
	declared(s, rd, unit);
	return got < 0 ? -1 : 0;
}

/* The loaded stacks in zt_folded_cmp's order, and their total. */
static int sort_loaded(struct zt_foldedsort *s, const char *name, uint64_t *total, char *err,
		       size_t errlen)
{
	s->n = s->tab ? zt_strtab_count(s->tab) : 0;	/* no input, no table */
	s->order = zt_calloc(s->n ? s->n : 1, sizeof *s->order);
	for (uint32_t i = 0; i < s->n; i++)
		s->order[i] = i;
	qsort_r(s->order, s->n, sizeof *s->order, bykey, s->tab);
	*total = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (*total > UINT64_MAX - s->counts[i]) {
			zt_err_at(err, errlen, name, 0, "total count does not fit in 64 bits");
			return -1;
		}
		*total += s->counts[i];
	}
	return 0;
}

/*
 * The check pass over a file to stream: its format and total, and whether
 * its stacks are in order, each once; in constant memory.
 */
static int check(struct zt_foldedsort *s, struct zt_folded_reader *rd, uint64_t *total,
		 int *sorted, int *unit, char *err, size_t errlen)
{
	struct zt_folded_item it;
	char *prev = NULL;
	size_t prevlen = 0, prevcap = 0;
	int got;

	*sorted = 1;
	while ((got = zt_folded_read(rd, &it, err, errlen)) > 0) {
		if (*total > UINT64_MAX - it.count) {
			zt_err_at(err, errlen, zt_folded_reader_name(rd), it.lineno,
				  "total count does not fit in 64 bits");
			got = -1;
			break;
		}
		*total += it.count;
		if (*sorted && prev && zt_folded_cmp(prev, prevlen, it.stack, it.stacklen) >= 0)
			*sorted = 0;
		if (*sorted) {
			zt_grow(&prev, &prevcap, it.stacklen + 1, 1);
			memcpy(prev, it.stack, it.stacklen);
			prevlen = it.stacklen;
		}
	}
	free(prev);
	declared(s, rd, unit);
	return got;
}

struct zt_foldedsort *zt_foldedsort_from(struct zt_folded_reader *rd, const char *reopen,
					 const struct zt_foldedsort_opts *o, uint64_t *total,
					 char *err, size_t errlen)
{
	struct zt_foldedsort *s = zt_calloc(1, sizeof *s);
	struct zt_input *again = NULL;
	struct zt_folded_reader rd2;
	int sorted;

	*total = 0;
	if (!reopen || rewrites(o)) {
		if (load(s, rd, o, &s->unit, err, errlen) < 0 ||
		    sort_loaded(s, zt_folded_reader_name(rd), total, err, errlen) < 0)
			goto fail;
		return s;
	}
	if (check(s, rd, total, &sorted, &s->unit, err, errlen) < 0)
		goto fail;
	if (!(again = zt_input_open(reopen, err, errlen)))
		goto fail;
	if (sorted) {
		zt_folded_reader_init(&s->rd, again);
		return s;
	}
	zt_folded_reader_init(&rd2, again);
	if (load(s, &rd2, NULL, &sorted, err, errlen) < 0 ||
	    sort_loaded(s, zt_input_name(again), total, err, errlen) < 0)
		goto fail;
	zt_input_close(again);
	return s;
fail:
	zt_input_close(again);
	zt_foldedsort_close(s);
	return NULL;
}

struct zt_foldedsort *zt_foldedsort_sum_new(void)
{
	return zt_calloc(1, sizeof(struct zt_foldedsort));
}

int zt_foldedsort_sum_add(struct zt_foldedsort *s, struct zt_folded_reader *rd, const char *first,
			  const struct zt_foldedsort_opts *o, char *err, size_t errlen)
{
	int unit = 0;

	if (load(s, rd, o, &unit, err, errlen) < 0)
		return -1;
	if (first && unit != s->unit) {
		zt_errf(err, errlen, "%s %s, %s %s: they cannot be summed", first,
			unit_words(s->unit), zt_folded_reader_name(rd), unit_words(unit));
		return -1;
	}
	s->unit = unit;
	return 0;
}

int zt_foldedsort_sum_end(struct zt_foldedsort *s, const char *name, uint64_t *total, char *err,
			  size_t errlen)
{
	return sort_loaded(s, name, total, err, errlen);
}

int zt_foldedsort_next(struct zt_foldedsort *s, const char **stack, size_t *len,
		       uint64_t *count, char *err, size_t errlen)
{
	struct zt_folded_item it;
	int got;

	if (s->rd.in) {
		if ((got = zt_folded_read(&s->rd, &it, err, errlen)) <= 0)
			return got;
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

int zt_foldedsort_wall(const struct zt_foldedsort *s)
{
	return s->unit == ZT_WEIGHT_WALL;
}

int zt_foldedsort_alloc(const struct zt_foldedsort *s)
{
	return s->unit == ZT_WEIGHT_BYTES || s->unit == ZT_WEIGHT_OBJECTS ? s->unit : 0;
}

uint64_t zt_foldedsort_rate(const struct zt_foldedsort *s)
{
	return s->rate;
}

void zt_foldedsort_close(struct zt_foldedsort *s)
{
	if (!s)
		return;
	zt_input_close(s->rd.in);
	zt_strtab_free(s->tab);
	free(s->counts);
	free(s->order);
	free(s);
}
