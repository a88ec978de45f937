/*
 * compare.c — zt-diff --report's tests (see compare.h for the model).
 * Counts are handled as doubles: shares and variances need no more than
 * 53 bits, and nothing here loops over a count, so 2^63 costs what 10 does.
 *
 * Memory: the runs keep one name table and 2 counts per function and run;
 * a comparison keeps 16 bytes per function (its place in the report) and,
 * while it runs, one p-value per test. Everything else about a test (its
 * shares, dispersion, p-value, interval, verdict) is worked out again from
 * the counts each time it is needed, by the same code in the same order,
 * so it comes out the same to the bit.
 */
#include "compare.h"
#include "folded.h"
#include "significance.h"
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

struct zt_compare_runs {
	size_t r;
	int *side;
	struct zt_strtab *names;
	uint64_t *k;		/* per function 2r counts: run j's self at 2j, total at 2j + 1 */
	size_t capk;		/* functions that k has room for */
	uint32_t *stamp;	/* the last stack that counted each function's total */
	/*
	 * When each function was first met in the first run where it has
	 * samples (a clock over all runs, FINAL once a run had its samples):
	 * the order the tests are summed in (common_alpha), which is that of
	 * reading each run's functions in turn, the first time each has
	 * samples.
	 */
	uint32_t *met;
	uint32_t clock, serial;
	uint32_t runstart;	/* the clock when run `run` began */
	size_t run;
	uint64_t *samples;
	uint32_t *ids;		/* one stack's functions, root first */
	size_t capids;
};

#define FINAL 0x80000000u

struct zt_compare_runs *zt_compare_runs_new(const int *side, size_t r)
{
	struct zt_compare_runs *m = zt_calloc(1, sizeof *m);

	m->r = r;
	m->side = zt_calloc(r ? r : 1, sizeof *m->side);
	memcpy(m->side, side, r * sizeof *side);
	m->samples = zt_calloc(r ? r : 1, sizeof *m->samples);
	m->names = zt_strtab_new();
	return m;
}

void zt_compare_runs_free(struct zt_compare_runs *m)
{
	if (!m)
		return;
	zt_strtab_free(m->names);
	free(m->side);
	free(m->k);
	free(m->stamp);
	free(m->met);
	free(m->samples);
	free(m->ids);
	free(m);
}

void zt_compare_runs_keep(struct zt_compare_runs *m, const int *side, size_t r)
{
	uint32_t nf = zt_strtab_count(m->names);

	memcpy(m->side, side, r * sizeof *side);
	if (r == m->r)
		return;
	/* Each function's counts of the runs kept, moved down to the new stride. */
	for (uint32_t f = 0; f < nf; f++)
		memmove(m->k + (size_t)f * 2 * r, m->k + (size_t)f * 2 * m->r,
			2 * r * sizeof *m->k);
	m->r = r;
}

/* Whether function f had samples in a run before j. */
static int had_samples(const struct zt_compare_runs *m, uint32_t f, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (m->k[(size_t)f * 2 * m->r + 2 * i + 1])
			return 1;
	return 0;
}

/* The id of function name, with room for its counts; met in run m->run. */
static uint32_t function(struct zt_compare_runs *m, const char *name, size_t n)
{
	int isnew;
	uint32_t f = zt_strtab_intern(m->names, name, n, &isnew);

	if (isnew) {
		if (f >= m->capk) {
			size_t cap = m->capk, c2 = m->capk, c3 = m->capk;

			zt_grow(&m->k, &cap, (size_t)f + 1, 2 * m->r * sizeof *m->k);
			zt_grow(&m->stamp, &c2, (size_t)f + 1, sizeof *m->stamp);
			zt_grow(&m->met, &c3, (size_t)f + 1, sizeof *m->met);
			m->capk = cap;
		}
		memset(m->k + (size_t)f * 2 * m->r, 0, 2 * m->r * sizeof *m->k);
		m->stamp[f] = 0;
		m->met[f] = 0;
	}
	/* First met in this run, without samples in an earlier one: the clock now. */
	if (!(m->met[f] & FINAL) && (isnew || m->met[f] < m->runstart)) {
		if (m->clock >= FINAL - 1)
			zt_out_of_memory("more than 2^31 functions over all runs");
		if (!isnew && had_samples(m, f, m->run))
			m->met[f] |= FINAL;
		else
			m->met[f] = ++m->clock;
	}
	return f;
}

int zt_compare_runs_add(struct zt_compare_runs *m, size_t j, const char *s, size_t n,
			uint64_t count)
{
	const char *end = s + n, *semi;
	size_t nids = 0, stride = 2 * m->r;

	if (m->samples[j] > UINT64_MAX - count)
		return -1;
	if (j != m->run) {
		m->run = j;
		m->runstart = m->clock + 1;
	}
	for (;;) {
		semi = memchr(s, ';', (size_t)(end - s));
		zt_grow(&m->ids, &m->capids, nids + 1, sizeof *m->ids);
		m->ids[nids++] = function(m, s, semi ? (size_t)(semi - s) : (size_t)(end - s));
		if (!semi)
			break;
		s = semi + 1;
	}
	m->samples[j] += count;
	/* The serial tells this stack's totals from the last one's; at 2^32, anew. */
	if (++m->serial == 0) {
		memset(m->stamp, 0, zt_strtab_count(m->names) * sizeof *m->stamp);
		m->serial = 1;
	}
	m->k[(size_t)m->ids[nids - 1] * stride + 2 * j] += count;
	for (size_t i = 0; i < nids; i++) {
		uint32_t f = m->ids[i];

		if (m->stamp[f] == m->serial)
			continue;
		m->stamp[f] = m->serial;
		m->k[(size_t)f * stride + 2 * j + 1] += count;
	}
	return 0;
}

uint64_t zt_compare_runs_samples(const struct zt_compare_runs *m, size_t j)
{
	return m->samples[j];
}

void zt_compare_runs_divide(struct zt_compare_runs *m, size_t j, uint64_t d)
{
	uint32_t nf = zt_strtab_count(m->names);

	if (d <= 1)
		return;
	for (uint32_t f = 0; f < nf; f++) {
		m->k[(size_t)f * 2 * m->r + 2 * j] /= d;
		m->k[(size_t)f * 2 * m->r + 2 * j + 1] /= d;
	}
	m->samples[j] /= d;
}

/* Test t of function t / 2: its self count when t is even, else its total. */
static const uint64_t *counts(const struct zt_compare *c, size_t t)
{
	const struct zt_compare_runs *m = c->m;

	for (size_t j = 0; j < m->r; j++)
		c->scratch[j] = m->k[(t / 2) * 2 * m->r + 2 * j + t % 2];
	return c->scratch;
}

/* Whether function f had samples in any run. */
static int has_samples(const struct zt_compare_runs *m, uint32_t f)
{
	return had_samples(m, f, m->r);
}

/*
 * Test t's shares and change, its Pearson X^2 about its side's share, its
 * raw dispersion phi (X^2 over the runs' degrees of freedom), its expected
 * count per run mu, and whether it has the samples to speak of dispersion.
 */
static void test_basic(const struct zt_compare *c, size_t t, struct zt_compare_test *x,
		       double *x2, double *phi, double *mu, int *ok)
{
	const struct zt_compare_runs *m = c->m;
	size_t r = m->r;
	double dfr = r > 2 ? (double)(r - 2) : 0;
	double pp, nmin = INFINITY;

	zt_compare_one(counts(c, t), m->samples, m->side, r, x, x2);
	pp = ((double)x->k[0] + (double)x->k[1]) /
	     ((double)c->samples[0] + (double)c->samples[1]);
	for (size_t j = 0; j < r; j++)
		if ((double)m->samples[j] < nmin)
			nmin = (double)m->samples[j];
	*phi = dfr > 0 ? *x2 / dfr : 1;
	*mu = pp * ((double)c->samples[0] + (double)c->samples[1]) / (double)r;
	*ok = pp > 0 && pp < 1 && nmin * pp * (1 - pp) >= MIN_EXPECTED;
}

/*
 * Test t whole, as far as c knows: with the dispersion, the statistic
 * (|change| - continuity) / (sqrt(phi) * score se) and its p-value; with
 * c->crit, the interval; with c->threshold, the verdict. *counted says
 * whether it is one of the tests Benjamini-Hochberg counts: not a share
 * that is 0 or 100% in every run (nothing to test), and not a total that
 * equals the function's self count in every run (a leaf: the same test,
 * with the same p-value, which then shares its verdict).
 */
static void test_at(const struct zt_compare *c, size_t t, struct zt_compare_test *x,
		    int *counted)
{
	const struct zt_compare_runs *m = c->m;
	size_t r = m->r;
	double dfr = r > 2 ? (double)(r - 2) : 0;
	double x2, phi, mu, n0 = (double)c->samples[0], n1 = (double)c->samples[1];
	double pp, se, cc, f = 1, stat, half;
	uint64_t kk;
	int ok;

	test_basic(c, t, x, &x2, &phi, &mu, &ok);
	pp = ((double)x->k[0] + (double)x->k[1]) / (n0 + n1);
	se = sqrt(pp * (1 - pp) * (1 / n0 + 1 / n1));
	cc = 0.5 * (1 / n0 + 1 / n1);
	if (c->replicates)
		f = (c->d0 * (1 + c->alpha * mu) + dfr * phi) / (c->d0 + dfr);
	x->phi = f > 1 ? f : 1;
	stat = fabs(x->change) - cc;
	x->p = se > 0 && stat > 0 ? zt_significance_t_p2(stat / (sqrt(x->phi) * se), c->df) : 1;
	half = cc + c->crit * (sqrt(x->phi) * se);
	x->lo = x->change - half;
	x->hi = x->change + half;
	kk = x->k[0] + x->k[1];
	*counted = !(kk == 0 || kk == c->samples[0] + c->samples[1]);
	x->rejected = *counted && x->p <= c->threshold;
	if (*counted && t % 2 == 1) {
		const uint64_t *row = m->k + (t / 2) * 2 * r;

		*counted = 0;	/* unless a run's total differs from its self */
		for (size_t j = 0; j < r && !*counted; j++)
			*counted = row[2 * j] != row[2 * j + 1];
	}
}

struct metkey {
	uint32_t met, f;
};

static int bymet(const void *a, const void *b)
{
	const struct metkey *x = a, *y = b;

	return (x->met > y->met) - (x->met < y->met);
}

/*
 * The common extra-Poisson dispersion alpha of a negative binomial (as
 * edgeR's and DESeq2's counts): a run's count of a function with mu
 * expected samples varies by mu (1 + alpha mu), so its Pearson X^2 over dfr
 * degrees of freedom averages dfr (1 + alpha mu). Pooled moment estimate
 * over the tests with enough samples; 0 when runs vary no more than
 * sampling says. Summed over the functions in the order they were met.
 */
static double common_alpha(const struct zt_compare *c)
{
	const struct zt_compare_runs *m = c->m;
	uint32_t nf = zt_strtab_count(m->names), n = 0;
	struct metkey *o = zt_malloc((nf ? nf : 1) * sizeof *o);
	double dfr = (double)(m->r - 2), num = 0, den = 0;

	for (uint32_t f = 0; f < nf; f++)
		if (has_samples(m, f))
			o[n++] = (struct metkey){ m->met[f] & ~FINAL, f };
	qsort(o, n, sizeof *o, bymet);
	for (uint32_t i = 0; i < n; i++)
		for (size_t t = 2 * (size_t)o[i].f; t <= 2 * (size_t)o[i].f + 1; t++) {
			struct zt_compare_test x;
			double x2, phi, mu;
			int ok;

			test_basic(c, t, &x, &x2, &phi, &mu, &ok);
			if (ok) {
				num += x2 - dfr;
				den += dfr * mu;
			}
		}
	free(o);
	return den > 0 && num > 0 ? num / den : 0;
}

/*
 * Benjamini–Hochberg at c->q over the tests that count, kept as the
 * largest p-value rejected (c->threshold). Sets c->ntests and
 * c->rejections.
 */
static void adjust(struct zt_compare *c)
{
	size_t nt = 0, m = 2 * (size_t)zt_strtab_count(c->m->names);
	double *pt = zt_malloc((m ? m : 1) * sizeof *pt);

	c->threshold = -1;	/* nothing rejected while p-values are found */
	for (size_t t = 0; t < m; t++) {
		struct zt_compare_test x;
		int counted;

		test_at(c, t, &x, &counted);
		if (counted)
			pt[nt++] = x.p;
	}
	c->threshold = zt_significance_bh_threshold(pt, nt, c->q, &c->rejections);
	c->ntests = nt;
	free(pt);
}

/* What make_rows sorts by: per function, its key, and the names. */
struct rowkeys {
	const double *key;
	const struct zt_compare_runs *m;
};

/*
 * The report's order: significant first, then by the size of the change,
 * then by name. A key is the size of the function's larger change, with
 * its sign bit set when the function is within noise.
 */
static int byrow(const void *a, const void *b, void *arg)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct rowkeys *k = arg;
	int sx = signbit(k->key[x]) != 0, sy = signbit(k->key[y]) != 0;
	double ax = fabs(k->key[x]), ay = fabs(k->key[y]);
	const char *nx, *ny;
	size_t lx, ly;

	if (sx != sy)
		return sx - sy;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	nx = zt_strtab_key(k->m->names, x, &lx);
	ny = zt_strtab_key(k->m->names, y, &ly);
	return zt_folded_cmp(nx, lx, ny, ly);
}

void zt_compare_row(const struct zt_compare *c, size_t i, struct zt_compare_row *row)
{
	uint32_t f = c->order[i];
	int counted;

	row->name = zt_strtab_key(c->m->names, f, &row->namelen);
	test_at(c, 2 * (size_t)f, &row->self, &counted);
	/* A total that repeats its self count has its p-value, so its verdict. */
	test_at(c, 2 * (size_t)f + 1, &row->total, &counted);
	row->significant = row->self.rejected || row->total.rejected;
	row->change = fabs(row->self.change) > fabs(row->total.change) ? row->self.change
									 : row->total.change;
}

/* One row a function with samples, in the report's order. */
static void make_rows(struct zt_compare *c)
{
	uint32_t nf = zt_strtab_count(c->m->names);
	double *key = zt_malloc((nf ? nf : 1) * sizeof *key);

	c->order = zt_malloc((nf ? nf : 1) * sizeof *c->order);
	c->nrows = 0;
	for (uint32_t f = 0; f < nf; f++) {
		struct zt_compare_row row;

		if (!has_samples(c->m, f))
			continue;
		c->order[c->nrows] = f;
		zt_compare_row(c, c->nrows++, &row);
		key[f] = row.significant ? fabs(row.change) : -fabs(row.change);
		if (!row.significant && key[f] == 0)
			key[f] = -0.0;
	}
	qsort_r(c->order, c->nrows, sizeof *c->order, byrow,
		&(struct rowkeys){ key, c->m });
	free(key);
}

struct zt_compare *zt_compare(const struct zt_compare_runs *m, double q)
{
	struct zt_compare *c = zt_calloc(1, sizeof *c);
	size_t r = m->r;

	c->m = m;
	c->q = q;
	c->scratch = zt_calloc(r ? r : 1, sizeof *c->scratch);
	for (size_t j = 0; j < r; j++) {
		c->runs[m->side[j]]++;
		c->samples[m->side[j]] += m->samples[j];
	}
	c->replicates = r > 2;
	c->d0 = ZT_COMPARE_PRIOR_DF;
	if (c->replicates) {
		c->alpha = common_alpha(c);
		c->df = c->d0 + (double)(r - 2);
	}
	adjust(c);
	/* Intervals at 1 - qR/m exclude 0 exactly for the rejected tests. */
	c->level = 1 - q * (double)(c->rejections ? c->rejections : 1) /
			   (double)(c->ntests ? c->ntests : 1);
	c->crit = zt_significance_t_crit(1 - c->level, c->df);
	make_rows(c);
	return c;
}

void zt_compare_free(struct zt_compare *c)
{
	if (!c)
		return;
	free(c->order);
	free(c->scratch);
	free(c);
}
