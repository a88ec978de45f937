/*
 * stats.h — the statistics behind zt-diff --report and zt-stat's error
 * bars: an exact test for a change in a count's share between two profiles,
 * Benjamini–Hochberg control of false discoveries, and confidence intervals
 * for shares and their differences.
 */
#ifndef ZT_STATS_H
#define ZT_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Exact two-sided p-value of a binomial test: the probability, for
 * X ~ Binomial(n, p), of an outcome no more likely than k (R's binom.test,
 * with its relative tolerance of 1e-7). 1 when n is 0.
 */
double zt_stats_binom_test(uint64_t k, uint64_t n, double p);

/*
 * Whether a function's count changed between two profiles beyond sampling
 * noise: k1 of n1 samples before, k2 of n2 after. Given k1 + k2, k1 is
 * Binomial(k1 + k2, n1 / (n1 + n2)) when the share did not change (a
 * conditional test of two Poisson rates); returns its exact two-sided
 * p-value.
 */
double zt_stats_share_test(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

/*
 * Benjamini–Hochberg at level q: sets reject[i] to 1 for the p-values p[i]
 * (m of them) that are discoveries, 0 for the rest.
 */
void zt_stats_bh(const double *p, size_t m, double q, int *reject);

/*
 * The same in memory for the p-values alone: sorts p[0..m) and returns the
 * largest p-value rejected (those <= it are the discoveries: equal p-values
 * are rejected together), or -1 when none is; *rejections is their number.
 */
double zt_stats_bh_threshold(double *p, size_t m, double q, size_t *rejections);

/* Wilson score interval for k of n at normal quantile z. */
void zt_stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/*
 * Newcombe's hybrid score interval (method 10) for k2/n2 - k1/n1 at normal
 * quantile z (1.959964 for 95%).
 */
void zt_stats_diff_ci(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double z,
		double *lo, double *hi);

#define ZT_Z95 1.959963984540054

/* P(|T| >= t) for T of Student's t with df degrees of freedom; the normal's
   when df is 0 or infinite. */
double zt_stats_t_p2(double t, double df);

/* The c with zt_stats_t_p2(c, df) == alpha, for 0 < alpha < 1. */
double zt_stats_t_crit(double alpha, double df);

#endif
