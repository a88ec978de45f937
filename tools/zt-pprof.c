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
#include "input.h"
#include "pprof.h"
#include "raw.h"
#include "symbolize.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [-o FILE] [FILE]\n"
		"Turn a zt raw dump (FILE or stdin, plain or gzip) into a gzipped pprof\n"
		"profile (profile.proto), for go tool pprof.\n"
		"\n"
		"  -d, --debug-dir=DIR  look for binaries and debug files by build-id in\n"
		"                       DIR/.build-id/ (repeatable; before /usr/lib/debug)\n"
		"  -l, --lines          source lines and inlined frames, from DWARF\n"
		"      --no-demangle    keep C++ and Rust names as they are mangled\n"
		"  -o, --output=FILE    write the profile to FILE, not stdout\n"
		"      --sysroot=DIR    look for the dump's files under DIR\n"
		"  -h, --help           print this help\n"
		"  -V, --version        print the version\n", zt_prog);
	exit(status);
}

/* A directory option must name a directory we can read: else bad usage. */
static void check_dir(const char *opt, const char *dir)
{
	if (zt_dir_check(opt, dir) < 0)
		usage(2);
}

enum { OPT_NO_DEMANGLE = 256, OPT_SYSROOT };

/* Reachable when an error exits, so that LeakSanitizer stays quiet. */
static struct zt_input *in;
static const char **dirs;
static struct zt_dump d;

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "lines", no_argument, NULL, 'l' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "output", required_argument, NULL, 'o' },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct zt_symopts o = { 0 };
	struct zt_symbolizer *s;
	struct zt_pprof *p;
	const char *output = NULL;
	unsigned char *buf;
	size_t len;
	char err[512];
	FILE *out = stdout;
	int c, rc, e;

	zt_setprog(argv[0]);
	dirs = zt_calloc((size_t)argc + 1, sizeof *dirs);
	while ((c = getopt_long(argc, argv, "d:hlo:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			check_dir("--debug-dir", optarg);
			dirs[o.ndebug_dirs++] = optarg;
			break;
		case 'l':
			o.lines = 1;
			break;
		case OPT_NO_DEMANGLE:
			o.no_demangle = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SYSROOT:
			check_dir("--sysroot", optarg);
			o.sysroot = optarg;
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			zt_version();
			return 0;
		default:
			usage(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage(2);
	/* gzip's rule: compressed bytes never go to a terminal. */
	if (!output && isatty(STDOUT_FILENO)) {
		zt_warn("the profile is binary: give -o FILE or redirect stdout");
		usage(2);
	}

	in = zt_input_open(argc ? argv[0] : NULL, err, sizeof err);
	if (!in)
		zt_die(ZT_EXIT_DATA, "%s", err);
	memset(&d, 0, sizeof d);
	if (zt_dump_read(in, &d, err, sizeof err) < 0) {
		if (argc && strcmp(argv[0], "-") != 0 && !zt_input_error(in))
			zt_die(1, "%s: %s", zt_input_name(in), err);
		zt_die(1, "%s", err);
	}
	zt_input_close(in);

	o.debug_dirs = dirs;
	s = zt_symbolizer_new(&d, &o);
	p = zt_pprof_build(&d, s, o.lines);
	buf = zt_pprof_encode(p, &len);

	if (output && !(out = fopen(output, "wb")))
		zt_die(1, "cannot open '%s':", output);
	err[0] = 0;
	rc = zt_pprof_write(buf, len, out, err, sizeof err);
	e = errno;
	if (output && fclose(out) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc < 0) {
		/* No half-written profile is left behind. */
		if (output)
			unlink(output);
		if (err[0])
			zt_die(1, "%s", err);
		errno = e;
		if (output)
			zt_die(1, "cannot write '%s':", output);
		zt_die(1, "cannot write <stdout>:");
	}
	if (!output)
		zt_fshut(stdout, "<stdout>");
	free(buf);
	zt_pprof_free(p);
	zt_symbolizer_free(s);
	zt_dump_free(&d);
	free(dirs);
	return 0;
}
