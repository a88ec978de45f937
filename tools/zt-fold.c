/*
 * zt-fold — perf script text (or zt-symbolize's stream) to folded stacks.
 *
 *   zt-symbolize < run.raw | zt-fold > run.folded
 *   perf script | zt-fold --all | flamegraph.pl > run.svg
 *
 * The output matches FlameGraph's stackcollapse-perf.pl byte for byte; the
 * work is in lib/perfscript.c (lines), lib/collapse.c (names) and
 * lib/fold.c (counting and sorting). Nothing is written until every input
 * has been read, so a bad line never leaves half an output behind. When
 * stderr is a terminal, a long run shows how much it has read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "fold.h"
#include "input.h"
#include "perfscript.h"
#include "usage.h"
#include "util.h"

/* Long-only options: every code below 256 would also be a short one. */
enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_SRCLINE,
	OPT_WEIGHT, OPT_FOCUS, OPT_IGNORE, OPT_HIDE,
};

static const struct zt_opt options[] = {
	{ OPT_PID, "pid", no_argument, NULL, "root frame comm-PID" },
	{ OPT_TID, "tid", no_argument, NULL, "root frame comm-PID/TID" },
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
	{ 'h', "help", no_argument, NULL, "print this help" },
	{ 'V', "version", no_argument, NULL, "print the version" },
	{ 0 },
};

static const struct zt_usage usage = {
	"zt-fold [--pid | --tid] [--kernel] [--jit] [--all] [--addrs]\n"
	"               [--srcline] [--weight=period|count] [--focus=REGEX]\n"
	"               [--ignore=REGEX] [--hide=REGEX] [file ...]",
	"Fold perf script output, or zt-symbolize's stream, from the files or\n"
	"stdin into stacks \"root;...;leaf count\", as stackcollapse-perf.pl does.",
	options,
	"REGEX is POSIX extended, matched anywhere in a frame name; the root\n"
	"frame (the command) is not matched.",
};

/* The event every input's records must have: several inputs are one stream. */
struct events {
	char *event;		/* the first one seen rules */
	char *skipped_event;	/* the first one skipped */
	unsigned long skipped;
};

/* Fold every record of one input; -1 with the message in err. */
static int fold_input(struct zt_fold *fold, const char *path, struct events *ev,
		      char *err, size_t errlen)
{
	struct zt_input *in = zt_input_open(path, err, errlen);
	int tty = isatty(STDERR_FILENO), shown = 0, got;
	struct zt_ps_reader *r;
	struct zt_ps_item it;
	const char *problem, *skipped;
	unsigned long n;

	if (!in)
		return -1;
	r = zt_ps_reader_new(in);
	if (ev->event)
		zt_ps_reader_set_event(r, ev->event, strlen(ev->event));
	for (unsigned long k = 1; (got = zt_ps_next(r, &it, err, errlen)) > 0; k++) {
		if ((problem = zt_fold_item(fold, &it))) {
			zt_err_at(err, errlen, zt_input_name(in), it.lineno, "%s", problem);
			got = -1;
			break;
		}
		if (tty && k % (1UL << 22) == 0 && ++shown)
			fprintf(stderr, "\rzt-fold: %s: %llu MiB read", zt_input_name(in),
				(unsigned long long)(zt_ps_reader_bytes(r) >> 20));
	}
	if (shown)
		fputs("\r\033[K", stderr);
	if (got == 0 && it.lineno == 0) {
		zt_err_at(err, errlen, zt_input_name(in), 0, "empty file");
		got = -1;
	}
	if (got == 0) {
		if (it.unterminated)
			zt_warn("%s: line %lu: last record has no blank line after it; "
				"dropped, as stackcollapse-perf.pl drops it",
				zt_input_name(in), it.unterminated);
		if (!ev->event && zt_ps_reader_event(r))
			ev->event = zt_strdup(zt_ps_reader_event(r));
		n = zt_ps_reader_skipped(r, &skipped);
		if (n && !ev->skipped_event)
			ev->skipped_event = zt_strdup(skipped);
		ev->skipped += n;
	}
	zt_ps_reader_free(r);
	zt_input_close(in);
	return got;
}

/* The folded stacks, after the weight line when --weight asked for it. */
static void write_folded(struct zt_fold *fold, int declare)
{
	static char obuf[1 << 16];
	char wline[160];

	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	/* Said only when asked: flamegraph.pl warns about a line it cannot
	   read, and the default output is stackcollapse-perf.pl's bytes. */
	if (declare) {
		zt_fold_weight_line(fold, wline, sizeof wline);
		printf("%s\n", wline);
	}
	zt_fold_write(fold, stdout);
	zt_fshut(stdout, "<stdout>");
}

/* What the command line asks for. */
struct asked {
	struct zt_collapse_opts o;
	const char *re[3];	/* --focus, --ignore, --hide */
	int declare;		/* --weight given: write the weight line */
};

/*
 * The options, into ask. Returns 0, or -1 when main is to end at once with
 * *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct asked *ask, int *status)
{
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case OPT_ADDRS: ask->o.addrs = 1; break;
		case OPT_ALL: ask->o.kernel = ask->o.jit = 1; break;
		case OPT_JIT: ask->o.jit = 1; break;
		case OPT_KERNEL: ask->o.kernel = 1; break;
		case OPT_PID: ask->o.pid = 1; break;
		case OPT_SRCLINE: ask->o.srcline = 1; break;
		case OPT_TID: ask->o.tid = 1; break;
		case OPT_WEIGHT:
			if (strcmp(optarg, "count") != 0 && strcmp(optarg, "period") != 0) {
				zt_warn("--weight wants period or count, not '%s'", optarg);
				zt_usage(&usage, stderr);
				return -1;
			}
			ask->o.count = strcmp(optarg, "count") == 0;
			ask->declare = 1;
			break;
		case OPT_FOCUS: ask->re[ZT_FOCUS] = optarg; break;
		case OPT_IGNORE: ask->re[ZT_IGNORE] = optarg; break;
		case OPT_HIDE: ask->re[ZT_HIDE] = optarg; break;
		case 'h': zt_usage(&usage, stdout); *status = ZT_EXIT_OK; return -1;
		case 'V': zt_version(); *status = ZT_EXIT_OK; return -1;
		default: zt_usage(&usage, stderr); return -1;
		}
	}
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const reopt[3] = { "--focus", "--ignore", "--hide" };
	struct asked ask = { 0 };
	struct events ev = { 0 };
	struct zt_fold *fold;
	char err[ZT_ERR_MAX];
	int status;

	zt_setprog(argv[0]);
	if (parse_options(argc, argv, &ask, &status) < 0)
		return status;
	argc -= optind;
	argv += optind;

	fold = zt_fold_new(&ask.o);
	for (int k = 0; k < 3; k++) {
		if (ask.re[k] &&
		    zt_filter_set(zt_fold_filter(fold), k, ask.re[k], err, sizeof err) < 0) {
			zt_warn("%s: bad regex '%s': %s", reopt[k], ask.re[k], err);
			zt_usage(&usage, stderr);
			zt_fold_free(fold);
			return ZT_EXIT_USAGE;
		}
	}
	for (int i = 0; i < (argc ? argc : 1) && status == ZT_EXIT_OK; i++)
		if (fold_input(fold, argc ? argv[i] : "-", &ev, err, sizeof err) < 0)
			status = ZT_EXIT_DATA;
	if (status == ZT_EXIT_OK && ev.skipped)
		zt_warn("skipped %lu records of other events than '%s' (the first was '%s')",
			ev.skipped, ev.event, ev.skipped_event);
	if (status == ZT_EXIT_OK && zt_fold_records(fold) == 0) {
		zt_errf(err, sizeof err, "no samples in the input");
		status = ZT_EXIT_DATA;
	}
	if (status == ZT_EXIT_OK)
		write_folded(fold, ask.declare);
	else
		zt_warn("%s", err);
	zt_fold_free(fold);
	free(ev.event);
	free(ev.skipped_event);
	return status;
}
