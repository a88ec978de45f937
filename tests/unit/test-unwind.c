/*
 * test-unwind.c — the unwinder's frame-pointer mode on fake stacks: a good chain, garbage
 * in the frame pointer, a loop, a downward pointer, the depth limit.
 */
#include "unit.h"
#include "unwind.h"

#include <stdint.h>

/* The frame-pointer mode of zt_unwind, from a frame pointer, sp at low. */
static size_t zt_walk(uintptr_t pc, uintptr_t fp, uintptr_t low, uintptr_t high,
		      uint64_t *out, size_t max, int *truncated)
{
	struct zt_regs r = { pc, low, fp, low, high, 0, { { 0 } } };
	enum zt_unwind_end end;
	size_t n = zt_unwind(&r, NULL, ZT_UNWIND_FP, out, max, &end);

	*truncated = end == ZT_UNWIND_DEPTH;
	for (size_t i = 0; i < n; i++)
		out[i] &= ~ZT_UNWIND_EXACT;
	return n;
}

#define W sizeof(uintptr_t)

UNIT_TEST(walk_follows_a_good_chain)
{
	uintptr_t stack[16] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[8];
	int trunc;
	size_t n;

	/* Leaf frame at word 2, its caller's at 6, then 10 (the outermost). */
	stack[2] = base + 6 * W;
	stack[3] = 0x2000;
	stack[6] = base + 10 * W;
	stack[7] = 0x3000;
	stack[10] = 0;
	stack[11] = 0x4000;
	n = zt_walk(0x1000, base + 2 * W, base, high, out, 8, &trunc);
	CHECK_EQ_U(n, 4);
	CHECK_EQ_U(out[0], 0x1000);
	CHECK_EQ_U(out[1], 0x2000);
	CHECK_EQ_U(out[2], 0x3000);
	CHECK_EQ_U(out[3], 0x4000);
	CHECK(!trunc);
}

UNIT_TEST(walk_stops_at_garbage_frame_pointers)
{
	uintptr_t stack[8] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[8];
	int trunc;

	CHECK_EQ_U(zt_walk(0x1000, 0, base, high, out, 8, &trunc), 1);		/* null */
	CHECK_EQ_U(zt_walk(0x1000, base + 3, base, high, out, 8, &trunc), 1);	/* unaligned */
	CHECK_EQ_U(zt_walk(0x1000, high + 64, base, high, out, 8, &trunc), 1);	/* above */
	CHECK_EQ_U(zt_walk(0x1000, base - 16, base, high, out, 8, &trunc), 1);	/* below */
	CHECK_EQ_U(zt_walk(0x1000, high - W, base, high, out, 8, &trunc), 1);	/* pair cut */
	CHECK_EQ_U(out[0], 0x1000);
}

UNIT_TEST(walk_stops_at_a_loop)
{
	uintptr_t stack[8] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[8];
	int trunc;
	size_t n;

	stack[4] = base + 4 * W;	/* points at itself */
	stack[5] = 0x2000;
	n = zt_walk(0x1000, base + 4 * W, base, high, out, 8, &trunc);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(out[1], 0x2000);
}

UNIT_TEST(walk_stops_at_a_downward_pointer)
{
	uintptr_t stack[12] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[8];
	int trunc;
	size_t n;

	stack[6] = base + 2 * W;	/* the "caller" sits below */
	stack[7] = 0x2000;
	stack[2] = base + 8 * W;
	stack[3] = 0x3000;
	n = zt_walk(0x1000, base + 6 * W, base, high, out, 8, &trunc);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(out[1], 0x2000);
}

UNIT_TEST(walk_is_bounded_by_depth)
{
	uintptr_t stack[16] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[3];
	int trunc;

	for (int i = 0; i < 7; i++) {
		stack[2 * i] = base + (uintptr_t)(2 * i + 2) * W;
		stack[2 * i + 1] = 0x100 * (uintptr_t)(i + 1);
	}
	CHECK_EQ_U(zt_walk(0x1, base, base, high, out, 3, &trunc), 3);
	CHECK(trunc);
	CHECK_EQ_U(out[2], 0x200);
	CHECK_EQ_U(zt_walk(0x1, base, base, high, out, 0, &trunc), 0);
}

UNIT_TEST(walk_stops_at_a_zero_return_address)
{
	uintptr_t stack[8] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	uint64_t out[8];
	int trunc;

	stack[0] = base + 4 * W;
	stack[1] = 0;
	CHECK_EQ_U(zt_walk(0x1000, base, base, high, out, 8, &trunc), 1);
}

/*
 * Two stacks: a copied one (a coroutine's, read from its copy at a fake
 * address) whose frames lead into the thread's, which is read in place.
 */
UNIT_TEST(walk_goes_from_a_copied_stack_into_the_thread_stack_once)
{
	uintptr_t thread[8] = { 0 }, copy[8] = { 0 };
	uintptr_t base = (uintptr_t)thread, high = base + sizeof thread;
	uintptr_t fake = 0x7000000;	/* where the copied stack "was"; never read */
	struct zt_regs r = { 0x1000, fake, fake, base, high, 0, { { 0 } } };
	uint64_t out[8];
	enum zt_unwind_end end;
	size_t n;

	r.extra[1].lo = fake;
	r.extra[1].hi = fake + sizeof copy;
	r.extra[1].copy = (const unsigned char *)copy;
	copy[0] = fake + 4 * W;		/* leaf's frame: caller's at word 4 of the copy */
	copy[1] = 0x2000;
	copy[4] = base + 2 * W;		/* then into the thread's stack */
	copy[5] = 0x3000;
	thread[2] = 0;			/* the outermost frame */
	thread[3] = 0x4000;
	n = zt_unwind(&r, NULL, ZT_UNWIND_FP, out, 8, &end);
	CHECK_EQ_U(n, 4);
	CHECK_EQ_U(out[1], 0x2000);
	CHECK_EQ_U(out[2], 0x3000);
	CHECK_EQ_U(out[3], 0x4000);
	CHECK(end == ZT_UNWIND_COMPLETE);

	/* Back into the copy from the thread's stack: a region seen already. */
	thread[2] = fake + 6 * W;
	copy[6] = 0;
	copy[7] = 0x5000;
	n = zt_unwind(&r, NULL, ZT_UNWIND_FP, out, 8, &end);
	CHECK_EQ_U(n, 4);	/* 0x4000, then the frame in the copy is refused */
	CHECK(end == ZT_UNWIND_PARTIAL);

	/* A frame outside every region ends the walk as partial. */
	thread[2] = 0x9000000;
	n = zt_unwind(&r, NULL, ZT_UNWIND_FP, out, 8, &end);
	CHECK_EQ_U(n, 4);
	CHECK(end == ZT_UNWIND_PARTIAL);
}
