/*
 * test-compare.c — lib/compare.c: the per-function statistic, what counts
 * as a test, a clear change against noise, and counts up to 2^63.
 */
#include "unit.h"
#include "compare.h"

#include <math.h>
#include <stdint.h>

/* Runs of the same stacks, counts[j][i] for stack i in run j. */
static struct zt_compare_runs *runs(const char *const *stacks, size_t n, const int *side,
				    size_t r, const uint64_t *const *counts)
{
	struct zt_compare_runs *m = zt_compare_runs_new(side, r);

	for (size_t j = 0; j < r; j++)
		for (size_t i = 0; i < n; i++)
			CHECK(zt_compare_runs_add(m, j, stacks[i], strlen(stacks[i]),
						  counts[j][i]) == 0);
	return m;
}

/* The row of name, into *out (which it returns), or NULL. */
static const struct zt_compare_row *row(const struct zt_compare *c, const char *name,
					struct zt_compare_row *out)
{
	for (size_t i = 0; i < c->nrows; i++) {
		zt_compare_row(c, i, out);
		if (out->namelen == strlen(name) && !memcmp(out->name, name, out->namelen))
			return out;
	}
	return NULL;
}

UNIT_TEST(compare_one_pools_the_sides)
{
	uint64_t k[] = { 10, 30, 20, 20 }, n[] = { 100, 100, 100, 100 };
	int side[] = { 0, 0, 1, 1 };
	struct zt_compare_test t;
	double x2;

	zt_compare_one(k, n, side, 4, &t, &x2);
	CHECK_EQ_U(t.k[0], 40);
	CHECK_EQ_U(t.k[1], 40);
	CHECK(fabs(t.share[0] - 0.2) < 1e-12 && fabs(t.change) < 1e-12);
	/* Side 0: (10-20)^2/16 + (30-20)^2/16; side 1 agrees exactly. */
	CHECK(fabs(x2 - 12.5) < 1e-9);
}

UNIT_TEST(compare_finds_a_doubling_and_counts_no_redundant_tests)
{
	const char *s[] = { "m;a", "m;b", "m;c" };
	uint64_t before[] = { 3000, 1000, 2000 }, after[] = { 6000, 1000, 2000 };
	int side[] = { 0, 1 };
	struct zt_compare_runs *m = runs(s, 3, side, 2, (const uint64_t *[]){ before, after });
	struct zt_compare *c = zt_compare(m, 0.05);
	struct zt_compare_row ra;
	const struct zt_compare_row *a = row(c, "a", &ra);

	/* m is 100% on both sides; a, b, c are leaves (total = self): 3 tests. */
	CHECK_EQ_U(c->ntests, 3);
	CHECK_EQ_U(c->nrows, 4);
	CHECK(!c->replicates);
	CHECK(a && a->significant && a->self.rejected && a->total.rejected);
	CHECK(a && a->self.lo > 0 && a->self.lo < a->self.change && a->self.hi > a->self.change);
	CHECK(fabs(c->level - (1 - 0.05 * (double)c->rejections / 3)) < 1e-12);
	zt_compare_free(c);
	zt_compare_runs_free(m);
}

UNIT_TEST(compare_same_profile_changes_nothing)
{
	const char *s[] = { "m;a", "m;b" };
	uint64_t k[] = { 700, 300 };
	int side[] = { 0, 1 };
	struct zt_compare_runs *m = runs(s, 2, side, 2, (const uint64_t *[]){ k, k });
	struct zt_compare *c = zt_compare(m, 0.05);
	struct zt_compare_row r;

	CHECK_EQ_U(c->rejections, 0);
	for (size_t i = 0; i < c->nrows; i++) {
		zt_compare_row(c, i, &r);
		CHECK(!r.significant && r.self.p == 1);
	}
	zt_compare_free(c);
	zt_compare_runs_free(m);
}

UNIT_TEST(compare_counts_up_to_2_63)
{
	const char *s[] = { "m;a", "m;b" };
	uint64_t big = (uint64_t)1 << 62;
	uint64_t before[] = { big, big }, after[] = { big + (big >> 1), big >> 1 };
	int side[] = { 0, 1 };
	struct zt_compare_runs *m = runs(s, 2, side, 2, (const uint64_t *[]){ before, after });
	struct zt_compare *c = zt_compare(m, 0.05);
	struct zt_compare_row ra;
	const struct zt_compare_row *a = row(c, "a", &ra);

	CHECK_EQ_U(c->samples[0], (uint64_t)1 << 63);
	CHECK(a && a->significant && fabs(a->self.change - 0.25) < 1e-12);
	/* A run's total past 2^64 - 1 is refused, and nothing of it added. */
	CHECK(zt_compare_runs_add(m, 1, "m;a", 3, big * 2) == -1);
	CHECK_EQ_U(zt_compare_runs_samples(m, 1), big * 2);
	zt_compare_free(c);
	zt_compare_runs_free(m);
}

UNIT_TEST(compare_runs_count_a_recursive_function_once_and_divide)
{
	const char *s[] = { "m;f;g;f", "m;g" };
	uint64_t k[] = { 30, 60 };
	int side[] = { 0, 1 };
	struct zt_compare_runs *m = runs(s, 2, side, 2, (const uint64_t *[]){ k, k });
	struct zt_compare *c;
	struct zt_compare_row r;

	zt_compare_runs_divide(m, 0, 3);
	CHECK_EQ_U(zt_compare_runs_samples(m, 0), 30);
	c = zt_compare(m, 0.05);
	CHECK(row(c, "f", &r) && r.self.k[0] == 10 && r.total.k[0] == 10 &&
	      r.self.k[1] == 30 && r.total.k[1] == 30);
	CHECK(row(c, "g", &r) && r.self.k[0] == 20 && r.total.k[0] == 30 &&
	      r.total.k[1] == 90);
	zt_compare_free(c);
	zt_compare_runs_free(m);
}

UNIT_TEST(compare_replicates_widen_the_test)
{
	/* Two runs per side that disagree a lot within each side: the same
	   pooled change is significant with one run per side, not with the
	   between-run variation. */
	const char *s[] = { "m;a", "m;b" };
	uint64_t r1[] = { 400, 600 }, r2[] = { 600, 400 }, r3[] = { 450, 550 }, r4[] = { 650, 350 };
	uint64_t pooled0[] = { 1000, 1000 }, pooled1[] = { 1100, 900 };
	int side[] = { 0, 0, 1, 1 };
	struct zt_compare_runs *m = runs(s, 2, side, 4, (const uint64_t *[]){ r1, r2, r3, r4 });
	struct zt_compare_runs *m1 = runs(s, 2, (int[]){ 0, 1 }, 2,
					  (const uint64_t *[]){ pooled0, pooled1 });
	struct zt_compare *c = zt_compare(m, 0.05), *one = zt_compare(m1, 0.05);
	struct zt_compare_row a4, a2;

	CHECK(c->replicates && c->alpha > 0);
	CHECK(row(c, "a", &a4) && !a4.significant);
	CHECK(row(one, "a", &a2) && a2.self.p < a4.self.p);
	zt_compare_free(c);
	zt_compare_free(one);
	zt_compare_runs_free(m);
	zt_compare_runs_free(m1);
}

UNIT_TEST(compare_runs_keep_the_runs_read)
{
	/* Room for 6 runs, 4 read (as zt-diff --report leaves empty ones
	   out), then kept: the same tests, to the bit, as runs made for 4. */
	const char *s[] = { "m;a", "m;b", "m;a;c" };
	uint64_t r1[] = { 400, 600, 7 }, r2[] = { 600, 400, 9 }, r3[] = { 450, 550, 30 },
		 r4[] = { 650, 350, 41 };
	const uint64_t *cs[] = { r1, r2, r3, r4 };
	int side[] = { 0, 0, 1, 1 }, none[6] = { 0 };
	struct zt_compare_runs *m = runs(s, 3, side, 4, cs);
	struct zt_compare_runs *k = zt_compare_runs_new(none, 6);
	struct zt_compare *c, *ck;
	struct zt_compare_row a, b;

	for (size_t j = 0; j < 4; j++)
		for (size_t i = 0; i < 3; i++)
			CHECK(zt_compare_runs_add(k, j, s[i], strlen(s[i]), cs[j][i]) == 0);
	zt_compare_runs_keep(k, side, 4);
	c = zt_compare(m, 0.05);
	ck = zt_compare(k, 0.05);
	CHECK(c->nrows == ck->nrows && c->alpha == ck->alpha);
	for (size_t i = 0; i < c->nrows; i++) {
		zt_compare_row(c, i, &a);
		zt_compare_row(ck, i, &b);
		CHECK(a.namelen == b.namelen && !memcmp(a.name, b.name, a.namelen));
		CHECK(a.self.k[0] == b.self.k[0] && a.self.k[1] == b.self.k[1] &&
		      a.total.k[0] == b.total.k[0] && a.total.k[1] == b.total.k[1]);
		CHECK(a.self.p == b.self.p && a.total.p == b.total.p &&
		      a.significant == b.significant);
	}
	zt_compare_free(c);
	zt_compare_free(ck);
	zt_compare_runs_free(m);
	zt_compare_runs_free(k);
}
