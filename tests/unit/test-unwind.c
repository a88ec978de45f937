/*
 * test-unwind.c — the unwinder's frame-pointer mode on fake stacks: a good chain, garbage
 * in the frame pointer, a loop, a downward pointer, the depth limit.
 */
#include "unit.h"
#include "unwind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The frame-pointer mode of zt_unwind, from a frame pointer, sp at low. */
static size_t zt_walk(uintptr_t pc, uintptr_t fp, uintptr_t low, uintptr_t high,
		      uint64_t *out, size_t max, int *truncated)
{
	struct zt_regs r = { pc, low, fp, low, high, 0, { { 0 } }, 0, 0 };
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

/* A zero where a return address should be ends the walk, cut short: not an entry. */
UNIT_TEST(a_zero_return_address_is_a_partial_stack)
{
	uintptr_t stack[8] = { 0 };
	uintptr_t base = (uintptr_t)stack, high = base + sizeof stack;
	struct zt_regs r = { 0x1000, base, base, base, high, 0, { { 0 } }, 0, 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	stack[0] = base + 4 * W;	/* a caller's frame above */
	stack[1] = 0;			/* and no return address */
	CHECK_EQ_U(zt_unwind(&r, NULL, ZT_UNWIND_FP, out, 8, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	/* A saved frame pointer of 0 with a return address: the outermost frame. */
	stack[0] = 0;
	stack[1] = 0x2000;
	CHECK_EQ_U(zt_unwind(&r, NULL, ZT_UNWIND_FP, out, 8, &end), 2);
	CHECK(end == ZT_UNWIND_COMPLETE);
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
	struct zt_regs r = { 0x1000, fake, fake, base, high, 0, { { 0 } }, 0, 0 };
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

/*
 * Frame-pointer steps in auto mode, checked against the loaded objects'
 * segments: code[] stands for an object's executable segment (calls at
 * known places), got[] for its data (a PLT slot), and cfi_rows for a
 * function with CFI at code + 64.
 */
static unsigned char code[128];
static uintptr_t got[2];
static const struct zt_cfi_row callee_rows[] = {
	{ 0x00, 16, 0, ZT_CFA_SP, ZT_REG_SAME, 0, 0 },	/* a function with CFI */
	{ 0x10, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
};
static struct zt_cfi_table callee_table = { .lo = 0, .hi = 0, .key = 1,
	.nrows = 2, .rows = callee_rows };

#define C(off) ((uintptr_t)code + (off))

static void put_rel32(unsigned char *p, uintptr_t from, uintptr_t to)
{
	uint32_t v = (uint32_t)(to - from);

	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* code: e8 to +100 (no CFI) ending at +15, ff d0 ending at +22, e8 to the CFI function ending at
 * +35, e8 to a PLT entry ending at +45, nops at +50, the CFI function at +64, the PLT entry at +80. */
static void make_code(void)
{
	memset(code, 0x90, sizeof code);
	code[10] = 0xe8;
	put_rel32(code + 11, C(15), C(100));
	code[20] = 0xff;
	code[21] = 0xd0;
	code[30] = 0xe8;
	put_rel32(code + 31, C(35), C(64));
	code[40] = 0xe8;
	put_rel32(code + 41, C(45), C(80));
	code[80] = 0xff;	/* jmp *got[0](%rip) */
	code[81] = 0x25;
	put_rel32(code + 82, C(86), (uintptr_t)&got[0]);
	callee_table.lo = C(64);
	callee_table.hi = C(80);
}

static struct zt_cfi_set *checked_set(void)
{
	struct zt_cfi_set *s = calloc(1, sizeof *s + sizeof s->t[0]);
	static struct zt_cfi_seg seg[2];

	if (!s)
		return NULL;
	make_code();
	seg[0] = (struct zt_cfi_seg){ C(0), C(sizeof code), 1 };
	seg[1] = (struct zt_cfi_seg){ (uintptr_t)got, (uintptr_t)(got + 2), 0 };
	if (seg[1].lo < seg[0].lo) {
		struct zt_cfi_seg x = seg[0];

		seg[0] = seg[1];
		seg[1] = x;
	}
	s->nseg = 2;
	s->seg = seg;
	s->n = 1;
	s->t[0] = &callee_table;
	return s;
}

/* An auto-mode walk from pc C(100) (no CFI) with frame records at stack[2] and stack[6]. */
static size_t checked_walk(struct zt_cfi_set *s, uintptr_t *stack, size_t words, uintptr_t ra1,
			   uintptr_t ra2, uint64_t *out, enum zt_unwind_end *end)
{
	uintptr_t base = (uintptr_t)stack;
	struct zt_regs r = { C(100), base, base + 2 * W, base, base + words * W, 0, { { 0 } }, 0, 0 };
	size_t n;

	stack[2] = base + 6 * W;
	stack[3] = ra1;
	stack[6] = 0;		/* the outermost frame */
	stack[7] = ra2;
	n = zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, end);
	for (size_t i = 0; i < n; i++)
		out[i] &= ~ZT_UNWIND_EXACT;
	return n;
}

UNIT_TEST(auto_takes_frame_pointer_steps_that_follow_a_call)
{
	struct zt_cfi_set *s = checked_set();
	uintptr_t stack[16] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	if (!s)
		return;
	CHECK_EQ_U(checked_walk(s, stack, 16, C(15), C(22), out, &end), 3);
	CHECK_EQ_U(out[1], C(15));
	CHECK_EQ_U(out[2], C(22));
	CHECK(end == ZT_UNWIND_COMPLETE);
	/* A set that does not know its segments checks nothing: the stack is a guess. */
	s->nseg = 0;
	CHECK_EQ_U(checked_walk(s, stack, 16, 0x6c6c6c6c6c6c, 0x1234, out, &end), 3);
	CHECK(end == ZT_UNWIND_PARTIAL);
	CHECK_EQ_U(checked_walk(NULL, stack, 16, C(15), C(22), out, &end), 3);
	CHECK(end == ZT_UNWIND_PARTIAL);
	free(s);
}

UNIT_TEST(auto_ends_at_a_return_address_outside_code_or_after_no_call)
{
	struct zt_cfi_set *s = checked_set();
	uintptr_t stack[16] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	if (!s)
		return;
	/* String bytes, as a frame of a C++ exception's stack gave. */
	CHECK_EQ_U(checked_walk(s, stack, 16, 0x6c6c6c6c6c6c, C(22), out, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	/* In code, but after nops: no call put it there. */
	CHECK_EQ_U(checked_walk(s, stack, 16, C(55), C(22), out, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	/* The outermost step is checked too. */
	CHECK_EQ_U(checked_walk(s, stack, 16, C(15), C(55), out, &end), 2);
	CHECK(end == ZT_UNWIND_PARTIAL);
	free(s);
}

/*
 * A leaf without CFI that set up no frame: rbp still holds its caller's
 * record, whose return address follows a call to the caller (a function
 * with CFI), directly or through the PLT. Taking it would skip the caller.
 */
UNIT_TEST(auto_refuses_a_record_whose_call_reached_a_function_with_cfi)
{
	struct zt_cfi_set *s = checked_set();
	uintptr_t stack[16] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	if (!s)
		return;
	CHECK_EQ_U(checked_walk(s, stack, 16, C(35), C(22), out, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	got[0] = C(64);		/* the PLT slot names the CFI function */
	CHECK_EQ_U(checked_walk(s, stack, 16, C(45), C(22), out, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	got[0] = C(100);	/* a function without CFI: this frame's */
	CHECK_EQ_U(checked_walk(s, stack, 16, C(45), C(22), out, &end), 3);
	CHECK(end == ZT_UNWIND_COMPLETE);
	free(s);
}

/* While a dlclose may unmap code, none is read: the steps are taken as guesses. */
UNIT_TEST(auto_reads_no_code_while_told_not_to)
{
	struct zt_cfi_set *s = checked_set();
	uintptr_t stack[16] = { 0 }, base = (uintptr_t)stack;
	struct zt_regs r = { C(100), base, base + 2 * W, base, base + 16 * W, 0, { { 0 } }, 1, 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	if (!s)
		return;
	stack[2] = base + 6 * W;
	stack[3] = C(55);	/* after no call: a code read would refuse it */
	stack[6] = 0;
	stack[7] = C(22);
	CHECK_EQ_U(zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, &end), 3);
	CHECK(end == ZT_UNWIND_PARTIAL);
	r.no_code = 0;
	CHECK_EQ_U(zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, &end), 1);
	free(s);
}

/* A step into a function with CFI: its row, from the new sp, must lead to code again. */
UNIT_TEST(auto_checks_the_caller_s_row_against_the_frame_it_lands_in)
{
	static const struct zt_cfi_row rows[] = {
		{ 0x00, 16, 0, ZT_CFA_SP, ZT_REG_SAME, 0, 0 },
		{ 0x10, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
	};
	struct zt_cfi_table caller = { .lo = 0, .hi = 0, .key = 3, .nrows = 2, .rows = rows };
	struct zt_cfi_set *s = checked_set();
	uintptr_t stack[16] = { 0 }, base = (uintptr_t)stack;
	struct zt_regs r = { C(100), base, base + 2 * W, base, base + 16 * W, 0, { { 0 } }, 0, 0 };
	uint64_t out[8];
	enum zt_unwind_end end;

	if (!s)
		return;
	/* The caller: [+8, +24), holding the ff d0 call that ends at +22; the callee table after it. */
	caller.lo = C(8);
	caller.hi = C(24);
	s->t[0] = &caller;
	stack[2] = 0x77;	/* a saved rbp the caller does not use */
	stack[3] = C(22);
	stack[5] = 0x6c6c6c6c6c6c;	/* at the caller's CFA - 8 (sp 4W, CFA sp + 16) */
	CHECK_EQ_U(zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, &end), 1);
	CHECK(end == ZT_UNWIND_PARTIAL);
	stack[5] = 0;		/* the caller's caller: 0, taken, but no entry */
	CHECK_EQ_U(zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, &end), 2);
	CHECK(end == ZT_UNWIND_PARTIAL);
	stack[5] = C(15);	/* or code after a call */
	CHECK(zt_unwind(&r, s, ZT_UNWIND_AUTO, out, 8, &end) >= 3);
	free(s);
}
