/*
 * significance.c — Benjamini–Hochberg's step-up threshold, and Student's t
 * through the regularized incomplete beta function (Lentz's continued
 * fraction, as in Numerical Recipes): P(|T| >= t) = I_x(df/2, 1/2) with
 * x = df / (df + t^2).
 */
#include "significance.h"

#include <math.h>
#include <stdlib.h>

static int byvalue(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double zt_significance_bh_threshold(double *p, size_t m, double q, size_t *rejections)
{
	size_t last = 0;

	qsort(p, m, sizeof *p, byvalue);
	for (size_t k = 1; k <= m; k++)
		if (p[k - 1] <= (double)k / (double)m * q)
			last = k;
	*rejections = last;
	return last ? p[last - 1] : -1;
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

double zt_significance_t_p2(double t, double df)
{
	t = fabs(t);
	if (df <= 0 || isinf(df) || df > 1e7)
		return erfc(t / M_SQRT2);
	return betai(df / 2, 0.5, df / (df + t * t));
}

double zt_significance_t_crit(double alpha, double df)
{
	double lo = 0, hi = 1;

	while (zt_significance_t_p2(hi, df) > alpha && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (zt_significance_t_p2(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}
