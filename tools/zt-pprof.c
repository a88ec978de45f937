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

/*
 * Write the encoded profile to output (NULL: stdout). Returns 0, or -1
 * with the message in err, and then leaves no half-written file behind.
 */
static int write_profile(const unsigned char *buf, size_t len, const char *output,
			 char *err, size_t errlen)
{
	FILE *out = stdout;
	int rc, e;

	err[0] = '\0';
	if (output && !(out = fopen(output, "wb"))) {
		zt_errf(err, errlen, "cannot open '%s': %s", output, strerror(errno));
		return -1;
	}
	rc = zt_pprof_write(buf, len, out, err, errlen);
	e = errno;
	if (output && fclose(out) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0)
		return 0;
	if (output)
		unlink(output);
	if (!err[0])
		zt_errf(err, errlen, "cannot write %s%s%s: %s", output ? "'" : "",
			output ? output : "<stdout>", output ? "'" : "", strerror(e));
	return -1;
}

/*
 * The options, into args and *output. Returns 0, or -1 when main is to
 * end at once with *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct zt_symargs *args,
			 const char **output, int *status)
{
	char err[ZT_ERR_MAX];
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, args, err, sizeof err)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
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
	/* gzip's rule: compressed bytes never go to a terminal. */
	if (!*output && isatty(STDOUT_FILENO)) {
		zt_warn("the profile is binary: give -o FILE or redirect stdout");
		zt_usage(&usage, stderr);
		return -1;
	}
	return 0;
}

/* The dump at path (NULL: stdin) as a profile in output; the exit status. */
static int pprof(const char *path, const struct zt_symargs *args, const char *output)
{
	struct zt_raw d = { 0 };
	struct zt_symbolizer *s;
	struct zt_pprof *p;
	const char *const *warn;
	unsigned char *buf;
	size_t len, nwarn;
	char err[ZT_ERR_MAX];
	int status = ZT_EXIT_OK;

	if (zt_raw_load(path, &d, err, sizeof err) < 0) {
		zt_warn("%s", err);
		zt_raw_free(&d);
		return ZT_EXIT_DATA;
	}
	s = zt_symbolizer_new(&d, &args->opts);
	p = zt_pprof_build(&d, s, args->opts.lines);
	warn = zt_symbolizer_warnings(s, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	buf = zt_pprof_encode(p, &len);
	if (write_profile(buf, len, output, err, sizeof err) < 0) {
		zt_warn("%s", err);
		status = ZT_EXIT_DATA;
	}
	free(buf);
	zt_pprof_free(p);
	zt_symbolizer_free(s);
	zt_raw_free(&d);
	return status;
}

int main(int argc, char **argv)
{
	struct zt_symargs args;
	const char *output = NULL;
	int status;

	zt_setprog(argv[0]);
	zt_symargs_init(&args, argc);
	/* stdout is checked at exit (zt_setprog). */
	if (parse_options(argc, argv, &args, &output, &status) == 0)
		status = pprof(optind < argc ? argv[optind] : NULL, &args, output);
	zt_symargs_free(&args);
	return status;
}
