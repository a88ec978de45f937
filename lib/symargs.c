/*
 * symargs.c — the symbolizer's options, shared by zt-symbolize and the
 * analysis tools.
 */
#include "symargs.h"
#include "debuginfod.h"
#include "event.h"
#include "util.h"

#include <stdlib.h>

void zt_symargs_init(struct zt_symargs *a, int argc)
{
	*a = (struct zt_symargs){ 0 };
	/* Every word may be a --debug-dir. */
	a->dirs = zt_calloc((size_t)argc + 1, sizeof *a->dirs);
	a->opts.debug_dirs = a->dirs;
	a->opts.debuginfod = zt_debuginfod_new();
}

int zt_symargs_take(struct zt_symargs *a, int c, const char *arg, char *err, size_t errlen)
{
	switch (c) {
	case 'd':
		/* A directory that cannot be read is a mistake in the command,
		 * not a file to warn about later, once per binary. */
		if (zt_dir_check("--debug-dir", arg, err, errlen) < 0)
			return -1;
		a->dirs[a->opts.ndebug_dirs++] = arg;
		return 1;
	case 'l':
		a->opts.lines = 1;
		return 1;
	case ZT_SYMARGS_NO_DEMANGLE:
		a->opts.no_demangle = 1;
		return 1;
	case ZT_SYMARGS_SYSROOT:
		if (zt_dir_check("--sysroot", arg, err, errlen) < 0)
			return -1;
		a->opts.sysroot = arg;
		return 1;
	case ZT_SYMARGS_EVENT: {
		int v = zt_view_by_name(arg);

		if (v < 0) {
			zt_errf(err, errlen, "--event wants " ZT_VIEW_NAMES ", not '%s'", arg);
			return -1;
		}
		a->opts.view = v;
		return 1;
	}
	case ZT_SYMARGS_NO_DEBUGINFOD:
		zt_debuginfod_free(a->opts.debuginfod);
		a->opts.debuginfod = NULL;
		return 1;
	}
	return 0;
}

int zt_symargs_getopt(int argc, char **argv, const struct zt_usage *u,
		      struct zt_symargs *a, char *err, size_t errlen)
{
	int c, taken;

	zt_errf(err, errlen, "%s", "");
	while ((c = zt_usage_getopt(argc, argv, u)) != -1) {
		taken = zt_symargs_take(a, c, optarg, err, errlen);
		if (taken < 0)
			return '?';
		if (taken == 0)
			return c;
	}
	return -1;
}

void zt_symargs_free(struct zt_symargs *a)
{
	free(a->dirs);
	zt_debuginfod_free(a->opts.debuginfod);
	*a = (struct zt_symargs){ 0 };
}
