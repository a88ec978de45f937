/*
 * test-significance.c — Benjamini–Hochberg's threshold, and Student's t against
 * values from mpmath (betainc, findroot; 30 digits).
 */
#include "unit.h"
#include "significance.h"

#include <math.h>

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

UNIT_TEST(bh_rejects_by_rank)
{
	double p[] = { 0.01, 0.04, 0.03, 0.5 };
	double q[] = { 0.01, 0.04, 0.03, 0.5 };
	double none[] = { 0.2, 0.9 };
	size_t n;

	/* Thresholds at q = 0.05: 0.0125, 0.025, 0.0375, 0.05. Sorted p:
	   0.01 0.03 0.04 0.5 — only the first is under its threshold. */
	CHECK(zt_significance_bh_threshold(p, 4, 0.05, &n) == 0.01 && n == 1);
	CHECK(p[0] == 0.01 && p[1] == 0.03 && p[2] == 0.04 && p[3] == 0.5);
	/* At q = 0.2 (0.05, 0.1, 0.15, 0.2) the first three. */
	CHECK(zt_significance_bh_threshold(q, 4, 0.2, &n) == 0.04 && n == 3);
	CHECK(zt_significance_bh_threshold(none, 2, 0.05, &n) == -1 && n == 0);
	CHECK(zt_significance_bh_threshold(none, 0, 0.05, &n) == -1 && n == 0);
}

UNIT_TEST(t_p_values)
{
	CHECK(near(zt_significance_t_p2(2, 10), 0.0733880347707404, 1e-9));
	CHECK(near(zt_significance_t_p2(-2, 10), 0.0733880347707404, 1e-9));
	CHECK(near(zt_significance_t_p2(1, 1), 0.5, 1e-9));		/* Cauchy */
	CHECK(near(zt_significance_t_p2(3.5, 4.5), 0.0205416899693856, 1e-9));
	/* No degrees of freedom, or infinitely many: the normal's. */
	CHECK(near(zt_significance_t_p2(1.959963984540054, 0), 0.05, 1e-9));
	CHECK(near(zt_significance_t_p2(1.959963984540054, INFINITY), 0.05, 1e-9));
	CHECK(zt_significance_t_p2(0, 10) == 1);
}

UNIT_TEST(t_critical_values)
{
	CHECK(near(zt_significance_t_crit(0.05, 10), 2.22813885198627, 1e-9));
	CHECK(near(zt_significance_t_crit(0.01, 3), 5.84090930973336, 1e-9));
	CHECK(near(zt_significance_t_crit(0.05, 0), 1.959963984540054, 1e-9));
}
