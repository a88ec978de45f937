/*
 * zt-archive — keep the binaries and debug files a raw dump needs, by the
 * build-ids the dump recorded, so that zt-symbolize --debug-dir=DIR names
 * the dump correctly after they were rebuilt or deleted.
 *
 *   zt-archive --dir=DIR [--sysroot=ROOT] [FILE]
 *
 * Prints one line per file, "stored DEST SRC" or "present DEST SRC"; a file
 * that cannot be archived (gone, or of another build now) is named on
 * stderr and makes the exit status 1.
 */
#include "archive.h"
#include "raw.h"
#include "usage.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SYSROOT = 256 };

static const struct zt_opt options[] = {
	{ 'd', "dir", required_argument, "DIR", "the archive (created if need be)" },
	{ OPT_SYSROOT, "sysroot", required_argument, "ROOT",
	  "look for the dump's files under ROOT (another machine's\n"
	  "root file system, mounted here)" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-archive -d DIR [--sysroot ROOT] [FILE]",
	"Copy every ELF file a zt raw dump (FILE or stdin) maps, and its separate\n"
	"debug file, into DIR/.build-id/xx/rest (and rest.debug), keyed by the\n"
	"build-ids the dump recorded.",
	options,
	NULL,
};

/*
 * The options, into *dir. Returns 0, or -1 when main is to end at once
 * with *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, const char **dir, const char **sysroot,
			 int *status)
{
	char err[ZT_ERR_MAX];
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'd': *dir = optarg; break;
		case OPT_SYSROOT:
			if (zt_dir_check("--sysroot", optarg, err, sizeof err) < 0) {
				zt_warn("%s", err);
				return -1;
			}
			*sysroot = optarg;
			break;
		default: return zt_usage_end(&usage, c, NULL, status);
		}
	}
	if (argc - optind > 1 || !*dir || !**dir) {
		zt_usage(&usage, stderr);
		return -1;
	}
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *sysroot = NULL;
	struct zt_raw d = { 0 };
	struct zt_archived *a;
	size_t n;
	char err[ZT_ERR_MAX];
	int status;

	zt_setprog(argv[0]);
	if (parse_options(argc, argv, &dir, &sysroot, &status) < 0)
		return status;
	argc -= optind;
	argv += optind;

	argv = zt_usage_inputs(argv, &argc);
	if (zt_raw_load(argv[0], &d, err, sizeof err) < 0 ||
	    zt_archive(&d, dir, sysroot, &a, &n, err, sizeof err) < 0) {
		zt_warn("%s", err);
		zt_raw_free(&d);
		return ZT_EXIT_DATA;
	}
	for (size_t i = 0; i < n; i++) {
		if (a[i].status == ZT_ARCH_SKIPPED) {
			zt_warn("'%s': %s; not archived", a[i].path, a[i].problem);
			status = 1;
		} else {
			printf("%s %s %s\n", a[i].status == ZT_ARCH_STORED ? "stored" : "present",
			       a[i].dest, a[i].path);
		}
	}
	zt_archived_free(a, n);
	zt_raw_free(&d);
	return status;	/* stdout is checked at exit (zt_setprog) */
}
