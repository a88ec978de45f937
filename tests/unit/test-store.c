/*
 * test-store.c — collect/store.c's zt_store_line: the one writer of the raw
 * dump's sample lines, for a CPU sample (the handler's) and an off-CPU one
 * (offcpu.c's), byte for byte as formats/raw.md gives them.
 */
#include "unit.h"
#include "state.h"
#include "store.h"
#include "unwind.h"
#include "rawfmt.h"

static const char *line(const struct zt_store_line *l, char *buf)
{
	*zt_store_line(buf, l) = '\0';
	return buf;
}

UNIT_TEST(store_line_of_a_cpu_sample)
{
	uint64_t addr[] = { 0x401136 | ZT_UNWIND_EXACT, 0x40117b, 0x4011a2 | ZT_UNWIND_EXACT };
	struct zt_store_line l = { .tid = 4242, .count = 1, .when = 1000 + 2526904,
				   .addr = addr, .n = 3 };
	char buf[256];
	uint64_t start = zt_state.start_ns;

	zt_state.start_ns = 1000;
	/* The first address is the pc, exact by definition: no mark. */
	CHECK_STR(line(&l, buf), "4242 1 @2526904 401136 40117b =4011a2\n");
	l.end = ZT_RAW_PARTIAL_MARK;
	l.count = 3;
	CHECK_STR(line(&l, buf), "4242 3 @2526904 401136 40117b =4011a2 -\n");
	/* In a wall dump, weighed by its period. */
	l.weighed = 1;
	l.weight = 1003009;
	l.end = ZT_RAW_DEPTH_MARK;
	CHECK_STR(line(&l, buf), "4242 3 @2526904 ^1003009 401136 40117b =4011a2 +\n");
	/* Before the dump's start (a clock read early): at 0. */
	l.when = 10;
	l.n = 1;
	l.end = 0;
	CHECK_STR(line(&l, buf), "4242 3 @0 ^1003009 401136\n");
	zt_state.start_ns = start;
}

UNIT_TEST(store_line_of_an_off_cpu_sample)
{
	uint64_t addr[] = { 0x7f00123 | ZT_UNWIND_EXACT, 0x401000 };
	struct zt_store_line l = { .tid = 7, .count = 2, .when = 5, .weighed = 1, .weight = 0,
				   .wait = "read\\040fd\\0403\\040pipe", .addr = addr, .n = 2,
				   .mark_first = 1, .end = ZT_RAW_PARTIAL_MARK };
	char buf[256];
	uint64_t start = zt_state.start_ns;

	zt_state.start_ns = 0;
	CHECK_STR(line(&l, buf), "7 2 @5 ^0 !read\\040fd\\0403\\040pipe =7f00123 401000 -\n");
	zt_state.start_ns = start;
}
