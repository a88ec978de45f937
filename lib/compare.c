/*
 * compare.c — zt-diff --report's tests (see compare.h for the model).
 * Counts are handled as doubles: shares and variances need no more than
 * 53 bits, and nothing here loops over a count, so 2^63 costs what 10 does.
 */
#include "compare.h"
#include "folded.h"
#include "stats.h"
#include "strtab.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs whose expected count is below this say little about dispersion. */
#define MIN_EXPECTED 5.0

void zt_compare_one(const uint64_t *k, const uint64_t *n, const int *side, size_t r,
		    struct zt_compare_test *t, double *x2)
{
	double kk[2] = { 0, 0 }, nn[2] = { 0, 0 };

	memset(t, 0, sizeof *t);
	for (size_t j = 0; j < r; j++) {
		t->k[side[j]] += k[j];
		kk[side[j]] += (double)k[j];
		nn[side[j]] += (double)n[j];
	}
	for (int i = 0; i < 2; i++)
		t->share[i] = nn[i] > 0 ? kk[i] / nn[i] : 0;
	t->change = t->share[1] - t->share[0];
	*x2 = 0;
	for (size_t j = 0; j < r; j++) {
		double pi = t->share[side[j]], e = (double)n[j] * pi;
		double v = e * (1 - pi);

		if (v > 0)
			*x2 += ((double)k[j] - e) * ((double)k[j] - e) / v;
	}
	t->phi = 1;
}

static int byrow(const void *a, const void *b)
{
	const struct zt_compare_row *x = a, *y = b;
	double ax = fabs(x->change), ay = fabs(y->change);

	if (x->significant != y->significant)
		return y->significant - x->significant;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return zt_folded_cmp(x->name, x->namelen, y->name, y->namelen);
}

/*
 * The common extra-Poisson dispersion alpha of a negative binomial (as
 * edgeR's and DESeq2's counts): a run's count of a function with mu
 * expected samples varies by mu (1 + alpha mu), so its Pearson X^2 over dfr
 * degrees of freedom averages dfr (1 + alpha mu). Pooled moment estimate
 * over the tests with enough samples; 0 when runs vary no more than
 * sampling says.
 */
static double common_alpha(const double *x2, const double *mu, const int *ok,
			   size_t m, double dfr)
{
	double num = 0, den = 0;

	for (size_t t = 0; t < m; t++)
		if (ok[t]) {
			num += x2[t] - dfr;
			den += dfr * mu[t];
		}
	return den > 0 && num > 0 ? num / den : 0;
}

struct zt_compare *zt_compare(struct zt_profile *const *p, const int *side, size_t r,
			      double q)
{
	struct zt_compare *c = zt_calloc(1, sizeof *c);
	uint64_t *n = zt_calloc(r, sizeof *n), *k;
	struct zt_compare_test *tests;
	double *x2, *phi, *pv, *mu, dfr = r > 2 ? (double)(r - 2) : 0, crit;
	int *ok, *rej;
	size_t nf, m;

	c->q = q;
	c->names = zt_strtab_new();
	for (size_t j = 0; j < r; j++) {
		n[j] = zt_profile_samples(p[j]);
		c->runs[side[j]]++;
		c->samples[side[j]] += n[j];
		for (uint32_t id = 0; id < zt_profile_nkeys(p[j]); id++) {
			size_t len;
			const char *name = zt_profile_name(p[j], id, &len);

			if (zt_profile_total(p[j], id))
				zt_strtab_intern(c->names, name, len, NULL);
		}
	}
	c->replicates = r > 2;
	nf = zt_strtab_count(c->names);
	m = 2 * nf;
	k = zt_calloc(m * r + 1, sizeof *k);
	tests = zt_calloc(m + 1, sizeof *tests);
	x2 = zt_calloc(m + 1, sizeof *x2);
	phi = zt_calloc(m + 1, sizeof *phi);
	mu = zt_calloc(m + 1, sizeof *mu);
	pv = zt_calloc(m + 1, sizeof *pv);
	ok = zt_calloc(m + 1, sizeof *ok);
	rej = zt_calloc(m + 1, sizeof *rej);
	for (uint32_t f = 0; f < nf; f++) {
		size_t len;
		const char *name = zt_strtab_key(c->names, f, &len);

		for (size_t j = 0; j < r; j++) {
			int64_t id = zt_profile_find(p[j], name, len);

			if (id >= 0) {
				k[(2 * f) * r + j] = zt_profile_self(p[j], (uint32_t)id);
				k[(2 * f + 1) * r + j] = zt_profile_total(p[j], (uint32_t)id);
			}
		}
	}
	for (size_t t = 0; t < m; t++) {
		double pp, nmin = INFINITY;

		zt_compare_one(k + t * r, n, side, r, &tests[t], &x2[t]);
		pp = ((double)tests[t].k[0] + (double)tests[t].k[1]) /
		     ((double)c->samples[0] + (double)c->samples[1]);
		for (size_t j = 0; j < r; j++)
			if ((double)n[j] < nmin)
				nmin = (double)n[j];
		phi[t] = dfr > 0 ? x2[t] / dfr : 1;
		mu[t] = pp * ((double)c->samples[0] + (double)c->samples[1]) / (double)r;
		ok[t] = pp > 0 && pp < 1 && nmin * pp * (1 - pp) >= MIN_EXPECTED;
	}
	c->alpha = 0;
	c->d0 = ZT_COMPARE_PRIOR_DF;
	c->df = 0;
	if (c->replicates) {
		c->alpha = common_alpha(x2, mu, ok, m, dfr);
		c->df = c->d0 + dfr;
	}
	/* The statistic: (|change| - continuity) / (sqrt(phi) * score se). */
	for (size_t t = 0; t < m; t++) {
		struct zt_compare_test *x = &tests[t];
		double n0 = (double)c->samples[0], n1 = (double)c->samples[1];
		double pp = ((double)x->k[0] + (double)x->k[1]) / (n0 + n1);
		double se = sqrt(pp * (1 - pp) * (1 / n0 + 1 / n1)), cc = 0.5 * (1 / n0 + 1 / n1);
		double f = 1, stat;

		if (c->replicates)
			f = (c->d0 * (1 + c->alpha * mu[t]) + dfr * phi[t]) / (c->d0 + dfr);
		x->phi = f > 1 ? f : 1;
		stat = fabs(x->change) - cc;
		pv[t] = x->p = se > 0 && stat > 0 ? zt_stats_t_p2(stat / (sqrt(x->phi) * se), c->df)
						  : 1;
		x->lo = x->hi = sqrt(x->phi) * se;	/* the scale, for now */
		x->lo = cc;
	}
	/*
	 * What Benjamini–Hochberg counts as tests: not a share that is 0 or
	 * 100% in every run (nothing to test), and not a total that equals
	 * the function's self count in every run (a leaf: the same test).
	 */
	{
		size_t nt = 0;
		double *pt = zt_calloc(m + 1, sizeof *pt);
		int *rt = zt_calloc(m + 1, sizeof *rt);
		size_t *at = zt_calloc(m + 1, sizeof *at);

		for (size_t t = 0; t < m; t++) {
			struct zt_compare_test *x = &tests[t];
			uint64_t kk = x->k[0] + x->k[1];

			if (kk == 0 || kk == c->samples[0] + c->samples[1])
				continue;
			if (t % 2 == 1 && !memcmp(k + t * r, k + (t - 1) * r, r * sizeof *k))
				continue;
			pt[nt] = pv[t];
			at[nt++] = t;
		}
		zt_stats_bh(pt, nt, q, rt);
		for (size_t i = 0; i < nt; i++)
			c->rejections += (size_t)(tests[at[i]].rejected = rt[i]);
		for (size_t t = 1; t < m; t += 2)
			if (!memcmp(k + t * r, k + (t - 1) * r, r * sizeof *k))
				tests[t].rejected = tests[t - 1].rejected;
		m = nt;
		free(pt);
		free(rt);
		free(at);
	}
	c->ntests = m;
	/* Intervals at 1 - qR/m exclude 0 exactly for the rejected tests. */
	c->level = 1 - q * (double)(c->rejections ? c->rejections : 1) / (double)(m ? m : 1);
	crit = zt_stats_t_crit(1 - c->level, c->df);
	for (size_t t = 0; t < 2 * (size_t)nf; t++) {
		struct zt_compare_test *x = &tests[t];
		double w = x->lo + crit * x->hi;

		x->lo = x->change - w;
		x->hi = x->change + w;
	}
	c->rows = zt_calloc(nf + 1, sizeof *c->rows);
	for (uint32_t f = 0; f < nf; f++) {
		struct zt_compare_row *row = &c->rows[c->nrows++];

		row->name = zt_strtab_key(c->names, f, &row->namelen);
		row->self = tests[2 * f];
		row->total = tests[2 * f + 1];
		row->significant = row->self.rejected || row->total.rejected;
		row->change = fabs(row->self.change) > fabs(row->total.change) ? row->self.change
										 : row->total.change;
	}
	qsort(c->rows, c->nrows, sizeof *c->rows, byrow);
	free(n);
	free(k);
	free(tests);
	free(x2);
	free(phi);
	free(mu);
	free(pv);
	free(ok);
	free(rej);
	return c;
}

void zt_compare_free(struct zt_compare *c)
{
	if (!c)
		return;
	zt_strtab_free(c->names);
	free(c->rows);
	free(c);
}
