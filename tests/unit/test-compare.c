/*
 * test-compare.c — lib/compare.c: the per-function statistic, what counts
 * as a test, a clear change against noise, and counts up to 2^63.
 */
#include "unit.h"
#include "compare.h"

#include <math.h>
#include <stdint.h>

static struct zt_profile *folded(const char *const *stacks, const uint64_t *counts, size_t n)
{
	struct zt_profile *p = zt_profile_new();

	for (size_t i = 0; i < n; i++)
		zt_profile_add_folded(p, stacks[i], strlen(stacks[i]), counts[i]);
	return p;
}

static const struct zt_compare_row *row(const struct zt_compare *c, const char *name)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].namelen == strlen(name) && !memcmp(c->rows[i].name, name, c->rows[i].namelen))
			return &c->rows[i];
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
	struct zt_profile *p[2] = { folded(s, before, 3), folded(s, after, 3) };
	int side[] = { 0, 1 };
	struct zt_compare *c = zt_compare(p, side, 2, 0.05);
	const struct zt_compare_row *a = row(c, "a");

	/* m is 100% on both sides; a, b, c are leaves (total = self): 3 tests. */
	CHECK_EQ_U(c->ntests, 3);
	CHECK(!c->replicates);
	CHECK(a && a->significant && a->self.rejected);
	CHECK(a && a->self.lo > 0 && a->self.lo < a->self.change && a->self.hi > a->self.change);
	CHECK(fabs(c->level - (1 - 0.05 * (double)c->rejections / 3)) < 1e-12);
	zt_compare_free(c);
	zt_profile_free(p[0]);
	zt_profile_free(p[1]);
}

UNIT_TEST(compare_same_profile_changes_nothing)
{
	const char *s[] = { "m;a", "m;b" };
	uint64_t k[] = { 700, 300 };
	struct zt_profile *p[2] = { folded(s, k, 2), folded(s, k, 2) };
	int side[] = { 0, 1 };
	struct zt_compare *c = zt_compare(p, side, 2, 0.05);

	CHECK_EQ_U(c->rejections, 0);
	for (size_t i = 0; i < c->nrows; i++)
		CHECK(!c->rows[i].significant && c->rows[i].self.p == 1);
	zt_compare_free(c);
	zt_profile_free(p[0]);
	zt_profile_free(p[1]);
}

UNIT_TEST(compare_counts_up_to_2_63)
{
	const char *s[] = { "m;a", "m;b" };
	uint64_t big = (uint64_t)1 << 62;
	uint64_t before[] = { big, big }, after[] = { big + (big >> 1), big >> 1 };
	struct zt_profile *p[2] = { folded(s, before, 2), folded(s, after, 2) };
	int side[] = { 0, 1 };
	struct zt_compare *c = zt_compare(p, side, 2, 0.05);
	const struct zt_compare_row *a = row(c, "a");

	CHECK_EQ_U(c->samples[0], (uint64_t)1 << 63);
	CHECK(a && a->significant && fabs(a->self.change - 0.25) < 1e-12);
	zt_compare_free(c);
	zt_profile_free(p[0]);
	zt_profile_free(p[1]);
}

UNIT_TEST(compare_replicates_widen_the_test)
{
	/* Two runs per side that disagree a lot within each side: the same
	   pooled change is significant with one run per side, not with the
	   between-run variation. */
	const char *s[] = { "m;a", "m;b" };
	uint64_t r1[] = { 400, 600 }, r2[] = { 600, 400 }, r3[] = { 450, 550 }, r4[] = { 650, 350 };
	struct zt_profile *p[4] = { folded(s, r1, 2), folded(s, r2, 2), folded(s, r3, 2),
				    folded(s, r4, 2) };
	int side[] = { 0, 0, 1, 1 };
	struct zt_profile *q[2];
	struct zt_compare *c = zt_compare(p, side, 4, 0.05), *one;
	uint64_t pooled0[] = { 1000, 1000 }, pooled1[] = { 1100, 900 };

	CHECK(c->replicates && c->alpha > 0);
	CHECK(!row(c, "a")->significant);
	q[0] = folded(s, pooled0, 2);
	q[1] = folded(s, pooled1, 2);
	one = zt_compare(q, (int[]){ 0, 1 }, 2, 0.05);
	CHECK(row(one, "a")->self.p < row(c, "a")->self.p);
	zt_compare_free(c);
	zt_compare_free(one);
	for (int i = 0; i < 4; i++)
		zt_profile_free(p[i]);
	zt_profile_free(q[0]);
	zt_profile_free(q[1]);
}
