/*
 * stats.c — exact binomial tails summed term by term in log space. Only the
 * terms that matter are summed: from the observed count outward until they
 * fall below 1e-17 of the running sum, so a test costs a few standard
 * deviations' worth of terms, not n.
 */
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double logpmf(uint64_t x, uint64_t n, double lp, double lq)
{
	double dx = (double)x, dn = (double)n;

	return lgamma(dn + 1) - lgamma(dx + 1) - lgamma(dn - dx + 1) +
	       (x ? dx * lp : 0) + (n - x ? (dn - dx) * lq : 0);
}

/* Sum of pmf(x) for x from `from` stepping by `step` (+1 or -1), to the end. */
static double tail(uint64_t from, int step, uint64_t n, double lp, double lq)
{
	double sum = 0;
	uint64_t x = from;

	for (;;) {
		double t = exp(logpmf(x, n, lp, lq));
		sum += t;
		if (t < sum * 1e-17 && t > 0)
			break;
		if (t == 0)	/* terms only fall away from the mode */
			break;
		if (step < 0 ? x == 0 : x == n)
			break;
		x = step < 0 ? x - 1 : x + 1;
	}
	return sum;
}

double zt_stats_binom_test(uint64_t k, uint64_t n, double p)
{
	const double rel = 1 + 1e-7;
	double lp, lq, mu, ld, res;
	uint64_t lo, hi, mid;

	if (n == 0 || k > n)
		return 1;
	if (p <= 0)
		return k == 0 ? 1 : 0;
	if (p >= 1)
		return k == n ? 1 : 0;
	lp = log(p);
	lq = log1p(-p);
	mu = (double)n * p;
	ld = logpmf(k, n, lp, lq) + log(rel);
	if ((double)k == mu)
		return 1;
	if ((double)k < mu) {
		/* First x >= ceil(mu) whose pmf is at most pmf(k): a suffix. */
		lo = (uint64_t)ceil(mu);
		hi = n + 1;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (logpmf(mid, n, lp, lq) <= ld)
				hi = mid;
			else
				lo = mid + 1;
		}
		res = tail(k, -1, n, lp, lq);
		if (lo <= n)
			res += tail(lo, +1, n, lp, lq);
	} else {
		/* Last x <= floor(mu) whose pmf is at most pmf(k): a prefix. */
		lo = 0;
		hi = (uint64_t)floor(mu) + 1;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (logpmf(mid, n, lp, lq) <= ld)
				lo = mid + 1;
			else
				hi = mid;
		}
		res = tail(k, +1, n, lp, lq);
		if (lo > 0)
			res += tail(lo - 1, -1, n, lp, lq);
	}
	return res > 1 ? 1 : res;
}

double zt_stats_share_test(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	if (n1 == 0 || n2 == 0)
		return 1;
	return zt_stats_binom_test(k1, k1 + k2, (double)n1 / ((double)n1 + (double)n2));
}

static int byvalue(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double zt_stats_bh_threshold(double *p, size_t m, double q, size_t *rejections)
{
	size_t last = 0;

	qsort(p, m, sizeof *p, byvalue);
	for (size_t k = 1; k <= m; k++)
		if (p[k - 1] <= (double)k / (double)m * q)
			last = k;
	*rejections = last;
	return last ? p[last - 1] : -1;
}

void zt_stats_bh(const double *p, size_t m, double q, int *reject)
{
	double *sorted = zt_malloc((m ? m : 1) * sizeof *sorted);
	size_t n;
	double thr;

	memcpy(sorted, p, m * sizeof *p);
	thr = zt_stats_bh_threshold(sorted, m, q, &n);
	for (size_t i = 0; i < m; i++)
		reject[i] = p[i] <= thr;
	free(sorted);
}

void zt_stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	double dn = (double)n, p, z2 = z * z, c, h;

	if (n == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / dn;
	c = (p + z2 / (2 * dn)) / (1 + z2 / dn);
	h = z / (1 + z2 / dn) * sqrt(p * (1 - p) / dn + z2 / (4 * dn * dn));
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

void zt_stats_diff_ci(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double z,
		double *lo, double *hi)
{
	double p1 = n1 ? (double)k1 / (double)n1 : 0;
	double p2 = n2 ? (double)k2 / (double)n2 : 0;
	double l1, u1, l2, u2, d = p2 - p1;

	zt_stats_wilson(k1, n1, z, &l1, &u1);
	zt_stats_wilson(k2, n2, z, &l2, &u2);
	*lo = d - sqrt((p2 - l2) * (p2 - l2) + (u1 - p1) * (u1 - p1));
	*hi = d + sqrt((u2 - p2) * (u2 - p2) + (p1 - l1) * (p1 - l1));
}

/* One step of Lentz's method: the term aa into c and d; returns their product. */
static double lentz(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* Lentz's continued fraction for I_x(a, b) (Numerical Recipes' betacf). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
		del = lentz(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double betai(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double zt_stats_t_p2(double t, double df)
{
	t = fabs(t);
	if (df <= 0 || isinf(df) || df > 1e7)
		return erfc(t / M_SQRT2);
	return betai(df / 2, 0.5, df / (df + t * t));
}

double zt_stats_t_crit(double alpha, double df)
{
	double lo = 0, hi = 1;

	while (zt_stats_t_p2(hi, df) > alpha && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (zt_stats_t_p2(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}
