/*
 * test-debuginfod.c — the debuginfod session without a server: off when
 * DEBUGINFOD_URLS is unset or empty or --no-debuginfod says so, a build-id
 * that is not hex never asked, and a dead server said once, without the
 * password of its URL, nothing more asked after it. A real server:
 * tests/0750-debuginfod.bats.
 */
#include "unit.h"
#include "debuginfod.h"
#include "symargs.h"

#include <stdlib.h>
#include <string.h>

/* Set DEBUGINFOD_URLS to v (NULL: unset); the old value, to put back. */
static char *set_urls(const char *v)
{
	const char *old = getenv("DEBUGINFOD_URLS");
	char *keep = old ? strdup(old) : NULL;

	if (v)
		setenv("DEBUGINFOD_URLS", v, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	return keep;
}

static void put_back(char *old)
{
	if (old)
		setenv("DEBUGINFOD_URLS", old, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	free(old);
}

UNIT_TEST(debuginfod_is_off_without_urls)
{
	char *old = set_urls(NULL);
	struct zt_symargs a;

	CHECK(zt_debuginfod_new() == NULL);
	setenv("DEBUGINFOD_URLS", " \t", 1);
	CHECK(zt_debuginfod_new() == NULL);
	zt_symargs_init(&a, 1);
	CHECK(a.opts.debuginfod == NULL);
	zt_symargs_free(&a);
	/* NULL is a session that never asks. */
	CHECK(zt_debuginfod_report(NULL) == NULL);
	put_back(old);
}

UNIT_TEST(debuginfod_no_debuginfod_ends_the_session)
{
	char *old = set_urls("http://127.0.0.1:1");
	struct zt_symargs a;

	zt_symargs_init(&a, 2);
	CHECK(a.opts.debuginfod != NULL);
	CHECK(zt_symargs_take(&a, ZT_SYMARGS_NO_DEBUGINFOD, NULL, NULL, 0) == 1);
	CHECK(a.opts.debuginfod == NULL);
	zt_symargs_free(&a);
	put_back(old);
}

UNIT_TEST(debuginfod_a_dead_server_is_said_once_without_a_password)
{
	/* Port 1 of the loopback: nobody listens, the connection is refused. */
	char *old = set_urls("http://zt:s3cret@127.0.0.1:1");
	char cache[256];
	struct zt_debuginfod *df;
	struct zt_elf e = { 0 };
	char *line;

	CHECK(unit_dir() != NULL);
	snprintf(cache, sizeof cache, "%s/debuginfod-cache", unit_dir());
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	df = zt_debuginfod_new();
	CHECK(df != NULL);
	CHECK(zt_debuginfod_report(df) == NULL);
	/* Not a build-id: never asked, never said. */
	CHECK(zt_debuginfod_open(df, "../../etc/passwd", ZT_DEBUGINFOD_EXECUTABLE, "/x", &e) < 0);
	CHECK(zt_debuginfod_open(df, "0123ABCD", ZT_DEBUGINFOD_EXECUTABLE, "/x", &e) < 0);
	CHECK(zt_debuginfod_report(df) == NULL);
	CHECK(zt_debuginfod_open(df, "0123abcd", ZT_DEBUGINFOD_EXECUTABLE,
				 "/usr/lib/libx.so.1", &e) < 0);
	CHECK(zt_debuginfod_open(df, "0123abcd", ZT_DEBUGINFOD_DEBUGINFO,
				 "/usr/lib/libx.so.1", &e) < 0);
	CHECK(zt_debuginfod_open(df, "4567", ZT_DEBUGINFOD_DEBUGINFO, "/usr/bin/y", &e) < 0);
	line = zt_debuginfod_report(df);
	CHECK_STR(line, "debuginfod: 'libx.so.1': not fetched; 'y': debug file not fetched; "
		  "no answer from 'http://127.0.0.1:1' (Connection refused): nothing more asked");
	free(line);
	/* Asked again: the same answer, not asked, not said again. */
	CHECK(zt_debuginfod_open(df, "0123abcd", ZT_DEBUGINFOD_EXECUTABLE,
				 "/usr/lib/libx.so.1", &e) < 0);
	CHECK(zt_debuginfod_report(df) == NULL);
	/* Asked after the failure: not asked, and said so. */
	CHECK(zt_debuginfod_open(df, "89ab", ZT_DEBUGINFOD_EXECUTABLE, "/usr/bin/z", &e) < 0);
	line = zt_debuginfod_report(df);
	CHECK_STR(line, "debuginfod: 'z': executable not fetched; the servers failed before: "
		  "nothing more asked");
	free(line);
	zt_debuginfod_free(df);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	put_back(old);
}
