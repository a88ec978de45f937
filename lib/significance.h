/*
 * significance.h — the distributions behind zt-diff --report (lib/compare.h):
 * Student's t, to which each function's score statistic is referred, and
 * Benjamini–Hochberg control of false discoveries over all the tests: the
 * significance of a difference.
 */
#ifndef ZT_SIGNIFICANCE_H
#define ZT_SIGNIFICANCE_H

#include <stddef.h>

/*
 * Benjamini–Hochberg at level q over m p-values: sorts p[0..m) and returns
 * the largest p-value rejected (those <= it are the discoveries: equal
 * p-values are rejected together), or -1 when none is; *rejections is
 * their number.
 */
double zt_significance_bh_threshold(double *p, size_t m, double q, size_t *rejections);

/* P(|T| >= t) for T of Student's t with df degrees of freedom; the normal's
   when df is 0 or infinite. */
double zt_significance_t_p2(double t, double df);

/* The c with zt_significance_t_p2(c, df) == alpha, for 0 < alpha < 1. */
double zt_significance_t_crit(double alpha, double df);

#endif
