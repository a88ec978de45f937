/*
 * test-symargs.c — the options zt-symbolize and zt-pprof share.
 */
#include "unit.h"
#include "symargs.h"

UNIT_TEST(symargs_takes_its_options_and_only_those)
{
	struct zt_symargs a;

	zt_symargs_init(&a, 8);
	CHECK(zt_symargs_take(&a, 'l', NULL, NULL, 0) == 1);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_NO_DEMANGLE, NULL, NULL, 0) == 1);
	CHECK(zt_symargs_take(&a, 'd', "/", NULL, 0) == 1);
	CHECK(zt_symargs_take(&a, 'd', "/tmp", NULL, 0) == 1);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_SYSROOT, "/", NULL, 0) == 1);
	CHECK(zt_symargs_take(&a, 'o', "x", NULL, 0) == 0);
	CHECK(zt_symargs_take(&a, 'm', NULL, NULL, 0) == 0);
	CHECK(zt_symargs_take(&a, 'h', NULL, NULL, 0) == 0);
	CHECK(a.opts.lines == 1);
	CHECK(a.opts.no_demangle == 1);
	CHECK_EQ_U(a.opts.ndebug_dirs, 2);
	CHECK(a.opts.debug_dirs == a.dirs);
	CHECK_STR(a.opts.debug_dirs[0], "/");
	CHECK_STR(a.opts.debug_dirs[1], "/tmp");
	CHECK_STR(a.opts.sysroot, "/");
	zt_symargs_free(&a);
}

UNIT_TEST(symargs_refuses_a_directory_it_cannot_read)
{
	struct zt_symargs a;
	char err[256];

	zt_symargs_init(&a, 2);
	CHECK(zt_symargs_take(&a, 'd', "/nonexistent/zt", err, sizeof err) == -1);
	CHECK_STR(err, "--debug-dir: cannot read '/nonexistent/zt': No such file or directory");
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_SYSROOT, "/nonexistent/zt", err, sizeof err) == -1);
	CHECK_STR(err, "--sysroot: cannot read '/nonexistent/zt': No such file or directory");
	CHECK_EQ_U(a.opts.ndebug_dirs, 0);
	CHECK(a.opts.sysroot == NULL);
	zt_symargs_free(&a);
}

static const struct zt_opt symopts[] = {
	ZT_SYMARGS_ROWS,
	{ 'o', "output", required_argument, "FILE", "write there" },
	{ 0 },
};

static const struct zt_usage symusage = { "zt-x [-l] [-o FILE]", NULL, symopts, NULL };

UNIT_TEST(symargs_getopt_takes_its_own_and_returns_the_tool_s)
{
	char a0[] = "zt-x", a1[] = "-l", a2[] = "-o", a3[] = "f", a4[] = "--no-demangle",
	     a5[] = "-d", a6[] = "/nonexistent/zt", a7[] = "dump";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, NULL };
	struct zt_symargs a;
	char err[256];

	zt_symargs_init(&a, 8);
	optind = 0;
	CHECK(zt_symargs_getopt(8, argv, &symusage, &a, err, sizeof err) == 'o');
	CHECK_STR(optarg, "f");
	CHECK(a.opts.lines == 1);
	CHECK(zt_symargs_getopt(8, argv, &symusage, &a, err, sizeof err) == '?');
	CHECK(a.opts.no_demangle == 1);
	CHECK_STR(err, "--debug-dir: cannot read '/nonexistent/zt': No such file or directory");
	CHECK(zt_symargs_getopt(8, argv, &symusage, &a, err, sizeof err) == -1);
	CHECK_STR(err, "");
	CHECK_STR(argv[optind], "dump");
	zt_symargs_free(&a);
}
