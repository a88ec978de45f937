/*
 * zt-symbolize — raw dump in, symbolized stream out (formats/symbolized.md).
 *
 *   zt-symbolize [-lm] [--no-demangle] [--no-debuginfod] [-d DIR]... [--sysroot=DIR]
 *                [FILE]
 *
 * The dump is read whole (plain or gzip) and checked before anything is
 * printed, so a bad dump produces an error and no output. A sample line
 * with a time becomes one record at that time; with --merge, or without
 * times, identical samples become one record whose period is their count.
 * The stream's layout is written by lib/symstream.c.
 */
#include "raw.h"
#include "symargs.h"
#include "symbolize.h"
#include "symstream.h"
#include "progress.h"
#include "usage.h"
#include "util.h"
#include "factlines.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_MERGE = 'm' };

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	{ OPT_MERGE, "merge", no_argument, NULL, "one record per distinct stack, its period the count" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-symbolize [-lm] [--no-demangle] [--no-debuginfod]\n"
	"                    [-d DIR]... [--sysroot=DIR] [FILE]",
	"Turn a zt raw dump (FILE or stdin, plain or gzip) into the perf script\n"
	"text layout: one record per sample, in time order, with its time\n"
	"(dumps without times, or --merge: one record per distinct stack).",
	options,
	"With DEBUGINFOD_URLS set, files not found here (by -d, /usr/lib/debug)\n"
	"are fetched from its servers (libdebuginfod), unless --no-debuginfod.",
};

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
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	if (argc - optind > 1) {
		zt_usage(&usage, stderr);
		return -1;
	}
	return 0;
}

/* The dump at path ("-": stdin) as perf script text; the exit status. */
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
	res = zt_symstream_resolve(s, &d);

	warn = zt_symbolizer_warnings(s, &nwarn);
	if (zt_symbolizer_debuginfod_note(s))
		zt_warn("%s", zt_symbolizer_debuginfod_note(s));
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	zt_factlines_write(stdout, &d, warn, nwarn);
	zt_symstream_write(stdout, &d, res, merge, args->opts.lines);
	free(res);
	zt_symbolizer_free(s);
	zt_raw_free(&d);
	return ZT_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct zt_symargs args;
	int merge = 0, status, n;

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	zt_symargs_init(&args, argc);
	/* stdout is checked at exit (zt_setprog). */
	if (parse_options(argc, argv, &args, &merge, &status) == 0) {
		n = argc - optind;
		status = symbolize(zt_usage_inputs(argv + optind, &n)[0], &args, merge);
	}
	zt_symargs_free(&args);
	return status;
}
