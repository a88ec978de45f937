/*
 * zt-fold — perf script text (or zt-symbolize's stream, or a raw dump) to
 * folded stacks.
 *
 *   zt-fold run.raw > run.folded
 *   zt-symbolize < run.raw | zt-fold > run.folded
 *   perf script | zt-fold --all | flamegraph.pl > run.svg
 *
 * Inputs are read through lib/stage.c, which tells them apart and symbolizes a
 * raw dump in process; folded inputs are summed and sorted. The output matches
 * FlameGraph's stackcollapse-perf.pl byte for byte; the work is in
 * lib/perfscript.c (lines), lib/framenames.c (names) and lib/perfscriptfold.c
 * (counting and sorting). Nothing is written until every input has been read,
 * so a bad line never leaves half an output behind. When stderr is a terminal,
 * a long run shows how much it has read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "perfscriptfold.h"
#include "foldedsort.h"
#include "stage.h"
#include "symargs.h"
#include "event.h"
#include "progress.h"
#include "rawfmt.h"
#include "usage.h"
#include "util.h"
#include "weight.h"

/* Long-only options: every code below 256 would also be a short one. */
enum {
	OPT_PID = ZT_SYMARGS_NEXT, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_SRCLINE,
	OPT_WEIGHT, OPT_FOCUS, OPT_IGNORE, OPT_HIDE, OPT_ROOT, OPT_NO_ROOT,
};

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	ZT_EVENT_ROW,
	{ OPT_PID, "pid", no_argument, NULL, "root frame comm-PID" },
	{ OPT_TID, "tid", no_argument, NULL, "root frame comm-PID/TID" },
	{ OPT_ROOT, "root", required_argument, "NAME", "root frame NAME, whatever the command;\n"
	  "label:KEY: the input's label KEY (host too)" },
	{ OPT_NO_ROOT, "no-root", no_argument, NULL,
	  "no root frame: stacks start at the thread's entry" },
	{ OPT_KERNEL, "kernel", no_argument, NULL, "_[k] after kernel frames" },
	{ OPT_JIT, "jit", no_argument, NULL, "_[j] after JIT frames (/tmp/perf-N.map)" },
	{ OPT_ALL, "all", no_argument, NULL, "--kernel and --jit" },
	{ OPT_ADDRS, "addrs", no_argument, NULL, "[module <address>] for unknown symbols" },
	{ OPT_SRCLINE, "srcline", no_argument, NULL, ":LINE after names, from source lines" },
	{ OPT_WEIGHT, "weight", required_argument, "W",
	  "period (perf's periods, the default) or count\n"
	  "(one per record), and a '# zt weight:' line first" },
	{ OPT_FOCUS, "focus", required_argument, "REGEX",
	  "keep the stacks through a matching frame" },
	{ OPT_IGNORE, "ignore", required_argument, "REGEX",
	  "drop the stacks through a matching frame" },
	{ OPT_HIDE, "hide", required_argument, "REGEX", "drop matching frames from the stacks" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-fold [--pid | --tid | --root=NAME | --no-root] [--kernel] [--jit]\n"
	"               [--all] [--addrs] [--srcline] [--weight=period|count]\n"
	"               [--focus=REGEX] [--ignore=REGEX] [--hide=REGEX] [--event=NAME]\n"
	"               [-l] [-d DIR]... [--sysroot=DIR] [--no-demangle] [--no-debuginfod]\n"
	"               [file ...]",
	"Fold perf script output, zt-symbolize's stream or a zt raw dump from the\n"
	"files or stdin into stacks \"root;...;leaf count\", as stackcollapse-perf.pl\n"
	"does; folded stacks are summed and sorted. Inputs are told apart by\n"
	"their content.",
	options,
	"REGEX is POSIX extended, matched anywhere in a frame name; the root\n"
	"frame (the command) is not matched. A raw dump is symbolized as\n"
	"zt-symbolize symbolizes it, with -d, -l, --no-demangle, --sysroot and\n"
	"--no-debuginfod: with DEBUGINFOD_URLS set, files not found here are\n"
	"fetched from its servers.",
};

static void print_warnings(const struct zt_stage *st)
{
	const char *const *w;
	size_t n;

	w = zt_stage_warnings(st, &n);
	for (size_t i = 0; i < n; i++)
		zt_warn("%s", w[i]);
}

/* The folded stacks, after the weight line when --weight asked for it. */
static void write_folded(struct zt_perfscriptfold *fold, int declare)
{
	static char obuf[1 << 16];
	char wline[160];

	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	/* Said only when asked: flamegraph.pl warns about a line it cannot
	   read, and the default output is stackcollapse-perf.pl's bytes. A
	   wall-clock profile's counts are ns, which is always said. */
	if (declare || zt_perfscriptfold_wall(fold) || zt_perfscriptfold_alloc(fold)) {
		zt_perfscriptfold_weight_line(fold, wline, sizeof wline);
		printf("%s\n", wline);
	}
	zt_perfscriptfold_write(fold, stdout);
	zt_fshut(stdout, "<stdout>");
}

/* What the command line asks for. */
struct asked {
	struct zt_framenames_opts o;
	const char *re[3];	/* --focus, --ignore, --hide */
	int declare;		/* --weight given: write the weight line */
	const char *naming;	/* the first option that names records anew, or NULL */
	struct zt_symargs sym;	/* for raw dumps */
};

/*
 * The options, into ask. Returns 0, or -1 when main is to end at once with
 * *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct asked *ask, int *status)
{
	char err[ZT_ERR_MAX];
	const char *problem;
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, &ask->sym, err, sizeof err)) != -1) {
		/* The root options rewrite folded stacks too. */
		for (const struct zt_opt *o = options; o->name && !ask->naming; o++)
			if (o->val == c && c != 'h' && c != 'V' && c != OPT_ROOT && c != OPT_NO_ROOT)
				ask->naming = o->name;
		switch (c) {
		case OPT_ADDRS: ask->o.addrs = 1; break;
		case OPT_ALL: ask->o.kernel = ask->o.jit = 1; break;
		case OPT_JIT: ask->o.jit = 1; break;
		case OPT_KERNEL: ask->o.kernel = 1; break;
		case OPT_PID: ask->o.pid = 1; break;
		case OPT_SRCLINE: ask->o.srcline = 1; break;
		case OPT_TID: ask->o.tid = 1; break;
		case OPT_WEIGHT:
			if (strcmp(optarg, "count") != 0 && strcmp(optarg, "period") != 0)
				return zt_usage_error(&usage, "--weight wants period or count, "
						      "not '%s'", optarg);
			ask->o.count = strcmp(optarg, "count") == 0;
			ask->declare = 1;
			break;
		case OPT_FOCUS: ask->re[ZT_FOCUS] = optarg; break;
		case OPT_IGNORE: ask->re[ZT_IGNORE] = optarg; break;
		case OPT_HIDE: ask->re[ZT_HIDE] = optarg; break;
		case OPT_ROOT:
			/* label:NAME: each input's value of its label NAME. */
			if (strncmp(optarg, "label:", 6) == 0) {
				if (ask->o.root.how != ZT_ROOT_KEEP)
					return zt_usage_error(&usage, "--root and --no-root are one "
							      "choice: give one of them, once");
				if (!zt_label_key_ok(optarg + 6, strlen(optarg + 6)))
					return zt_usage_error(&usage, "--root=label:NAME wants a "
							      "label's name, not '%s'", optarg + 6);
				ask->o.root = (struct zt_reroot){ ZT_ROOT_LABEL, optarg + 6 };
				break;
			}
			/* fall through */
		case OPT_NO_ROOT:
			if ((problem = zt_folded_root_option(&ask->o.root,
							     c == OPT_ROOT ? optarg : NULL)))
				return zt_usage_error(&usage, "%s", problem);
			break;
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	if (ask->o.root.how != ZT_ROOT_KEEP && (ask->o.pid || ask->o.tid))
		return zt_usage_error(&usage, "--%s and --%s both say what the root frame is: "
				      "give one of them",
				      ask->o.root.how == ZT_ROOT_DROP ? "no-root" : "root",
				      ask->o.tid ? "tid" : "pid");
	*status = ZT_EXIT_OK;
	return 0;
}

/*
 * The input at path opened again, after its kind was learnt and it was
 * closed; under records_only, one that has become folded stacks since is
 * refused: -1 and err.
 */
static int reopen(struct zt_stage **st, const char *path, int records_only, char *err,
		  size_t errlen)
{
	if (!(*st = zt_stage_open(path, err, errlen)))
		return -1;
	if (zt_stage_refuse_diff(*st, err, errlen) < 0 ||
	    (records_only && zt_stage_kind(*st) == ZT_STAGE_FOLDED)) {
		if (records_only && zt_stage_kind(*st) == ZT_STAGE_FOLDED)
			zt_errf(err, errlen, "%s: became folded stacks while the inputs were read",
				zt_stage_name(*st));
		zt_stage_close(*st);
		*st = NULL;
		return -1;
	}
	return 0;
}

/*
 * Records of every input that has them, folded into one fold as one
 * stream; the exit status.
 */
static int fold_records(struct zt_stage **st, char **paths, int n, const struct asked *ask,
			struct zt_perfscriptfold *fold, char *err, size_t errlen)
{
	struct zt_stage_events ev = { 0 };
	struct zt_stage_empties empties = { 0 };
	int rc = 0;
	uint64_t before;
	char *msg;

	/* One input open at a time: any number of them, at any descriptor limit. */
	for (int i = 0; i < n && rc == 0; i++) {
		if (!st[i] && reopen(&st[i], paths[i], 1, err, errlen) < 0) {
			rc = -1;
			break;
		}
		before = zt_perfscriptfold_records(fold);
		rc = zt_stage_records(st[i], &ask->sym.opts, err, errlen);
		zt_perfscriptfold_next_input(fold);
		if (rc == 0)
			rc = zt_stage_fold(st[i], fold, &ev, err, errlen);
		if (rc == 0)
			zt_stage_empties_add(&empties, zt_stage_name(st[i]),
					     zt_perfscriptfold_records(fold) == before);
		print_warnings(st[i]);
		zt_stage_close(st[i]);
		st[i] = NULL;
	}
	msg = zt_stage_events_end(&ev);
	if (rc == 0 && msg)
		zt_warn("%s", msg);
	free(msg);
	/* An input with no samples is named; only all of them empty is an error. */
	if (zt_stage_empties_settle(&empties, rc < 0, err, errlen) < 0)
		rc = -1;
	if (rc == 0 && ask->o.count && zt_perfscriptfold_wall(fold)) {
		zt_errf(err, errlen, "--weight=count: a wall-clock profile's records weigh "
			"nanoseconds (of wall-clock time), not samples; fold it without it");
		rc = -1;
	}
	if (rc == 0 && ask->o.count && zt_perfscriptfold_alloc(fold)) {
		zt_errf(err, errlen, "--weight=count: an allocation profile's records weigh "
			"%s, not samples; fold it without it",
			zt_weight_alloc_unit(zt_perfscriptfold_alloc(fold)));
		rc = -1;
	}
	/* Nothing left to write is said, as zt-stat's "kept: 0 of ...". */
	if (rc == 0 && zt_perfscriptfold_kept(fold) == 0 &&
	    zt_filter_active(zt_perfscriptfold_filter(fold)))
		zt_warn("kept 0 of %llu records by --focus, --ignore and --hide: no stack "
			"matched%s%s%s", (unsigned long long)zt_perfscriptfold_records(fold),
			ask->re[0] ? " --focus='" : "", ask->re[0] ? ask->re[0] : "",
			ask->re[0] ? "'" : "");
	if (rc == 0)
		write_folded(fold, ask->declare);
	return rc < 0 ? ZT_EXIT_DATA : ZT_EXIT_OK;
}

/*
 * Folded stacks among the inputs: every input as folded stacks (records
 * folded with the default options), summed and sorted as one.
 */
static int sum_folded(struct zt_stage **st, char **paths, int n, const struct asked *ask,
		      char *err, size_t errlen)
{
	const struct zt_foldedsort_opts fo = { .root = ask->o.root };
	struct zt_foldedsort *src = zt_foldedsort_sum_new();
	struct zt_stage_empties empties = { 0 };
	static char obuf[1 << 16];
	struct zt_folded_reader rd;
	uint64_t total, count;
	const char *stack;
	char *first = NULL;
	size_t len;
	int rc = 0, got;

	/* Each input summed in turn, open only while it is read. */
	for (int i = 0; i < n && rc == 0; i++) {
		if (!st[i] && reopen(&st[i], paths[i], 0, err, errlen) < 0) {
			rc = -1;
			break;
		}
		if (zt_stage_folded(st[i], &rd, &ask->sym.opts, err, errlen) < 0)
			rc = -1;
		print_warnings(st[i]);
		/* Records with no sample are named, and left out of the sum. */
		if (rc == 0)
			zt_stage_empties_add(&empties, zt_stage_name(st[i]), zt_stage_empty(st[i]));
		if (rc == 0 && !zt_stage_empty(st[i])) {
			rc = zt_foldedsort_sum_add(src, &rd, first, &fo, err, errlen);
			if (!first)
				first = zt_strdup(zt_stage_name(st[i]));
		}
		zt_stage_close(st[i]);
		st[i] = NULL;
	}
	if (zt_stage_empties_settle(&empties, rc < 0, err, errlen) < 0)
		rc = -1;
	if (rc == 0)
		rc = zt_foldedsort_sum_end(src, first ? first : "", &total, err, errlen);
	if (rc == 0) {
		setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
		if (zt_foldedsort_wall(src))
			printf(ZT_WEIGHT_NS_LINE "\n");
		if (zt_foldedsort_alloc(src)) {
			char wline[160];

			zt_weight_alloc_line(zt_foldedsort_alloc(src), zt_foldedsort_rate(src),
					     wline, sizeof wline);
			printf("%s\n", wline);
		}
		while ((got = zt_foldedsort_next(src, &stack, &len, &count, err, errlen)) > 0) {
			fwrite(stack, 1, len, stdout);
			printf(" %llu\n", (unsigned long long)count);
		}
		rc = got;
		zt_fshut(stdout, "<stdout>");
	}
	zt_foldedsort_close(src);
	free(first);
	return rc < 0 ? ZT_EXIT_DATA : ZT_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const char *const reopt[3] = { "--focus", "--ignore", "--hide" };
	struct asked ask = { 0 };
	struct zt_stage **st;
	struct zt_perfscriptfold *fold = NULL;
	char err[ZT_ERR_MAX] = "";
	char **paths, *folded_name = NULL;
	int status, n, folded = -1;

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	zt_symargs_init(&ask.sym, argc);
	if (parse_options(argc, argv, &ask, &status) < 0)
		goto out;
	argc -= optind;
	argv += optind;

	fold = zt_perfscriptfold_new(&ask.o);
	for (int k = 0; k < 3; k++) {
		if (ask.re[k] && zt_filter_set(zt_perfscriptfold_filter(fold), k, ask.re[k], err,
					       sizeof err) < 0) {
			zt_warn("%s: bad regex '%s': %s", reopt[k], ask.re[k], err);
			zt_usage(&usage, stderr);
			status = ZT_EXIT_USAGE;
			goto out;
		}
	}
	n = argc;
	paths = zt_usage_inputs(argv, &n);
	st = zt_calloc((size_t)n, sizeof *st);
	/*
	 * Each input's kind, from its first lines; then it is closed, but
	 * standard input, which cannot be read again: a file is opened again
	 * when its turn comes.
	 */
	for (int i = 0; i < n && status == ZT_EXIT_OK; i++) {
		if (!(st[i] = zt_stage_open(paths[i], err, sizeof err)) ||
		    zt_stage_refuse_diff(st[i], err, sizeof err) < 0) {
			status = ZT_EXIT_DATA;
			continue;
		}
		if (zt_stage_kind(st[i]) == ZT_STAGE_FOLDED && folded < 0) {
			folded = i;
			folded_name = zt_strdup(zt_stage_name(st[i]));
		}
		if (strcmp(paths[i], "-") != 0) {
			zt_stage_close(st[i]);
			st[i] = NULL;
		}
	}
	/* Folded stacks are names already: what names records cannot apply. */
	if (status == ZT_EXIT_OK && folded >= 0 && ask.o.root.how == ZT_ROOT_LABEL) {
		zt_errf(err, sizeof err, "%s: folded stacks carry no labels; --root=label:%s "
			"needs perf script text or a raw dump", folded_name, ask.o.root.name);
		status = ZT_EXIT_DATA;
	}
	if (status == ZT_EXIT_OK && folded >= 0 && ask.naming) {
		zt_errf(err, sizeof err, "%s: folded stacks have no records to name again; --%s "
			"needs perf script text or a raw dump", folded_name, ask.naming);
		status = ZT_EXIT_DATA;
	}
	if (status == ZT_EXIT_OK)
		status = folded >= 0 ? sum_folded(st, paths, n, &ask, err, sizeof err)
				     : fold_records(st, paths, n, &ask, fold, err, sizeof err);
	if (status != ZT_EXIT_OK)
		zt_warn("%s", err);
	for (int i = 0; i < n; i++)
		zt_stage_close(st[i]);
	free(st);
	free(folded_name);
out:
	zt_perfscriptfold_free(fold);
	zt_symargs_free(&ask.sym);
	return status;
}
