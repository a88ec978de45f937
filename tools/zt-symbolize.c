/*
 * zt-symbolize — raw dump in, symbolized stream out (formats/symbolized.md).
 *
 *   zt-symbolize [-lm] [--no-demangle] [-d DIR]... [--sysroot=DIR] [FILE]
 *
 * The dump is read whole (plain or gzip) and checked before anything is
 * printed, so a bad dump produces an error and no output. A sample line
 * with a time becomes one record at that time; with --merge, or without
 * times, identical samples become one record whose period is their count.
 */
#include "raw.h"
#include "escape.h"
#include "symargs.h"
#include "symbolize.h"
#include "usage.h"
#include "util.h"
#include "facts.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_MERGE = 'm' };

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	{ OPT_MERGE, "merge", no_argument, NULL, "one record per distinct stack, its period the count" },
	{ 'h', "help", no_argument, NULL, "print this help" },
	{ 'V', "version", no_argument, NULL, "print the version" },
	{ 0 },
};

static const struct zt_usage usage = {
	"zt-symbolize [-lm] [--no-demangle] [-d DIR]... [--sysroot=DIR] [FILE]",
	"Turn a zt raw dump (FILE or stdin, plain or gzip) into the perf script\n"
	"text layout: one record per sample, in time order, with its time\n"
	"(dumps without times, or --merge: one record per distinct stack).",
	options,
	NULL,
};

/* The process name: the exe's basename, else the first file mapped. */
static const char *process_name(const struct zt_raw *d)
{
	if (d->exe && *d->exe)
		return zt_maps_basename(d->exe);
	for (size_t i = 0; i < d->nmaps; i++)
		if (d->maps[i].offset == 0 && zt_maps_is_file(&d->maps[i]))
			return zt_maps_basename(d->maps[i].path);
	return "unknown";
}

/* A source line under its frame, as perf script -F +srcline prints it. */
static void print_srcline(const char *file, unsigned line)
{
	fputs("  ", stdout);
	zt_escape_fput(stdout, file, NULL);
	printf(":%u\n", line);
}

/*
 * One address: its inlined frames first, as perf prints them ("(inlined)"
 * for the module), then the frame itself; each with its source line.
 */
static void print_frame(uint64_t addr, const struct zt_symres *r)
{
	for (size_t k = 0; k < r->ninl; k++) {
		printf("\t%16" PRIx64 " ", addr);
		zt_escape_fput(stdout, r->inl[k].name, NULL);
		fputs(" (inlined)\n", stdout);
		if (r->inl[k].file)
			print_srcline(r->inl[k].file, r->inl[k].line);
	}
	printf("\t%16" PRIx64 " ", addr);
	zt_escape_fput(stdout, r->name, NULL);
	if (r->have_sym)
		printf("+0x%" PRIx64, r->offset);
	/* perf-script readers take the module as the last "(\S*)": no space,
	 * no parenthesis inside it. */
	fputs(" (", stdout);
	zt_escape_fput(stdout, r->module, " ()");
	fputs(")\n", stdout);
	if (r->file)
		print_srcline(r->file, r->line);
}

/* Sample lines by time; lines with the same time keep their file order. */
static int by_time(const void *a, const void *b, void *ctx)
{
	const struct zt_timed *x = a, *y = b;

	(void)ctx;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * One record: "comm pid/tid seconds: count zt-samples:", the frames leaf
 * first, a [truncated] root for a partial stack, a blank line.
 */
static void print_record(const struct zt_raw *dp, const struct zt_symres *res,
			 const char *comm, size_t stack, uint64_t ns, uint64_t count)
{
	const struct zt_stack *st = &dp->stacks[stack];
	const char *name = zt_raw_thread_name(dp, st->tid);
	uint64_t pid = dp->have_pid ? dp->pid : st->tid;

	/* A ';' in a thread name would split the folded stack. */
	zt_escape_fput(stdout, name && *name ? name : comm, ";");
	printf(" %" PRIu64 "/%" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " zt-samples:\n",
	       pid, st->tid, ns / 1000000000u, ns % 1000000000u / 1000u, count);
	for (size_t j = st->first; j < st->first + st->naddr; j++)
		print_frame(dp->addr[j], &res[j]);
	/* The unwinder stopped short: say so at the root, never pass the
	 * stack off as whole. */
	if (st->partial)
		printf("\t%16x [truncated] ([unknown])\n", 0);
	putchar('\n');
}

/* Every record, in time order when every sample line has its time. */
static void print_records(struct zt_raw *dp, const struct zt_symres *res, int merge)
{
	const char *comm = process_name(dp);

	if (!merge && dp->ntimed > 0 && dp->nuntimed == 0) {
		/*
		 * One record per sample line, in time order, with its time, as
		 * perf script prints them: viewers that weigh a record by the
		 * time to the next one, or count records, weigh it right.
		 */
		qsort_r(dp->timed, dp->ntimed, sizeof *dp->timed, by_time, NULL);
		for (size_t i = 0; i < dp->ntimed; i++)
			print_record(dp, res, comm, dp->timed[i].stack,
				     dp->start_ns + dp->timed[i].ns, dp->timed[i].count);
	} else {
		for (size_t i = 0; i < dp->nstacks; i++)
			print_record(dp, res, comm, i, 0, dp->stacks[i].count);
	}
}

/*
 * The options, into args and *merge. Returns 0, or -1 when main is to end
 * at once with *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct zt_symargs *args, int *merge,
			 int *status)
{
	char err[ZT_ERR_MAX];
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, args, err, sizeof err)) != -1) {
		switch (c) {
		case OPT_MERGE: *merge = 1; break;
		case 'h': zt_usage(&usage, stdout); *status = ZT_EXIT_OK; return -1;
		case 'V': zt_version(); *status = ZT_EXIT_OK; return -1;
		default:
			if (err[0])
				zt_warn("%s", err);
			zt_usage(&usage, stderr);
			return -1;
		}
	}
	if (argc - optind > 1) {
		zt_usage(&usage, stderr);
		return -1;
	}
	return 0;
}

/* The dump at path (NULL: stdin) as perf script text; the exit status. */
static int symbolize(const char *path, const struct zt_symargs *args, int merge)
{
	struct zt_raw d = { 0 };
	struct zt_symbolizer *s;
	struct zt_symres *res;
	const char *const *warn;
	size_t nwarn;
	char err[ZT_ERR_MAX];

	if (zt_raw_load(path, &d, err, sizeof err) < 0) {
		zt_warn("%s", err);
		zt_raw_free(&d);
		return ZT_EXIT_DATA;
	}
	/* Resolve everything first: warnings go before the first record. */
	s = zt_symbolizer_new(&d, &args->opts);
	res = zt_calloc(d.naddr ? d.naddr : 1, sizeof *res);
	for (size_t i = 0; i < d.naddr; i++)
		zt_symbolize(s, d.addr[i], d.exact[i], &res[i]);

	warn = zt_symbolizer_warnings(s, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	zt_facts_write(stdout, &d, warn, nwarn);
	print_records(&d, res, merge);
	free(res);
	zt_symbolizer_free(s);
	zt_raw_free(&d);
	return ZT_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct zt_symargs args;
	int merge = 0, status;

	zt_setprog(argv[0]);
	zt_symargs_init(&args, argc);
	/* stdout is checked at exit (zt_setprog). */
	if (parse_options(argc, argv, &args, &merge, &status) == 0)
		status = symbolize(optind < argc ? argv[optind] : NULL, &args, merge);
	zt_symargs_free(&args);
	return status;
}
