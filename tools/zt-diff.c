/*
 * zt-diff — compare two folded profiles.
 *
 *   zt-diff before.folded after.folded | flamegraph.pl > diff.svg
 *   zt-diff --report before.folded after.folded
 *
 * Each side is any stage lib/stage.c reads (a raw dump, a stream, perf
 * script text, folded stacks), folded as zt-fold folds it.
 * By default it writes difffolded.pl's format, `stack before after`, sorted,
 * merge-joining the two inputs (lib/foldedsort.c; its lines: lib/folded.c).
 * --report says which functions' shares changed by more than the runs
 * vary: a score test per function (self and total) whose variance grows
 * with the runs' own spread, with Benjamini–Hochberg control of false
 * discoveries (lib/compare.h).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "folded.h"
#include "foldedsort.h"
#include "input.h"
#include "stage.h"
#include "symargs.h"
#include "event.h"
#include "json.h"
#include "compare.h"
#include "progress.h"
#include "usage.h"
#include "weight.h"
#include "util.h"

/* Long-only options: every code below 256 would also be a short one. */
enum { OPT_ROOT = ZT_SYMARGS_NEXT, OPT_NO_ROOT };

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	ZT_EVENT_ROW,
	{ 'n', "normalize", no_argument, NULL,
	  "scale before's counts to after's total (difffolded.pl -n)" },
	{ 's', "strip-hex", no_argument, NULL,
	  "0x and hex digits become 0x... (difffolded.pl -s)" },
	{ OPT_ROOT, "root", required_argument, "NAME",
	  "every stack's root frame (the command) becomes NAME" },
	{ OPT_NO_ROOT, "no-root", no_argument, NULL,
	  "every stack's root frame is dropped" },
	{ 'r', "report", no_argument, NULL,
	  "which functions' shares changed beyond noise" },
	{ 'j', "json", no_argument, NULL, "the report as one JSON object" },
	{ 'q', "fdr", required_argument, "LEVEL",
	  "the false discovery rate, between 0 and 1\n(default 0.05)" },
	{ 't', "top", required_argument, "ROWS", "rows of the report (default 20, 0 for all)" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-diff [-n] [-s] [--root=NAME | --no-root] [--event=NAME] before after\n"
	"       zt-diff --report [--json] [-s] [--root=NAME | --no-root] [-q level]\n"
	"               [-t rows] before after\n"
	"       zt-diff --report [options] before... -- after...",
	"Compare two profiles: their stacks side by side, \"stack before after\"\n"
	"as difffolded.pl writes them, or with --report the functions whose share\n"
	"of the samples changed, with several runs per side around '--'. Each is\n"
	"a zt raw dump, zt-symbolize's stream or perf script output (folded as\n"
	"zt-fold folds them) or folded stacks, told apart by their content.",
	options,
	"The symbolizer options (-d, -l, --no-demangle, --sysroot,\n"
	"--no-debuginfod) are zt-symbolize's, for raw dumps: with DEBUGINFOD_URLS\n"
	"set, files not found here are fetched from its servers.",
};

/* difffolded.pl -n: floor(count * total2 / total1), computed exactly. */
static uint64_t scale(uint64_t c, uint64_t t1, uint64_t t2)
{
	unsigned __int128 v;

	if (t1 == 0 || t1 == t2)
		return c;
	v = (unsigned __int128)c * t2 / t1;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/*
 * The folded stacks of path, whichever stage it holds (a raw dump
 * symbolized with o, records folded as zt-fold folds them), to read with
 * rd, from *sg (the caller closes it after rd); its symbolizer's warnings
 * said. -1 with the message in err.
 */
static int open_folded(const char *path, const struct zt_symopts *o, struct zt_stage **sg,
		       struct zt_folded_reader *rd, char *err, size_t errlen)
{
	const char *const *warn;
	size_t nwarn;
	int rc = -1;

	if (!(*sg = zt_stage_open(path, err, errlen)))
		return -1;
	if (zt_stage_refuse_diff(*sg, err, errlen) == 0)
		rc = zt_stage_folded(*sg, rd, o, err, errlen);
	warn = zt_stage_warnings(*sg, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	return rc;
}

/*
 * One side of the merge-join: a folded file streamed when it can be read
 * twice (a regular file, not a pipe), otherwise loaded.
 */
static struct zt_foldedsort *open_side(const char *path, const struct zt_foldedsort_opts *fo,
				       const struct zt_symopts *o, uint64_t *total,
				       struct zt_stage_empties *empties, char *err, size_t errlen)
{
	struct zt_stage *sg;
	struct zt_folded_reader rd;
	int ok = open_folded(path, o, &sg, &rd, err, errlen) == 0;
	struct zt_foldedsort *src = NULL;
	struct stat sb;
	int again = sg && zt_stage_kind(sg) == ZT_STAGE_FOLDED && strcmp(path, "-") != 0 &&
		    stat(path, &sb) == 0 && S_ISREG(sb.st_mode);

	if (ok)
		zt_stage_empties_add(empties, zt_stage_name(sg), zt_stage_empty(sg));
	/* Records with no sample: a side with no stacks, every count 0. */
	if (ok && zt_stage_empty(sg)) {
		src = zt_foldedsort_sum_new();
		if (zt_foldedsort_sum_end(src, zt_stage_name(sg), total, err, errlen) < 0) {
			zt_foldedsort_close(src);
			src = NULL;
		}
	} else if (ok) {
		src = zt_foldedsort_from(&rd, again ? path : NULL, fo, total, err, errlen);
	}
	zt_stage_close(sg);
	return src;
}

/* What a side is, in a message about sides that cannot be compared. */
static const char *alloc_words(int alloc, int wall)
{
	return alloc == ZT_WEIGHT_BYTES ? "an allocation profile in bytes" :
	       alloc == ZT_WEIGHT_OBJECTS ? "an allocation profile in objects" :
	       wall ? "a wall-clock profile (ns of wall-clock time)" :
	       "a CPU profile (samples or periods)";
}

/* difffolded.pl's output: both files merge-joined in byte order. */
static int difffolded(const char *a, const char *b, int normalize,
		      const struct zt_foldedsort_opts *fo, const struct zt_symopts *o, char *err,
		      size_t errlen)
{
	uint64_t t1, t2, c1 = 0, c2 = 0;
	struct zt_stage_empties empties = { 0 };
	struct zt_foldedsort *s1 = open_side(a, fo, o, &t1, &empties, err, errlen);
	struct zt_foldedsort *s2 = s1 ? open_side(b, fo, o, &t2, &empties, err, errlen) : NULL;
	const char *k1 = NULL, *k2 = NULL;
	size_t n1 = 0, n2 = 0;
	int h1 = -1, h2 = -1, fatal;
	char *msg = zt_stage_empties_end(&empties, &fatal);

	/* A side with no samples has every stack at 0; both is an error. */
	if (s2 && msg && fatal) {
		zt_errf(err, errlen, "%s", msg);
		zt_foldedsort_close(s2);
		s2 = NULL;
	} else if (s2 && msg) {
		zt_warn("%s", msg);
	}
	free(msg);

	/* An allocation profile's counts are bytes or objects: only beside the
	   same, or a side with no samples (a dump without the view asked for). */
	if (s2 && t1 && t2 && zt_foldedsort_alloc(s1) != zt_foldedsort_alloc(s2)) {
		zt_errf(err, errlen, "'%s' is %s and '%s' %s: they cannot be compared",
			a, alloc_words(zt_foldedsort_alloc(s1), zt_foldedsort_wall(s1)), b,
			alloc_words(zt_foldedsort_alloc(s2), zt_foldedsort_wall(s2)));
		zt_foldedsort_close(s1);
		zt_foldedsort_close(s2);
		return -1;
	}
	/* A wall-clock profile's counts are ns: never beside samples. */
	if (s2 && zt_foldedsort_wall(s1) != zt_foldedsort_wall(s2)) {
		zt_errf(err, errlen, "'%s' is %s and '%s' %s: they cannot be compared",
			a, zt_foldedsort_wall(s1) ? "a wall-clock profile (ns of wall-clock time)" :
			"a CPU profile (samples or periods)", b, zt_foldedsort_wall(s2) ?
			"a wall-clock profile (ns of wall-clock time)" :
			"a CPU profile (samples or periods)");
		zt_foldedsort_close(s1);
		zt_foldedsort_close(s2);
		return -1;
	}
	if (s2 && zt_foldedsort_wall(s1))
		printf(ZT_WEIGHT_NS_LINE "\n");
	if (s2 && (zt_foldedsort_alloc(s1) || zt_foldedsort_alloc(s2))) {
		char wline[160];
		const struct zt_foldedsort *s = zt_foldedsort_alloc(s1) ? s1 : s2;
		uint64_t rate = zt_foldedsort_rate(s);

		/* The rate said only when both sides agree on it. */
		if (t1 && t2 && zt_foldedsort_rate(s1) != zt_foldedsort_rate(s2))
			rate = 0;
		zt_weight_alloc_line(zt_foldedsort_alloc(s), rate, wline, sizeof wline);
		printf("%s\n", wline);
	}
	if (s2 && (h1 = zt_foldedsort_next(s1, &k1, &n1, &c1, err, errlen)) >= 0)
		h2 = zt_foldedsort_next(s2, &k2, &n2, &c2, err, errlen);
	while (h1 >= 0 && h2 >= 0 && (h1 || h2)) {
		int c = !h1 ? 1 : !h2 ? -1 : zt_folded_cmp(k1, n1, k2, n2);

		zt_folded_diff_write(stdout, c <= 0 ? k1 : k2, c <= 0 ? n1 : n2,
				     c <= 0 ? (normalize ? scale(c1, t1, t2) : c1) : 0,
				     c >= 0 ? c2 : 0);
		if (c <= 0)
			h1 = zt_foldedsort_next(s1, &k1, &n1, &c1, err, errlen);
		if (c >= 0 && h1 >= 0)
			h2 = zt_foldedsort_next(s2, &k2, &n2, &c2, err, errlen);
	}
	zt_foldedsort_close(s1);
	zt_foldedsort_close(s2);
	return h1 < 0 || h2 < 0 ? -1 : 0;
}

/*
 * What the runs of a report weigh, the first run's: ZT_WEIGHT_BYTES for an
 * allocation profile in bytes, 0 for samples (-1 before the first).
 */
static int report_unit = -1;

/*
 * Read a whole folded input (rd, from zt_stage_folded) into run j of m, in
 * samples: a file of perf periods is divided by its period, or refused
 * when it has none. -1 with the message in err.
 */
static int load_run(struct zt_compare_runs *m, size_t j, struct zt_stage *sg,
		    struct zt_folded_reader *rd, const struct zt_foldedsort_opts *fo, char *err,
		    size_t errlen)
{
	int unit;
	struct zt_folded_item it;
	uint64_t div;
	const char *problem = NULL;
	char *buf = NULL;
	size_t cap = 0;
	int got;

	rd->weighed = 1;
	while ((got = zt_folded_read(rd, &it, err, errlen)) > 0) {
		size_t len;
		const char *stack = zt_foldedsort_rewrite(fo, it.stack, it.stacklen, &len, &buf,
							  &cap);

		if (zt_compare_runs_add(m, j, stack, len, it.count) < 0) {
			zt_err_at(err, errlen, zt_stage_name(sg), it.lineno, "%s",
				  "total count does not fit in 64 bits");
			got = -1;
			break;
		}
	}
	free(buf);
	if (got == 0 && rd->w.kind == ZT_WEIGHT_WALL)
		problem = "a wall-clock profile: its counts are ns of wall-clock time, not samples, "
			  "and --report tests shares of samples; compare wall-clock profiles "
			  "without --report";
	if (got == 0 && rd->w.kind == ZT_WEIGHT_OBJECTS)
		problem = "an allocation profile in objects: --report tests bytes, told from "
			  "sampling noise by the samples behind them (--event=alloc_space, "
			  "inuse_space or peak_inuse_space); compare objects without --report";
	if (got == 0 && !problem && rd->w.kind == ZT_WEIGHT_BYTES && !rd->w.rate)
		problem = "an allocation profile in bytes that does not say its sampling rate "
			  "('# zt weight: bytes, sampled every N bytes'), which --report needs to "
			  "count the samples behind the bytes";
	unit = rd->w.kind == ZT_WEIGHT_BYTES ? ZT_WEIGHT_BYTES : 0;
	if (got == 0 && !problem && report_unit >= 0 && unit != report_unit)
		problem = unit ? "an allocation profile in bytes beside profiles of samples: they "
				 "cannot be compared"
			       : "a profile of samples beside allocation profiles in bytes: they "
				 "cannot be compared";
	if (got == 0 && !problem)
		report_unit = unit;
	/*
	 * Bytes are told from noise by the samples behind them: a sample of
	 * an allocation profile stands for rate bytes or more (its weight),
	 * so bytes / rate counts them, or more for a site of blocks larger
	 * than the rate, whose sampling noise is smaller than a count's:
	 * the test is then conservative (formats/diff.md).
	 */
	if (got == 0 && !problem && unit) {
		zt_compare_runs_divide(m, j, rd->w.rate);
		if (zt_compare_runs_samples(m, j) == 0)
			problem = "holds less than one sample's worth of bytes";
	} else if (got == 0 && !problem && !(problem = zt_weight_samples(&rd->w, &div))) {
		zt_compare_runs_divide(m, j, div);
		if (zt_compare_runs_samples(m, j) == 0)
			problem = "holds no samples";
	}
	if (got == 0 && problem)
		zt_err_at(err, errlen, zt_stage_name(sg), 0, "%s", problem);
	return got < 0 || problem ? -1 : 0;
}

static void print_ci(const struct zt_compare_test *t)
{
	char b[64];

	snprintf(b, sizeof b, "[%+.2f%%, %+.2f%%]", 100 * t->lo, 100 * t->hi);
	printf(" %-20s", b);
}

static void json_test(const char *what, const struct zt_compare_test *t)
{
	printf(", \"%s_share_before\": ", what);
	zt_json_number(stdout, t->share[0]);
	printf(", \"%s_share_after\": ", what);
	zt_json_number(stdout, t->share[1]);
	printf(", \"%s_change_ci\": [", what);
	zt_json_number(stdout, t->lo);
	printf(", ");
	zt_json_number(stdout, t->hi);
	printf("], \"%s_p\": ", what);
	zt_json_number(stdout, t->p);
	printf(", \"%s_dispersion\": ", what);
	zt_json_number(stdout, t->phi);
}

static void print_json(const struct zt_compare *c)
{
	/* An allocation profile's samples are its bytes over its rate. */
	printf("{%s", report_unit == ZT_WEIGHT_BYTES ? "\"weight\": \"bytes\", " : "");
	printf("\"before_runs\": %zu, \"after_runs\": %zu, \"before_samples\": %llu, "
	       "\"after_samples\": %llu, \"replicates\": %s, \"dispersion\": ",
	       c->runs[0], c->runs[1], (unsigned long long)c->samples[0],
	       (unsigned long long)c->samples[1], c->replicates ? "true" : "false");
	zt_json_number(stdout, c->alpha);
	printf(", \"dispersion_prior_df\": ");
	zt_json_number(stdout, c->replicates ? c->d0 : 0);
	printf(", \"fdr_q\": ");
	zt_json_number(stdout, c->q);
	printf(", \"ci_level\": ");
	zt_json_number(stdout, c->level);
	printf(", \"tests\": %zu, \"functions\": [", c->ntests);
	for (size_t i = 0; i < c->nrows; i++) {
		struct zt_compare_row row;
		const struct zt_compare_row *r = &row;

		zt_compare_row(c, i, &row);
		printf("%s\n  {\"name\": ", i ? "," : "");
		zt_json_string(stdout, r->name, r->namelen);
		printf(", \"self_before\": %llu, \"self_after\": %llu, \"total_before\": %llu, "
		       "\"total_after\": %llu", (unsigned long long)r->self.k[0],
		       (unsigned long long)r->self.k[1], (unsigned long long)r->total.k[0],
		       (unsigned long long)r->total.k[1]);
		json_test("self", &r->self);
		json_test("total", &r->total);
		printf(", \"significant\": %s}", r->significant ? "true" : "false");
	}
	printf("%s]}\n", c->nrows ? "\n" : "");
}

static void print_level(double level)
{
	char b[32];
	int d = 1;

	/* Enough digits to show how far from 100% the level is. */
	while (d < 6 && 100 * (1 - level) < pow(10, 1 - d))
		d++;
	snprintf(b, sizeof b, "%.*f%%", d, 100 * level);
	fputs(b, stdout);
}

/* The report as a table. */
static void print_table(const struct zt_compare *c, double q, long rows)
{
	size_t nsig = 0;
	struct zt_compare_row row;

	/* The significant rows come first. */
	while (nsig < c->nrows && (zt_compare_row(c, nsig, &row), row.significant))
		nsig++;
	if (report_unit == ZT_WEIGHT_BYTES)
		printf("allocation profiles: shares of the estimated bytes; each run's bytes "
		       "divided by its rate (the bytes a sample stands for at least) are the "
		       "samples the tests count\n");
	if (c->runs[0] == 1 && c->runs[1] == 1)
		printf("before: %llu samples, after: %llu samples\n",
		       (unsigned long long)c->samples[0], (unsigned long long)c->samples[1]);
	else
		printf("before: %zu runs, %llu samples; after: %zu runs, %llu samples\n",
		       c->runs[0], (unsigned long long)c->samples[0], c->runs[1],
		       (unsigned long long)c->samples[1]);
	if (c->replicates)
		printf("%zu of %zu functions changed beyond run-to-run variation "
		       "(quasi-binomial tests, common dispersion %.3g, "
		       "Benjamini-Hochberg FDR %g over %zu tests)\n",
		       nsig, c->nrows, c->alpha, q, c->ntests);
	else
		printf("%zu of %zu functions changed beyond sampling noise "
		       "(score tests, Benjamini-Hochberg FDR %g over %zu tests)\n",
		       nsig, c->nrows, q, c->ntests);
	if (!c->replicates)
		printf("one run per side: sampling error only, not the variation "
		       "between runs; give two or more runs per side to test against it\n");
	printf("intervals: ");
	print_level(c->level);
	printf(", adjusted for %zu tests: an interval excludes 0 exactly when its "
	       "function's verdict is a change\n\n", c->ntests);
	printf("%8s %8s %8s %-20s %8s %8s %8s %-20s %-12s %s\n",
	       "self1", "self2", "change", "interval", "total1", "total2",
	       "change", "interval", "verdict", "function");
	for (size_t i = 0; i < c->nrows && (rows <= 0 || (long)i < rows); i++) {
		const struct zt_compare_row *x = &row;

		zt_compare_row(c, i, &row);
		printf("%7.2f%% %7.2f%% %+7.2f%%", 100 * x->self.share[0],
		       100 * x->self.share[1], 100 * x->self.change);
		print_ci(&x->self);
		printf(" %7.2f%% %7.2f%% %+7.2f%%", 100 * x->total.share[0],
		       100 * x->total.share[1], 100 * x->total.change);
		print_ci(&x->total);
		printf(" %-12s ", x->significant ? "significant" : "within noise");
		fwrite(x->name, 1, x->namelen, stdout);
		putchar('\n');
	}
	if (rows > 0 && c->nrows > (size_t)rows)
		printf("(%zu more functions; --top 0 shows all)\n", c->nrows - (size_t)rows);
}

/*
 * The change report over runs, the first nbefore of them before; -1 with
 * the message in err when a run cannot be read.
 */
static int report(char **runs, size_t nruns, size_t nbefore,
		  const struct zt_foldedsort_opts *fo, double q, long rows, int json,
		  const struct zt_symopts *o, char *err, size_t errlen)
{
	int *side = zt_calloc(nruns, sizeof *side);
	struct zt_stage_empties empties[2] = { { 0 }, { 0 } };
	struct zt_compare_runs *m = zt_compare_runs_new(side, nruns);
	struct zt_compare *c;
	struct zt_stage *sg;
	struct zt_folded_reader rd;
	size_t kept = 0;
	int fatal[2] = { 0, 0 }, rc = 0;
	char *msg[2];

	/*
	 * Each run opened (records folded) and read in turn, one open at a
	 * time: a run with no samples is named and left out; a side with none
	 * at all is an error.
	 */
	for (size_t i = 0; i < nruns && rc == 0; i++) {
		if (open_folded(runs[i], o, &sg, &rd, err, errlen) < 0) {
			rc = -1;
		} else {
			zt_stage_empties_add(&empties[i >= nbefore], zt_stage_name(sg),
					     zt_stage_empty(sg));
			if (!zt_stage_empty(sg)) {
				side[kept] = i >= nbefore;
				rc = load_run(m, kept++, sg, &rd, fo, err, errlen);
			}
		}
		zt_stage_close(sg);
	}
	for (int i = 0; i < 2; i++)
		msg[i] = zt_stage_empties_end(&empties[i], &fatal[i]);
	if (rc == 0 && (fatal[0] || fatal[1])) {
		zt_errf(err, errlen, "%s%s", fatal[0] ? "before: " : "after: ",
			msg[fatal[0] ? 0 : 1]);
		rc = -1;
	} else if (rc == 0) {
		for (int i = 0; i < 2; i++)
			if (msg[i])
				zt_warn("%s", msg[i]);
		zt_compare_runs_keep(m, side, kept);
		c = zt_compare(m, q);
		if (json)
			print_json(c);
		else
			print_table(c, q, rows);
		zt_compare_free(c);
	}
	free(msg[0]);
	free(msg[1]);
	zt_compare_runs_free(m);
	free(side);
	return rc;
}

/*
 * Take the "--" that splits the runs before from the runs after out of the
 * operands: *nbefore is where it was, or -1. Returns how many are left.
 */
static int split_runs(int argc, char **argv, const char *sep, int *nbefore)
{
	*nbefore = -1;
	for (int i = 0; i < argc; i++) {
		if (argv[i] == sep) {
			*nbefore = i;
			memmove(argv + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof *argv);
			return argc - 1;
		}
	}
	return argc;
}

/* What is wrong with the operands, or NULL. */
static const char *check_runs(char **argv, int argc, int *nbefore, int rep, int json)
{
	int nstdin = 0;

	for (int i = 0; i < argc; i++)
		nstdin += strcmp(argv[i], "-") == 0;
	if (*nbefore < 0 && argc != 2)
		return argc < 2 ? "two profiles are needed, before and after"
				: "too many operands (several runs per side are written "
				  "before... -- after...)";
	if (*nbefore < 0)
		*nbefore = 1;
	if (*nbefore == 0 || *nbefore == argc)
		return "each side needs at least one profile, around '--'";
	if (nstdin > 1)
		return "only one of the profiles can be stdin";
	if (json && !rep)
		return "--json goes with --report";
	if (argc > 2 && !rep)
		return "several runs per side go with --report";
	return NULL;
}

/* What the command line asks for. */
struct asked {
	struct zt_symargs sym;	/* for raw dumps */
	int normalize, report, json;
	struct zt_foldedsort_opts fo;	/* --strip-hex, --root, --no-root */
	double q;
	long rows;
};

/*
 * The options, into ask. Returns 0, or -1 when main is to end at once with
 * *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct asked *ask, int *status)
{
	char *end, err[ZT_ERR_MAX];
	const char *problem;
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, &ask->sym, err, sizeof err)) != -1) {
		switch (c) {
		case 'j': ask->json = 1; break;
		case 'n': ask->normalize = 1; break;
		case 'q':
			ask->q = strtod(optarg, &end);
			if (*end || end == optarg || !(ask->q > 0 && ask->q < 1))
				return zt_usage_error(&usage, "--fdr wants a level between 0 and 1, "
						      "not '%s'", optarg);
			break;
		case 'r': ask->report = 1; break;
		case 's': ask->fo.strip = 1; break;
		case OPT_ROOT:
		case OPT_NO_ROOT:
			if ((problem = zt_folded_root_option(&ask->fo.root,
							     c == OPT_ROOT ? optarg : NULL)))
				return zt_usage_error(&usage, "%s", problem);
			break;
		case 't':
			if (zt_usage_rows("--top", optarg, &ask->rows, err, sizeof err) < 0)
				return zt_usage_error(&usage, "%s", err);
			break;
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	struct asked ask = { .q = 0.05, .rows = 20 };
	int nbefore, rc, status;
	char err[ZT_ERR_MAX];
	const char *problem;
	static char obuf[1 << 16];
	static char sep[] = "\001--";

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	/* A "--" between operands splits the runs before from the runs after;
	   it is kept in place as an operand of its own (sep). */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = sep;
			break;
		}
	zt_symargs_init(&ask.sym, argc);
	if (parse_options(argc, argv, &ask, &status) < 0) {
		zt_symargs_free(&ask.sym);
		return status;
	}
	argc -= optind;
	argv += optind;
	argc = split_runs(argc, argv, sep, &nbefore);
	if ((problem = check_runs(argv, argc, &nbefore, ask.report, ask.json))) {
		zt_warn("%s", problem);
		zt_usage(&usage, stderr);
		zt_symargs_free(&ask.sym);
		return ZT_EXIT_USAGE;
	}

	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	if (ask.report)
		rc = report(argv, (size_t)argc, (size_t)nbefore, &ask.fo, ask.q, ask.rows,
			    ask.json, &ask.sym.opts, err, sizeof err);
	else
		rc = difffolded(argv[0], argv[1], ask.normalize, &ask.fo, &ask.sym.opts, err,
				sizeof err);
	zt_symargs_free(&ask.sym);
	if (rc < 0)
		zt_die(ZT_EXIT_DATA, "%s", err);
	zt_fshut(stdout, "<stdout>");
	return ZT_EXIT_OK;
}
