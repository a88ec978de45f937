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

/*
 * The work of one comparison. Test 2f is function f's self count, test
 * 2f + 1 its total; k[t * r + j] is test t's count in run j.
 */
struct work {
	size_t r, m;
	const int *side;
	double dfr;		/* degrees of freedom of the runs about their side */
	uint64_t *n;		/* samples of each run */
	uint64_t *k;
	struct zt_compare_test *tests;
	double *x2, *phi, *mu, *pv;
	double *cc, *scale;	/* continuity correction, standard error (x sqrt phi) */
	int *ok;		/* enough samples to speak of dispersion */
};

/* Every function with samples in some run, and each run's and side's samples. */
static void gather_names(struct zt_compare *c, struct zt_profile *const *p, struct work *w)
{
	c->names = zt_strtab_new();
	for (size_t j = 0; j < w->r; j++) {
		w->n[j] = zt_profile_samples(p[j]);
		c->runs[w->side[j]]++;
		c->samples[w->side[j]] += w->n[j];
		for (uint32_t id = 0; id < zt_profile_nkeys(p[j]); id++) {
			size_t len;
			const char *name = zt_profile_name(p[j], id, &len);

			if (zt_profile_total(p[j], id))
				zt_strtab_intern(c->names, name, len, NULL);
		}
	}
}

static void gather_counts(const struct zt_compare *c, struct zt_profile *const *p,
			  struct work *w)
{
	size_t r = w->r;

	for (uint32_t f = 0; f < w->m / 2; f++) {
		size_t len;
		const char *name = zt_strtab_key(c->names, f, &len);

		for (size_t j = 0; j < r; j++) {
			int64_t id = zt_profile_find(p[j], name, len);

			if (id >= 0) {
				w->k[(2 * f) * r + j] = zt_profile_self(p[j], (uint32_t)id);
				w->k[(2 * f + 1) * r + j] = zt_profile_total(p[j], (uint32_t)id);
			}
		}
	}
}

/* Each test's shares, change and Pearson X^2 about its side's share. */
static void test_each(const struct zt_compare *c, struct work *w)
{
	size_t r = w->r;

	for (size_t t = 0; t < w->m; t++) {
		double pp, nmin = INFINITY;

		zt_compare_one(w->k + t * r, w->n, w->side, r, &w->tests[t], &w->x2[t]);
		pp = ((double)w->tests[t].k[0] + (double)w->tests[t].k[1]) /
		     ((double)c->samples[0] + (double)c->samples[1]);
		for (size_t j = 0; j < r; j++)
			if ((double)w->n[j] < nmin)
				nmin = (double)w->n[j];
		w->phi[t] = w->dfr > 0 ? w->x2[t] / w->dfr : 1;
		w->mu[t] = pp * ((double)c->samples[0] + (double)c->samples[1]) / (double)r;
		w->ok[t] = pp > 0 && pp < 1 && nmin * pp * (1 - pp) >= MIN_EXPECTED;
	}
}

/* The statistic: (|change| - continuity) / (sqrt(phi) * score se). */
static void p_values(const struct zt_compare *c, struct work *w)
{
	for (size_t t = 0; t < w->m; t++) {
		struct zt_compare_test *x = &w->tests[t];
		double n0 = (double)c->samples[0], n1 = (double)c->samples[1];
		double pp = ((double)x->k[0] + (double)x->k[1]) / (n0 + n1);
		double se = sqrt(pp * (1 - pp) * (1 / n0 + 1 / n1)), cc = 0.5 * (1 / n0 + 1 / n1);
		double f = 1, stat;

		if (c->replicates)
			f = (c->d0 * (1 + c->alpha * w->mu[t]) + w->dfr * w->phi[t]) /
			    (c->d0 + w->dfr);
		x->phi = f > 1 ? f : 1;
		stat = fabs(x->change) - cc;
		w->pv[t] = x->p = se > 0 && stat > 0 ?
			zt_stats_t_p2(stat / (sqrt(x->phi) * se), c->df) : 1;
		w->scale[t] = sqrt(x->phi) * se;
		w->cc[t] = cc;
	}
}

/* Whether test t (a total) repeats test t - 1 (the self count) in every run. */
static int same_as_self(const struct work *w, size_t t)
{
	return t % 2 == 1 && !memcmp(w->k + t * w->r, w->k + (t - 1) * w->r,
				     w->r * sizeof *w->k);
}

/*
 * Benjamini–Hochberg at q over what counts as tests: not a share that is 0
 * or 100% in every run (nothing to test), and not a total that equals the
 * function's self count in every run (a leaf: the same test, which then
 * shares its verdict). Sets c->ntests and c->rejections.
 */
static void adjust(struct zt_compare *c, struct work *w, double q)
{
	size_t nt = 0;
	double *pt = zt_calloc(w->m + 1, sizeof *pt);
	int *rt = zt_calloc(w->m + 1, sizeof *rt);
	size_t *at = zt_calloc(w->m + 1, sizeof *at);

	for (size_t t = 0; t < w->m; t++) {
		uint64_t kk = w->tests[t].k[0] + w->tests[t].k[1];

		if (kk == 0 || kk == c->samples[0] + c->samples[1] || same_as_self(w, t))
			continue;
		pt[nt] = w->pv[t];
		at[nt++] = t;
	}
	zt_stats_bh(pt, nt, q, rt);
	for (size_t i = 0; i < nt; i++)
		c->rejections += (size_t)(w->tests[at[i]].rejected = rt[i]);
	for (size_t t = 1; t < w->m; t += 2)
		if (same_as_self(w, t))
			w->tests[t].rejected = w->tests[t - 1].rejected;
	c->ntests = nt;
	free(pt);
	free(rt);
	free(at);
}

/* Intervals at 1 - qR/m exclude 0 exactly for the rejected tests. */
static void intervals(struct zt_compare *c, struct work *w, double q)
{
	size_t m = c->ntests;
	double crit;

	c->level = 1 - q * (double)(c->rejections ? c->rejections : 1) / (double)(m ? m : 1);
	crit = zt_stats_t_crit(1 - c->level, c->df);
	for (size_t t = 0; t < w->m; t++) {
		struct zt_compare_test *x = &w->tests[t];
		double half = w->cc[t] + crit * w->scale[t];

		x->lo = x->change - half;
		x->hi = x->change + half;
	}
}

/* One row a function, the significant first, then by the size of the change. */
static void make_rows(struct zt_compare *c, const struct work *w)
{
	size_t nf = w->m / 2;

	c->rows = zt_calloc(nf + 1, sizeof *c->rows);
	for (uint32_t f = 0; f < nf; f++) {
		struct zt_compare_row *row = &c->rows[c->nrows++];

		row->name = zt_strtab_key(c->names, f, &row->namelen);
		row->self = w->tests[2 * f];
		row->total = w->tests[2 * f + 1];
		row->significant = row->self.rejected || row->total.rejected;
		row->change = fabs(row->self.change) > fabs(row->total.change) ? row->self.change
										 : row->total.change;
	}
	qsort(c->rows, c->nrows, sizeof *c->rows, byrow);
}

struct zt_compare *zt_compare(struct zt_profile *const *p, const int *side, size_t r,
			      double q)
{
	struct zt_compare *c = zt_calloc(1, sizeof *c);
	struct work w = { .r = r, .side = side, .dfr = r > 2 ? (double)(r - 2) : 0 };
	size_t m;

	c->q = q;
	w.n = zt_calloc(r, sizeof *w.n);
	gather_names(c, p, &w);
	c->replicates = r > 2;
	w.m = m = 2 * zt_strtab_count(c->names);
	w.k = zt_calloc(m * r + 1, sizeof *w.k);
	w.tests = zt_calloc(m + 1, sizeof *w.tests);
	w.x2 = zt_calloc(m + 1, sizeof *w.x2);
	w.phi = zt_calloc(m + 1, sizeof *w.phi);
	w.mu = zt_calloc(m + 1, sizeof *w.mu);
	w.pv = zt_calloc(m + 1, sizeof *w.pv);
	w.cc = zt_calloc(m + 1, sizeof *w.cc);
	w.scale = zt_calloc(m + 1, sizeof *w.scale);
	w.ok = zt_calloc(m + 1, sizeof *w.ok);
	gather_counts(c, p, &w);
	test_each(c, &w);
	c->alpha = 0;
	c->d0 = ZT_COMPARE_PRIOR_DF;
	c->df = 0;
	if (c->replicates) {
		c->alpha = common_alpha(w.x2, w.mu, w.ok, m, w.dfr);
		c->df = c->d0 + w.dfr;
	}
	p_values(c, &w);
	adjust(c, &w, q);
	intervals(c, &w, q);
	make_rows(c, &w);
	free(w.n);
	free(w.k);
	free(w.tests);
	free(w.x2);
	free(w.phi);
	free(w.mu);
	free(w.pv);
	free(w.cc);
	free(w.scale);
	free(w.ok);
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
