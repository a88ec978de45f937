/*
 * zt-pprof — raw dump in, gzipped pprof profile.proto out, for
 * `go tool pprof` and whatever else reads pprof's format.
 *
 *   zt-pprof [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [-o FILE] [FILE]
 *
 * The dump is named as zt-symbolize names it (the same symbolizer, the same
 * options and warnings); lib/pprof.c builds and encodes the profile. The
 * whole profile is built before anything is written, so a bad dump leaves
 * no output, and no output file.
 */
#include "pprof.h"
#include "raw.h"
#include "symargs.h"
#include "symbolize.h"
#include "usage.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	{ 'o', "output", required_argument, "FILE", "write the profile to FILE, not stdout" },
	{ 'h', "help", no_argument, NULL, "print this help" },
	{ 'V', "version", no_argument, NULL, "print the version" },
	{ 0 },
};

static const struct zt_usage usage = {
	"zt-pprof [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [-o FILE] [FILE]",
	"Turn a zt raw dump (FILE or stdin, plain or gzip) into a gzipped pprof\n"
	"profile (profile.proto), for go tool pprof.",
	options,
	NULL,
};

/* Reachable when an error exits, so that LeakSanitizer stays quiet. */
static struct zt_symargs args;
static struct zt_raw d;

/*
 * Write the encoded profile to output (NULL: stdout). Exits 1 when it
 * cannot, and then leaves no half-written file behind.
 */
static void write_profile(const unsigned char *buf, size_t len, const char *output)
{
	FILE *out = stdout;
	char err[ZT_ERR_MAX] = "";
	int rc, e;

	if (output && !(out = fopen(output, "wb")))
		zt_die(ZT_EXIT_DATA, "cannot open '%s':", output);
	rc = zt_pprof_write(buf, len, out, err, sizeof err);
	e = errno;
	if (output && fclose(out) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0)
		return;
	if (output)
		unlink(output);
	if (err[0])
		zt_die(ZT_EXIT_DATA, "%s", err);
	errno = e;
	if (output)
		zt_die(ZT_EXIT_DATA, "cannot write '%s':", output);
	zt_die(ZT_EXIT_DATA, "cannot write <stdout>:");
}

int main(int argc, char **argv)
{
	struct zt_symbolizer *s;
	struct zt_pprof *p;
	const char *output = NULL;
	const char *const *warn;
	unsigned char *buf;
	size_t len, nwarn;
	char err[ZT_ERR_MAX];
	int c;

	zt_setprog(argv[0]);
	zt_symargs_init(&args, argc);
	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1) {
		switch (zt_symargs_take(&args, c, optarg, err, sizeof err)) {
		case 1: continue;
		case -1:
			zt_warn("%s", err);
			zt_usage(&usage, stderr);
			return ZT_EXIT_USAGE;
		}
		switch (c) {
		case 'o': output = optarg; break;
		case 'h': zt_usage(&usage, stdout); return ZT_EXIT_OK;
		case 'V': zt_version(); return ZT_EXIT_OK;
		default: zt_usage(&usage, stderr); return ZT_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1) {
		zt_usage(&usage, stderr);
		return ZT_EXIT_USAGE;
	}
	/* gzip's rule: compressed bytes never go to a terminal. */
	if (!output && isatty(STDOUT_FILENO)) {
		zt_warn("the profile is binary: give -o FILE or redirect stdout");
		zt_usage(&usage, stderr);
		return ZT_EXIT_USAGE;
	}

	if (zt_raw_load(argc ? argv[0] : NULL, &d, err, sizeof err) < 0)
		zt_die(ZT_EXIT_DATA, "%s", err);
	s = zt_symbolizer_new(&d, &args.opts);
	p = zt_pprof_build(&d, s, args.opts.lines);
	warn = zt_symbolizer_warnings(s, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	buf = zt_pprof_encode(p, &len);
	write_profile(buf, len, output);
	if (!output)
		zt_fshut(stdout, "<stdout>");
	free(buf);
	zt_pprof_free(p);
	zt_symbolizer_free(s);
	zt_raw_free(&d);
	zt_symargs_free(&args);
	return ZT_EXIT_OK;
}
