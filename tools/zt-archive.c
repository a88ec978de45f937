/*
 * zt-archive — keep the binaries and debug files a raw dump needs, by the
 * build-ids the dump recorded, so that zt-symbolize --debug-dir=DIR names
 * the dump correctly after they were rebuilt or deleted.
 *
 *   zt-archive --dir=DIR [FILE]
 *
 * Prints one line per file, "stored DEST SRC" or "present DEST SRC"; a file
 * that cannot be archived (gone, or of another build now) is named on
 * stderr and makes the exit status 1.
 */
#include "archive.h"
#include "input.h"
#include "raw.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s -d DIR [FILE]\n"
		"Copy every ELF file a zt raw dump (FILE or stdin) maps, and its separate\n"
		"debug file, into DIR/.build-id/xx/rest (and rest.debug), keyed by the\n"
		"build-ids the dump recorded.\n"
		"\n"
		"  -d, --dir=DIR    the archive (created if need be)\n"
		"  -h, --help       print this help\n"
		"  -V, --version    print the version\n", zt_prog);
	exit(status);
}

/* Reachable when an error exits, so that LeakSanitizer stays quiet. */
static struct zt_input *in;
static struct zt_dump d;

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	struct zt_archived *a;
	size_t n;
	char err[512];
	int c, status = 0;

	zt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "d:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
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
	if (argc > 1 || !dir || !*dir)
		usage(2);

	in = zt_input_open(argc ? argv[0] : NULL);
	memset(&d, 0, sizeof d);
	if (zt_dump_read(in, &d, err, sizeof err) < 0) {
		if (argc && strcmp(argv[0], "-") != 0)
			zt_die(1, "%s: %s", zt_input_name(in), err);
		zt_die(1, "%s", err);
	}
	zt_input_close(in);
	if (zt_archive(&d, dir, &a, &n, err, sizeof err) < 0)
		zt_die(1, "%s", err);
	for (size_t i = 0; i < n; i++) {
		if (a[i].status == ZT_ARCH_SKIPPED) {
			zt_warn("'%s': %s; not archived", a[i].path, a[i].problem);
			status = 1;
		} else {
			printf("%s %s %s\n", a[i].status == ZT_ARCH_STORED ? "stored" : "present",
			       a[i].dest, a[i].path);
		}
	}
	zt_fshut(stdout, "<stdout>");
	zt_archived_free(a, n);
	zt_dump_free(&d);
	return status;
}
