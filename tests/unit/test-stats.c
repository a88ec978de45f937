/*
 * test-stats.c — the exact binomial test against values from R's
 * binom.test, Benjamini–Hochberg, and the intervals.
 */
#include "unit.h"
#include "stats.h"

#include <math.h>

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

UNIT_TEST(binom_test_matches_r)
{
	/* binom.test(3, 10)$p.value = 0.34375; (682, 925, p = 0.75) = 0.3824916 */
	CHECK(near(zt_stats_binom_test(3, 10, 0.5), 0.34375, 1e-9));
	CHECK(near(zt_stats_binom_test(682, 925, 0.75), 0.3824916, 1e-6));
	CHECK(near(zt_stats_binom_test(0, 10, 0.5), 0.001953125, 1e-9));
	CHECK(near(zt_stats_binom_test(10, 10, 0.5), 0.001953125, 1e-9));
	CHECK(zt_stats_binom_test(5, 10, 0.5) == 1);
	CHECK(zt_stats_binom_test(0, 0, 0.5) == 1);
	/* By brute force over all 21 outcomes: 0.0526279487297. */
	CHECK(near(zt_stats_binom_test(2, 20, 0.3), 0.0526279487297, 1e-9));
	/* Large n, far tail: summed from the boundary, not over all n. */
	CHECK(zt_stats_binom_test(1200, 1000000, 0.001) < 1e-8);
	CHECK(zt_stats_binom_test(1200, 1000000, 0.001) > 1e-11);
}

UNIT_TEST(share_test_sees_a_doubling_and_not_noise)
{
	CHECK(zt_stats_share_test(1000, 10000, 2000, 10000) < 1e-20);
	CHECK(zt_stats_share_test(1000, 10000, 1020, 10000) > 0.5);
	CHECK(zt_stats_share_test(0, 100, 0, 100) == 1);
}

UNIT_TEST(bh_rejects_by_rank)
{
	double p[] = { 0.01, 0.04, 0.03, 0.5 };
	int r[4];

	/* Thresholds at q = 0.05: 0.0125, 0.025, 0.0375, 0.05. Sorted p:
	   0.01 0.03 0.04 0.5 — only the first is under its threshold. */
	zt_stats_bh(p, 4, 0.05, r);
	CHECK(r[0] == 1 && r[1] == 0 && r[2] == 0 && r[3] == 0);
	zt_stats_bh(p, 4, 0.2, r);
	CHECK(r[0] == 1 && r[1] == 1 && r[2] == 1 && r[3] == 0);
}

UNIT_TEST(wilson_and_newcombe_intervals)
{
	double lo, hi;

	/* Wilson 95% for 10/100: [0.0552, 0.1744] */
	zt_stats_wilson(10, 100, ZT_Z95, &lo, &hi);
	CHECK(near(lo, 0.05522914, 1e-5) && near(hi, 0.1743657, 1e-5));
	/* Newcombe (method 10) for 56/70 - 48/80: [0.0524, 0.3339]. */
	zt_stats_diff_ci(48, 80, 56, 70, ZT_Z95, &lo, &hi);
	CHECK(near(lo, 0.0524, 2e-3) && near(hi, 0.3339, 2e-3));
}
