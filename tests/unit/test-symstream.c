/*
 * test-symstream.c — the pseudo-frames of the symbolized stream, whose
 * names every writer (the stream, lib/pprof.c) takes from symstream.c: a
 * partial stack's root and an off-CPU stack's wait.
 */
#include "unit.h"
#include "out.h"
#include "rawfmt.h"
#include "symstream.h"

#include <stdlib.h>

/* What arena o holds, ended by a NUL (o keeps owning it). */
static char *text_of(struct zt_out *o)
{
	zt_out_byte(o, '\0');
	return o->buf;
}

UNIT_TEST(symstream_names_the_root_of_a_partial_stack)
{
	struct zt_out o = { 0 };

	CHECK_STR(zt_symstream_root_name(ZT_STACK_PARTIAL), "[truncated]");
	CHECK_STR(zt_symstream_root_name(ZT_STACK_DEPTH), "[depth limit]");
	zt_symstream_root(&o, ZT_STACK_DEPTH, 1);
	zt_symstream_root(&o, ZT_STACK_PARTIAL, 0);
	CHECK_STR(text_of(&o), "\t               0 [depth limit] ([unknown])\n"
		  "  [unknown][0]\n"
		  "\t               0 [truncated] ([unknown])\n");
	zt_out_free(&o);
}

UNIT_TEST(symstream_names_a_wait_in_brackets_escaped_as_asked)
{
	struct zt_out o = { 0 };

	zt_symstream_wait_name(&o, "futex", NULL);
	CHECK_STR(text_of(&o), "[futex]");
	o.len = 0;
	zt_symstream_wait_name(&o, "a;b", NULL);
	CHECK_STR(text_of(&o), "[a;b]");
	o.len = 0;
	/* In a stream a ';' would split the folded stack. */
	zt_symstream_wait(&o, "a;b", 1);
	CHECK(strstr(text_of(&o), "a;b") == NULL);
	CHECK(strncmp(o.buf, "\t               0 [a", 20) == 0);
	CHECK(strstr(o.buf, "] ([off-cpu])\n  [off-cpu][0]\n") != NULL);
	zt_out_free(&o);
}
