/*
 * test-symargs.c — the options zt-symbolize and zt-pprof share.
 */
#include "unit.h"
#include "symargs.h"

UNIT_TEST(symargs_takes_its_options_and_only_those)
{
	struct zt_symargs a;

	zt_symargs_init(&a, 8);
	CHECK(zt_symargs_take(&a, 'l', NULL) == 1);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_NO_DEMANGLE, NULL) == 1);
	CHECK(zt_symargs_take(&a, 'd', "/") == 1);
	CHECK(zt_symargs_take(&a, 'd', "/tmp") == 1);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_SYSROOT, "/") == 1);
	CHECK(zt_symargs_take(&a, 'o', "x") == 0);
	CHECK(zt_symargs_take(&a, 'm', NULL) == 0);
	CHECK(zt_symargs_take(&a, 'h', NULL) == 0);
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
	FILE *saved = stderr;

	zt_symargs_init(&a, 2);
	stderr = fopen("/dev/null", "w");	/* zt_dir_check's message */
	CHECK(zt_symargs_take(&a, 'd', "/nonexistent/zt") == -1);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_SYSROOT, "/nonexistent/zt") == -1);
	fclose(stderr);
	stderr = saved;
	CHECK_EQ_U(a.opts.ndebug_dirs, 0);
	CHECK(a.opts.sysroot == NULL);
	zt_symargs_free(&a);
}
