/*
 * compare.h — the model behind zt-diff --report: which functions' shares of
 * the samples differ between two sets of runs by more than the runs vary.
 *
 * Each function gives two tests, its self and its total share. A test
 * compares the pooled shares of the two sides with a continuity-corrected
 * score statistic. With one run per side its variance is the binomial's:
 * sampling error only. With more runs it is inflated by a dispersion
 * (quasi-binomial): the function's own between-run variation, measured by
 * Pearson's X^2 within the sides (R - 2 degrees of freedom for R runs),
 * weighed together with a common negative-binomial dispersion estimated
 * from all functions (variance mu (1 + alpha mu), as edgeR and DESeq2 model
 * counts; worth ZT_COMPARE_PRIOR_DF degrees of freedom), never below sampling
 * variance, and referred to Student's t with R - 2 + ZT_COMPARE_PRIOR_DF
 * degrees of freedom. Benjamini–Hochberg picks the significant tests; every
 * interval is at the level that agrees with that choice (false coverage
 * rate intervals, Benjamini and Yekutieli 2005).
 */
#ifndef ZT_COMPARE_H
#define ZT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/* How many degrees of freedom the common dispersion weighs against a
   function's own X^2 (R - 2 of them with R runs). */
#define ZT_COMPARE_PRIOR_DF 4.0

struct zt_compare_test {
	uint64_t k[2];		/* count per side, summed over its runs */
	double share[2];	/* k / the side's samples */
	double change;		/* share[1] - share[0] */
	double p;		/* two-sided p-value */
	double lo, hi;		/* interval for change, at zt_compare.level */
	double phi;		/* variance over sampling variance, >= 1 */
	int rejected;		/* chosen by Benjamini–Hochberg */
};

struct zt_compare_row {
	const char *name;	/* owned by the runs compared */
	size_t namelen;
	struct zt_compare_test self, total;
	int significant;	/* self or total rejected */
	double change;		/* the larger in size of the two changes */
};

/*
 * The runs of a comparison, read a stack at a time: one table of function
 * names for all runs, and per function a self and a total count per run.
 * Memory grows with functions times runs, never with stacks or lines.
 * side[j] is 0 for a run before, 1 for a run after (copied).
 */
struct zt_compare_runs;

struct zt_compare_runs *zt_compare_runs_new(const int *side, size_t r);
void zt_compare_runs_free(struct zt_compare_runs *m);

/*
 * Add count samples of the folded stack s ("root;...;leaf", n bytes) to run
 * j. Runs are read one after another: j never goes back. Returns 0, or -1
 * when the run's total would not fit in 64 bits (nothing is added).
 */
int zt_compare_runs_add(struct zt_compare_runs *m, size_t j, const char *s, size_t n,
			uint64_t count);

/*
 * The runs are the first r of those made room for (runs read as they came,
 * the empty ones left out), side[j] each one's side, known only once all
 * were read: a caller that reads one input at a time makes room for every
 * input first. r is at most the count given to zt_compare_runs_new.
 */
void zt_compare_runs_keep(struct zt_compare_runs *m, const int *side, size_t r);

/* Run j's samples so far. */
uint64_t zt_compare_runs_samples(const struct zt_compare_runs *m, size_t j);

/*
 * Divide every count of run j by d (perf periods into samples: weight.h);
 * the caller has checked that each was a multiple of d.
 */
void zt_compare_runs_divide(struct zt_compare_runs *m, size_t j, uint64_t d);

struct zt_compare {
	size_t runs[2];
	uint64_t samples[2];	/* per side, summed over its runs */
	int replicates;		/* more than two runs: between-run variation estimated */
	double alpha;		/* the common extra-Poisson dispersion (0 without
				   replicates) */
	double d0;		/* the weight of the common dispersion, in degrees
				   of freedom */
	double df;		/* degrees of freedom of the t; 0 for the normal */
	double q;		/* the false discovery rate controlled */
	size_t ntests, rejections;
	double level;		/* the intervals' confidence level */
	size_t nrows;		/* functions with samples: zt_compare_row 0 .. nrows - 1 */
	/* zt_compare_row's: */
	const struct zt_compare_runs *m;
	double threshold;	/* Benjamini-Hochberg's: rejected when p <= it */
	double crit;		/* the intervals' critical value */
	uint32_t *order;	/* the rows' functions, in report order */
	uint64_t *scratch;	/* one test's counts */
};

/*
 * Compare the runs m (each side needs a run with samples) at false
 * discovery rate q. Costs time linear in the number of functions times
 * runs, whatever the counts; memory for a few numbers per function (each
 * row's tests are worked out again when asked for). m must outlive the
 * result, which the caller frees with zt_compare_free.
 */
struct zt_compare *zt_compare(const struct zt_compare_runs *m, double q);
void zt_compare_free(struct zt_compare *c);

/*
 * Row i (below c->nrows) of the report: significant first, then by the
 * size of the change, then by name.
 */
void zt_compare_row(const struct zt_compare *c, size_t i, struct zt_compare_row *row);

/*
 * The test itself, for unit tests: counts k[j] of n[j] samples in run j,
 * side[j] 0 or 1, r runs. Sets the shares, change and the statistic's parts.
 */
void zt_compare_one(const uint64_t *k, const uint64_t *n, const int *side, size_t r,
		    struct zt_compare_test *t, double *x2);

#endif
