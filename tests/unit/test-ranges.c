/*
 * test-ranges.c — the one binary search over sorted ranges (lib/ranges.c):
 * the edges (empty, below the first, past the last, equal starts), nested
 * and overlapping ranges, and random arrays against a plain scan.
 */
#include "unit.h"
#include "ranges.h"

#include <stdlib.h>

struct r {
	uint64_t lo, hi;	/* [lo, hi) */
	uint32_t up;
};

static int r_holds(const void *p, uint64_t key)
{
	const struct r *x = p;

	return key >= x->lo && key < x->hi;
}

#define R(arr, n) ZT_RANGES(arr, n, struct r, lo, up, r_holds)

static size_t upto(const struct r *a, size_t n, uint64_t key)
{
	return zt_ranges_upto(a, n, sizeof *a, offsetof(struct r, lo), key);
}

/* 1 + the last element that holds key, by a plain scan; 0 if none. */
static size_t scan(const struct r *a, size_t n, uint64_t key)
{
	size_t found = 0;

	for (size_t i = 0; i < n && a[i].lo <= key; i++)
		if (r_holds(&a[i], key))
			found = i + 1;
	return found;
}

UNIT_TEST(ranges_upto_at_the_edges)
{
	struct r a[] = { { 10, 20, 0 }, { 30, 40, 0 }, { 30, 35, 0 }, { 50, 60, 0 } };

	CHECK_EQ_U(upto(NULL, 0, 5), 0);		/* empty */
	CHECK_EQ_U(upto(a, 4, 0), 0);			/* below the first */
	CHECK_EQ_U(upto(a, 4, 9), 0);
	CHECK_EQ_U(upto(a, 4, 10), 1);			/* at the first */
	CHECK_EQ_U(upto(a, 4, 29), 1);
	CHECK_EQ_U(upto(a, 4, 30), 3);			/* equal starts: the last */
	CHECK_EQ_U(upto(a, 4, 49), 3);
	CHECK_EQ_U(upto(a, 4, 50), 4);
	CHECK_EQ_U(upto(a, 4, UINT64_MAX), 4);		/* past the last */
	CHECK_EQ_U(upto(a, 1, 10), 1);			/* one element */
	CHECK_EQ_U(upto(a, 1, 9), 0);
}

UNIT_TEST(ranges_holder_is_the_last_range_that_holds)
{
	/* An outer range holding ten inner ones, then one past a gap. */
	struct r a[13];
	size_t n = 0;

	a[n++] = (struct r){ 100, 1000, 0 };
	for (uint64_t k = 0; k < 10; k++)
		a[n++] = (struct r){ 200 + 50 * k, 210 + 50 * k, 0 };
	a[n++] = (struct r){ 900, 900 + 1, 0 };
	a[n++] = (struct r){ 2000, 2100, 0 };
	zt_ranges_link(&R(a, n));
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 99), 0);		/* below */
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 100), 1);
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 205), 2);	/* the inner one */
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 210), 1);	/* its end: the outer */
	/* Past ten inner ranges, more than any fixed look-back of 8. */
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 899), 1);
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 900), 12);
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 999), 1);
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 1000), 0);	/* the gap */
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 2099), 13);
	CHECK_EQ_U(zt_ranges_holder(&R(a, n), 2100), 0);	/* past the last */
	CHECK_EQ_U(zt_ranges_holder(&R(a, 0), 100), 0);	/* empty */
}

UNIT_TEST(ranges_holder_with_equal_starts_takes_the_later)
{
	struct r a[] = { { 10, 50, 0 }, { 10, 20, 0 }, { 10, 30, 0 } };

	zt_ranges_link(&R(a, 3));
	CHECK_EQ_U(zt_ranges_holder(&R(a, 3), 10), 3);
	CHECK_EQ_U(zt_ranges_holder(&R(a, 3), 25), 3);
	CHECK_EQ_U(zt_ranges_holder(&R(a, 3), 30), 1);
	CHECK_EQ_U(zt_ranges_holder(&R(a, 3), 50), 0);
}

static int cmp_lo(const void *x, const void *y)
{
	const struct r *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

UNIT_TEST(ranges_holder_agrees_with_a_scan)
{
	struct r a[200];
	int bad = 0;

	srand(42);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rand() % 200);

		for (size_t i = 0; i < n; i++) {
			a[i].lo = (uint64_t)(rand() % 1000);
			/* Mostly short ranges, some long ones that hold many. */
			a[i].hi = a[i].lo + 1 + (uint64_t)(rand() % (rand() % 8 ? 10 : 500));
		}
		qsort(a, n, sizeof *a, cmp_lo);
		zt_ranges_link(&R(a, n));
		for (uint64_t key = 0; key < 1600; key++)
			bad += zt_ranges_holder(&R(a, n), key) != scan(a, n, key);
	}
	CHECK_EQ_U(bad, 0);
}
