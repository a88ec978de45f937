/*
 * test-cfi.c — the CFI compiler (collect/cfi.c) on .eh_frame_hdr and
 * .eh_frame built by hand: the rows of a frame-pointer function, a leaf,
 * remember/restore_state, an outermost frame, a signal trampoline, the PLT
 * expression, gaps; malformed CIEs and FDEs skipped and counted while the
 * others still compile; a lazy table's lookups, which must give the same
 * rows. Then zt_unwind in CFI mode on fake stacks with a
 * hand-made table.
 */
#include "unit.h"
#include "cfi.h"
#include "unwind.h"

#include <stdint.h>
#include <stdlib.h>

/* The image's run-time address; pc-relative pointers are made from it. */
#define ADDR 0x400000u

/* An image being built: .eh_frame_hdr at 0, then .eh_frame. */
struct blob {
	unsigned char b[2048];
	size_t n;
};

static void put(struct blob *x, const void *p, size_t n)
{
	if (n > 0)	/* p may be NULL then, which memcpy does not allow */
		memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put8(struct blob *x, unsigned v)
{
	x->b[x->n++] = (unsigned char)v;
}

static void put32_at(struct blob *x, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		x->b[at + (size_t)i] = (unsigned char)(v >> 8 * i);
}

static void put32(struct blob *x, uint32_t v)
{
	put32_at(x, x->n, v);
	x->n += 4;
}

/* A header whose eh_frame_ptr (pcrel sdata4) points just after it, at 8. */
static void hdr(struct blob *x)
{
	x->n = 0;
	put8(x, 1);		/* version */
	put8(x, 0x1b);		/* eh_frame_ptr: pcrel sdata4 */
	put8(x, 0xff);		/* no fde_count */
	put8(x, 0xff);		/* no table */
	put32(x, 8 - 4);	/* from the field at 4 */
}

/* Pad the record that starts at rec to a multiple of 4 and set its length. */
static void close_record(struct blob *x, size_t rec)
{
	while ((x->n - rec) % 4 != 0)
		put8(x, 0);	/* DW_CFA_nop */
	put32_at(x, rec, (uint32_t)(x->n - rec - 4));
}

/* The usual initial rules: CFA = rsp + 8, return address at CFA - 8. */
static const unsigned char cie_insns[] = { 0x0c, 7, 8, 0x90, 1 };

/*
 * A CIE with augmentation aug ("zR", "zRS" or anything else), code
 * alignment 1, data alignment -8, FDE pointers pcrel sdata4. Returns its
 * offset.
 */
static size_t cie(struct blob *x, const char *aug, const unsigned char *insns, size_t n)
{
	size_t rec = x->n;

	put32(x, 0);		/* length, set below */
	put32(x, 0);		/* CIE id */
	put8(x, 1);		/* version */
	put(x, aug, strlen(aug) + 1);
	put8(x, 1);		/* code alignment */
	put8(x, 0x78);		/* data alignment: sleb -8 */
	put8(x, 16);		/* return address column */
	if (aug[0] == 'z') {
		put8(x, 1);	/* augmentation data: the 'R' encoding */
		put8(x, 0x1b);
	}
	put(x, insns, n);
	close_record(x, rec);
	return rec;
}

static size_t std_cie(struct blob *x)
{
	return cie(x, "zR", cie_insns, sizeof cie_insns);
}

/* An FDE of CIE c for [pc, pc + len). Returns its offset. */
static size_t fde(struct blob *x, size_t c, uint32_t pc, uint32_t len,
		  const unsigned char *insns, size_t n)
{
	size_t rec = x->n;

	put32(x, 0);
	put32(x, (uint32_t)(x->n - c));			/* CIE pointer */
	put32(x, pc - (uint32_t)(ADDR + x->n));		/* pc begin, pcrel */
	put32(x, len);
	put8(x, 0);					/* no augmentation data */
	put(x, insns, n);
	close_record(x, rec);
	return rec;
}

static struct zt_cfi_table *build(struct blob *x, struct zt_cfi_stats *st)
{
	struct zt_cfi_image img = { x->b, x->n, ADDR, ADDR, 0, { { 0, 0 } } };

	return zt_cfi_build(&img, st);
}

/* Whether the row at pc is exactly this one. */
static int row_is(const struct zt_cfi_table *t, uintptr_t pc, int kind, int off,
		  int rbp, int arg)
{
	const struct zt_cfi_row *r = zt_cfi_row_at(t, pc);

	if (!r) {
		fprintf(stderr, "  no row at %#lx\n", (unsigned long)pc);
		return 0;
	}
	if (r->kind != kind || r->cfa_off != off || r->fp != rbp || r->arg != arg) {
		fprintf(stderr, "  row at %#lx: kind %d off %d rbp %d arg %d\n",
			(unsigned long)pc, r->kind, r->cfa_off, r->fp, r->arg);
		return 0;
	}
	return 1;
}

/* push %rbp; mov %rsp,%rbp; ...; leave; ret, over [0x1000, 0x1020). */
static const unsigned char fp_insns[] = {
	0x41, 0x0e, 16, 0x86, 2,	/* +1: CFA rsp+16, rbp at CFA-16 */
	0x43, 0x0d, 6,			/* +3: CFA rbp+16 */
	0x58, 0x0c, 7, 8,		/* +0x18: CFA rsp+8 (after leave) */
};

/* A frame-pointer function (0x1000) and a frameless leaf (0x1040). */
static void two_functions(struct blob *x)
{
	size_t c;

	hdr(x);
	c = std_cie(x);
	fde(x, c, 0x1000, 0x20, fp_insns, sizeof fp_insns);
	fde(x, c, 0x1040, 0x10, NULL, 0);
}

UNIT_TEST(cfi_frame_pointer_function_and_leaf)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;

	two_functions(&x);
	put32(&x, 0);	/* terminator */
	t = build(&x, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 2);
	CHECK_EQ_U(st.skipped, 0);
	CHECK_EQ_U(st.bad_rows, 0);
	CHECK_EQ_U(t->lo, 0x1000);
	CHECK_EQ_U(t->hi, 0x1050);
	CHECK_EQ_U(t->key, ADDR);
	CHECK(row_is(t, 0x1000, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1001, ZT_CFA_SP, 16, ZT_REG_SAVED, -16));
	CHECK(row_is(t, 0x1003, ZT_CFA_SP, 16, ZT_REG_SAVED, -16));
	CHECK(row_is(t, 0x1004, ZT_CFA_FP, 16, ZT_REG_SAVED, -16));
	CHECK(row_is(t, 0x101b, ZT_CFA_FP, 16, ZT_REG_SAVED, -16));
	CHECK(row_is(t, 0x101c, ZT_CFA_SP, 8, ZT_REG_SAVED, -16));
	CHECK(row_is(t, 0x101f, ZT_CFA_SP, 8, ZT_REG_SAVED, -16));
	/* The gap between the two FDEs, and outside both. */
	CHECK(zt_cfi_row_at(t, 0x1020) == NULL);
	CHECK(zt_cfi_row_at(t, 0x103f) == NULL);
	CHECK(zt_cfi_row_at(t, 0x0fff) == NULL);
	CHECK(zt_cfi_row_at(t, 0x1050) == NULL);
	CHECK(row_is(t, 0x1040, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x104f, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	/* Rows: 0x1000, 0x1001, 0x1004, 0x101c, the gap, the leaf, the end. */
	CHECK_EQ_U(t->nrows, 7);
	zt_cfi_free(t);
}

/* An FDE that claims 2 GiB, past its object's code: rejected, counted, the rest kept. */
UNIT_TEST(cfi_fde_outside_the_object_s_code_is_rejected)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_image img;
	struct zt_cfi_table *t;
	size_t c;

	hdr(&x);
	c = std_cie(&x);
	fde(&x, c, 0x1000, 0x20, fp_insns, sizeof fp_insns);
	fde(&x, c, 0x1040, 0x7ffff000u, NULL, 0);	/* the patched one: 2 GiB */
	fde(&x, c, 0x1080, 0x10, NULL, 0);
	fde(&x, c, 0x0800, 0x10, NULL, 0);		/* below the code */
	put32(&x, 0);
	img = (struct zt_cfi_image){ x.b, x.n, ADDR, ADDR, 1, { { 0x1000, 0x2000 } } };
	t = zt_cfi_build(&img, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 2);
	CHECK_EQ_U(st.skipped, 2);
	CHECK_EQ_U(t->lo, 0x1000);
	CHECK_EQ_U(t->hi, 0x1090);
	/* Where the rejected one starts, up to the next: a row that trusts nothing. */
	CHECK(zt_cfi_row_at(t, 0x1040) && zt_cfi_row_at(t, 0x1040)->kind == ZT_CFA_BAD);
	CHECK(zt_cfi_row_at(t, 0x107f) && zt_cfi_row_at(t, 0x107f)->kind == ZT_CFA_BAD);
	CHECK(zt_cfi_row_at(t, 0x1030) == NULL);
	CHECK(row_is(t, 0x1080, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	zt_cfi_free(t);
	/* Without the segments (ntext 0) nothing is checked: the 2 GiB one stays. */
	img.ntext = 0;
	t = zt_cfi_build(&img, &st);
	CHECK(t != NULL && t->hi == 0x1040 + 0x7ffff000u);
	zt_cfi_free(t);
}

/*
 * A header with a search table of n entries (datarel sdata4 pairs, filled by
 * search_entry), .eh_frame just after it.
 */
static void hdr_search(struct blob *x, uint32_t n)
{
	x->n = 0;
	put8(x, 1);		/* version */
	put8(x, 0x1b);		/* eh_frame_ptr: pcrel sdata4 */
	put8(x, 0x03);		/* fde_count: udata4 */
	put8(x, 0x3b);		/* table: datarel sdata4 */
	put32(x, 12 + 8 * n - 4);	/* from the field at 4 */
	put32(x, n);
	for (uint32_t i = 0; i < 2 * n; i++)
		put32(x, 0);
}

static void search_entry(struct blob *x, uint32_t i, uint32_t pc, size_t fde_at)
{
	put32_at(x, 12 + 8 * i, pc - ADDR);		/* from the header, at ADDR */
	put32_at(x, 12 + 8 * i + 4, (uint32_t)fde_at);
}

UNIT_TEST(cfi_lazy_lookups_agree_with_the_compiled_rows)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_image img;
	struct zt_cfi_table *t, *lazy;
	struct zt_cfi_row row;
	size_t c, a, empty, bad, last;
	uint64_t rejected = 0;
	int differ = 0;

	hdr_search(&x, 4);
	c = std_cie(&x);
	a = fde(&x, c, ADDR + 0x1000, 0x20, fp_insns, sizeof fp_insns);
	/* An empty FDE before the real one at its pc, which the table does not list (libLLVM's). */
	empty = fde(&x, c, ADDR + 0x1040, 0, NULL, 0);
	fde(&x, c, ADDR + 0x1040, 0x10, NULL, 0);
	bad = fde(&x, c, ADDR + 0x1080, 0x7ffff000u, NULL, 0);	/* rejected: 2 GiB */
	last = fde(&x, c, ADDR + 0x10c0, 0x10, NULL, 0);
	put32(&x, 0);
	search_entry(&x, 0, ADDR + 0x1000, a);
	search_entry(&x, 1, ADDR + 0x1040, empty);
	search_entry(&x, 2, ADDR + 0x1080, bad);
	search_entry(&x, 3, ADDR + 0x10c0, last);
	img = (struct zt_cfi_image){ x.b, x.n, ADDR, ADDR, 1, { { ADDR + 0x1000, ADDR + 0x2000 } } };
	CHECK(zt_cfi_lazy(&img, 5) == NULL);	/* fewer entries than asked for */
	t = zt_cfi_build(&img, &st);
	lazy = zt_cfi_lazy(&img, 4);
	CHECK(t != NULL && lazy != NULL);
	if (!t || !lazy)
		return;
	CHECK(lazy->lazy && lazy->nrows == 0);
	lazy->nrejected = &rejected;
	/* Nothing is read without leave to read the image; nothing is kept either. */
	CHECK(zt_cfi_lookup(lazy, ADDR + 0x1000, 0, &row) == 0);
	for (uintptr_t pc = ADDR + 0xff0; pc < ADDR + 0x10e0; pc++) {
		const struct zt_cfi_row *want = zt_cfi_row_at(t, pc);
		int have = zt_cfi_lookup(lazy, pc, 1, &row);

		if (have != (want != NULL) || (have && (row.kind != want->kind ||
		    row.cfa_off != want->cfa_off || row.fp != want->fp || row.arg != want->arg))) {
			if (differ++ < 5)
				fprintf(stderr, "  %#lx: compiled %d, lazy %d kind %d\n", (unsigned long)pc,
					want ? want->kind : -1, have, row.kind);
		}
		/* Again, from the cache only. */
		if (zt_cfi_lookup(lazy, pc, 0, &row) != have)
			differ++;
	}
	CHECK_EQ_U(differ, 0);
	CHECK(zt_cfi_lookup(lazy, ADDR + 0x1044, 1, &row) && row.kind == ZT_CFA_SP);
	CHECK(zt_cfi_lookup(lazy, ADDR + 0x1090, 1, &row) && row.kind == ZT_CFA_BAD);
	CHECK(zt_cfi_lookup(lazy, ADDR + 0x1060, 1, &row) == 0);	/* between FDEs */
	CHECK(zt_cfi_lookup(lazy, ADDR + 0x2000, 1, &row) == 0);	/* past the code */
	/* 64 pcs in the rejected FDE: counted once. */
	CHECK_EQ_U(rejected, 1);
	zt_cfi_free(t);
	zt_cfi_free(lazy);
}

UNIT_TEST(cfi_no_terminator_and_fdes_out_of_order)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	size_t c;

	hdr(&x);
	c = std_cie(&x);
	fde(&x, c, 0x2000, 0x10, NULL, 0);
	fde(&x, c, 0x1000, 0x20, fp_insns, sizeof fp_insns);	/* no terminator */
	t = build(&x, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 2);
	CHECK_EQ_U(t->lo, 0x1000);
	CHECK_EQ_U(t->hi, 0x2010);
	CHECK(row_is(t, 0x1010, ZT_CFA_FP, 16, ZT_REG_SAVED, -16));
	CHECK(zt_cfi_row_at(t, 0x1800) == NULL);
	CHECK(row_is(t, 0x2000, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	zt_cfi_free(t);
}

UNIT_TEST(cfi_remember_and_restore_state)
{
	static const unsigned char insns[] = {
		0x41, 0x0e, 16,		/* +1: rsp+16 */
		0x41, 0x0a, 0x0e, 8,	/* +1: remember; rsp+8 (an early return) */
		0x42, 0x0b,		/* +2: restore: rsp+16 */
		0x44, 0x0e, 32,		/* +4: rsp+32 */
	};
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	size_t c;

	hdr(&x);
	c = std_cie(&x);
	fde(&x, c, 0x1100, 0x40, insns, sizeof insns);
	t = build(&x, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 1);
	CHECK(row_is(t, 0x1100, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1101, ZT_CFA_SP, 16, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1102, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1104, ZT_CFA_SP, 16, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1107, ZT_CFA_SP, 16, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1108, ZT_CFA_SP, 32, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x113f, ZT_CFA_SP, 32, ZT_REG_SAME, 0));
	zt_cfi_free(t);
}

UNIT_TEST(cfi_end_signal_plt_and_bad_rows)
{
	static const unsigned char undefined_ra[] = { 0x07, 16 };
	static const unsigned char plt[] = {
		0x0e, 16, 0x46,		/* rsp+16; +6 */
		0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
	};
	static const unsigned char deref[] = {
		0x0f, 4, 0x77, 0xa0, 0x01, 0x06,	/* breg7 160; deref */
	};
	static const unsigned char val[] = {	/* a register zt does not follow */
		0x0c, 10, 0,			/* CFA r10+0 */
		0x44, 0x0c, 7, 8,		/* +4: rsp+8 */
	};
	static const unsigned char plt_offset[] = {	/* the offset of an expression */
		0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
		0x41, 0x0e, 16,
	};
	static const unsigned char plt_rbp_saved[] = {
		0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22,
		0x86, 2,			/* rbp at CFA-16: cannot share arg */
	};
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	size_t c, s;

	hdr(&x);
	c = std_cie(&x);
	s = cie(&x, "zRS", cie_insns, sizeof cie_insns);
	fde(&x, c, 0x1200, 0x10, undefined_ra, sizeof undefined_ra);
	fde(&x, s, 0x1300, 0x10, NULL, 0);
	fde(&x, c, 0x1400, 0x20, plt, sizeof plt);
	fde(&x, c, 0x1500, 0x10, deref, sizeof deref);
	fde(&x, c, 0x1600, 0x10, val, sizeof val);
	fde(&x, c, 0x1700, 0x10, plt_rbp_saved, sizeof plt_rbp_saved);
	fde(&x, c, 0x1800, 0x10, plt_offset, sizeof plt_offset);
	put32(&x, 0);
	t = build(&x, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 7);
	CHECK_EQ_U(st.skipped, 0);
	CHECK_EQ_U(st.bad_rows, 3);
	CHECK(row_is(t, 0x1200, ZT_CFA_END, 0, 0, 0));
	CHECK(row_is(t, 0x120f, ZT_CFA_END, 0, 0, 0));
	CHECK(row_is(t, 0x1300, ZT_CFA_SIGNAL, 0, 0, 0));
	CHECK(row_is(t, 0x1405, ZT_CFA_SP, 16, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1406, ZT_CFA_PLT, 8, ZT_REG_SAME, 11));
	CHECK(row_is(t, 0x141f, ZT_CFA_PLT, 8, ZT_REG_SAME, 11));
	CHECK(row_is(t, 0x1500, ZT_CFA_BAD, 0, 0, 0));
	CHECK(row_is(t, 0x1603, ZT_CFA_BAD, 0, 0, 0));
	CHECK(row_is(t, 0x1604, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
	CHECK(row_is(t, 0x1700, ZT_CFA_PLT, 8, ZT_REG_LOST, 10));
	CHECK(row_is(t, 0x1800, ZT_CFA_PLT, 8, ZT_REG_SAME, 11));
	CHECK(row_is(t, 0x1801, ZT_CFA_BAD, 0, 0, 0));
	zt_cfi_free(t);
}

/*
 * Malformed input: good FDEs at 0x1000 and 0x1040 around the bad one,
 * which covers [0x1100, 0x1110) when it has a range at all.
 */
enum bad {
	TRUNCATED_CIE, TRUNCATED_FDE, CIE_POINTER_OUT, CIE_POINTER_AT_FDE, AUG_WITHOUT_Z,
	UNKNOWN_OPCODE, REMEMBER_OVERFLOW, RESTORE_UNDERFLOW, OPERAND_CUT, OFFSET_OVERFLOW,
	ZERO_RANGE, PERSONALITY_UNKNOWN_ENC, SHORT_RECORD, NBAD
};

static void bad_image(struct blob *x, enum bad which)
{
	static const unsigned char unknown[] = { 0x41, 0x17, 1 };
	static const unsigned char restore[] = { 0x41, 0x0b };
	static const unsigned char cut[] = { 0x41, 0x0e, 0x80 };	/* uleb never ends */
	static const unsigned char huge[] = {	/* offset r6 2^62: * -8 overflows */
		0x86, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,
	};
	unsigned char remember[20];
	size_t c, rec;

	two_functions(x);
	c = 8;	/* the standard CIE */
	switch (which) {
	case TRUNCATED_CIE:
		rec = x->n;
		put32(x, 7);		/* id, version, "zR" without its NUL */
		put32(x, 0);
		put8(x, 1);
		put8(x, 'z');
		put8(x, 'R');
		fde(x, rec, 0x1100, 0x10, NULL, 0);	/* its first byte is 0 */
		break;
	case TRUNCATED_FDE:
		put32(x, 8);		/* CIE pointer and pc begin, no range */
		put32(x, (uint32_t)(x->n - c));
		put32(x, 0x1100 - (uint32_t)(ADDR + x->n));
		break;
	case CIE_POINTER_OUT:
		rec = fde(x, c, 0x1100, 0x10, NULL, 0);
		put32_at(x, rec + 4, 0x100000);	/* before the image */
		break;
	case CIE_POINTER_AT_FDE:
		rec = fde(x, c, 0x1100, 0x10, NULL, 0);
		/* The first FDE, after the 8-byte header and the 24-byte CIE. */
		put32_at(x, rec + 4, (uint32_t)(rec + 4 - 32));
		break;
	case AUG_WITHOUT_Z:
		rec = cie(x, "R", cie_insns, sizeof cie_insns);
		fde(x, rec, 0x1100, 0x10, NULL, 0);
		break;
	case UNKNOWN_OPCODE:
		fde(x, c, 0x1100, 0x10, unknown, sizeof unknown);
		break;
	case REMEMBER_OVERFLOW:
		memset(remember, 0x0a, sizeof remember);
		fde(x, c, 0x1100, 0x10, remember, sizeof remember);
		break;
	case RESTORE_UNDERFLOW:
		fde(x, c, 0x1100, 0x10, restore, sizeof restore);
		break;
	case OPERAND_CUT:
		fde(x, c, 0x1100, 0x10, cut, sizeof cut);
		break;
	case OFFSET_OVERFLOW:
		fde(x, c, 0x1100, 0x10, huge, sizeof huge);
		break;
	case ZERO_RANGE:
		fde(x, c, 0x1100, 0, NULL, 0);
		break;
	case PERSONALITY_UNKNOWN_ENC:
		rec = x->n;
		put32(x, 0);
		put32(x, 0);
		put8(x, 1);
		put(x, "zPR", 4);
		put8(x, 1);
		put8(x, 0x78);
		put8(x, 16);
		put8(x, 3);
		put8(x, 0x0f);	/* no such pointer format */
		put8(x, 0);
		put8(x, 0x1b);
		close_record(x, rec);
		fde(x, rec, 0x1100, 0x10, NULL, 0);
		break;
	case SHORT_RECORD:
		put32(x, 2);		/* no room for a CIE id or pointer */
		put8(x, 0);
		put8(x, 0);
		break;
	case NBAD:
		break;
	}
}

UNIT_TEST(cfi_malformed_entries_are_skipped_and_counted)
{
	for (int which = 0; which < NBAD; which++) {
		struct blob x;
		struct zt_cfi_stats st;
		struct zt_cfi_table *t;

		bad_image(&x, (enum bad)which);
		put32(&x, 0);
		t = build(&x, &st);
		CHECK(t != NULL);
		if (!t)
			continue;
		if (st.fdes != 2 || st.skipped != 1)
			fprintf(stderr, "  case %d: %u fdes, %u skipped\n", which, st.fdes, st.skipped);
		CHECK_EQ_U(st.fdes, 2);
		CHECK_EQ_U(st.skipped, 1);
		CHECK(row_is(t, 0x1004, ZT_CFA_FP, 16, ZT_REG_SAVED, -16));
		CHECK(row_is(t, 0x1040, ZT_CFA_SP, 8, ZT_REG_SAME, 0));
		CHECK(zt_cfi_row_at(t, 0x1100) == NULL);
		CHECK(zt_cfi_row_at(t, 0x1108) == NULL);
		CHECK_EQ_U(t->hi, 0x1050);
		zt_cfi_free(t);
	}
}

UNIT_TEST(cfi_length_past_the_end_stops_the_walk)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;

	two_functions(&x);
	put32(&x, 0x1000);	/* a length past the end of the image */
	put32(&x, 4);
	t = build(&x, &st);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U(st.fdes, 2);
	CHECK_EQ_U(st.skipped, 1);
	CHECK(row_is(t, 0x1001, ZT_CFA_SP, 16, ZT_REG_SAVED, -16));
	zt_cfi_free(t);
}

UNIT_TEST(cfi_unusable_images_give_no_table)
{
	struct blob x;
	struct zt_cfi_stats st;
	struct zt_cfi_image img;

	two_functions(&x);
	put32(&x, 0);
	img = (struct zt_cfi_image){ x.b, x.n, ADDR, ADDR + x.n, 0, { { 0, 0 } } };	/* hdr outside */
	CHECK(zt_cfi_build(&img, &st) == NULL);
	x.b[0] = 2;							/* version */
	img = (struct zt_cfi_image){ x.b, x.n, ADDR, ADDR, 0, { { 0, 0 } } };
	CHECK(zt_cfi_build(&img, &st) == NULL);
	x.b[0] = 1;
	put32_at(&x, 4, 0x10000);					/* eh_frame outside */
	CHECK(zt_cfi_build(&img, &st) == NULL);
	hdr(&x);							/* no FDEs */
	std_cie(&x);
	put32(&x, 0);
	img = (struct zt_cfi_image){ x.b, x.n, ADDR, ADDR, 0, { { 0, 0 } } };
	CHECK(zt_cfi_build(&img, &st) == NULL);
	CHECK_EQ_U(st.fdes, 0);
	img = (struct zt_cfi_image){ x.b, 3, ADDR, ADDR, 0, { { 0, 0 } } };		/* cut hdr */
	CHECK(zt_cfi_build(&img, &st) == NULL);
}

/* A table over [0x1000, 0x1060) with one row per 0x10, and a set of it. */
static const struct zt_cfi_row walk_rows[] = {
	{ 0x00, 8, 0, ZT_CFA_SP, ZT_REG_SAME, 0, 0 },	/* a frameless leaf */
	{ 0x10, 16, -16, ZT_CFA_FP, ZT_REG_SAVED, 0, 0 },	/* a frame-pointer frame */
	{ 0x20, 0, 0, ZT_CFA_END, 0, 0, 0 },			/* the thread's entry */
	{ 0x30, 0, 0, ZT_CFA_SIGNAL, 0, 0, 0 },		/* a signal trampoline */
	{ 0x40, -8, 0, ZT_CFA_SP, ZT_REG_SAME, 0, 0 },	/* a CFA below sp */
	{ 0x50, 0, 0, ZT_CFA_BAD, 0, 0, 0 },
	{ 0x60, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
};

static struct zt_cfi_table walk_table = {
	.lo = 0x1000, .hi = 0x1060, .key = 1, .nrows = 7, .rows = walk_rows,
};

static size_t unwind_cfi(uintptr_t pc, uintptr_t sp, uintptr_t rbp, const uintptr_t *stack,
			 size_t words, uint64_t *out, size_t max, enum zt_unwind_end *end)
{
	struct zt_cfi_set *set = malloc(sizeof *set + sizeof set->t[0]);
	struct zt_regs r = { pc, sp, rbp, (uintptr_t)stack, (uintptr_t)(stack + words), 0, { { 0 } }, 0, 0 };
	size_t n;

	if (!set)
		return 0;
	set->n = 1;
	set->size = 0;
	set->nseg = 0;
	set->t[0] = &walk_table;
	n = zt_unwind(&r, set, ZT_UNWIND_CFI, out, max, end);
	free(set);
	return n;
}

#define AT(i) ((uintptr_t)&stack[i])
#define EXACT ZT_UNWIND_EXACT

UNIT_TEST(unwind_cfi_leaf_rbp_frame_and_end)
{
	uintptr_t stack[32] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;
	size_t n;

	stack[4] = 0x1015;		/* the leaf's return address, into the rbp frame */
	stack[10] = AT(20);		/* that frame: saved rbp, return address */
	stack[11] = 0x1025;		/* into the entry (END) */
	n = unwind_cfi(0x1004, AT(4), AT(10), stack, 32, out, 8, &end);
	CHECK_EQ_U(n, 3);
	CHECK_EQ_U(out[0], 0x1004 | EXACT);
	CHECK_EQ_U(out[1], 0x1015);
	CHECK_EQ_U(out[2], 0x1025);
	CHECK_EQ_U(end, ZT_UNWIND_COMPLETE);

	/* The same with room for two: the depth ends it. */
	n = unwind_cfi(0x1004, AT(4), AT(10), stack, 32, out, 2, &end);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(end, ZT_UNWIND_DEPTH);
}

UNIT_TEST(unwind_cfi_stops_where_it_cannot_go_on)
{
	uintptr_t stack[32] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;
	size_t n;

	/* A CFA below sp. */
	n = unwind_cfi(0x1044, AT(4), 0, stack, 32, out, 8, &end);
	CHECK_EQ_U(n, 1);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
	/* A BAD row, and a pc outside every table: no frame pointers in CFI mode. */
	stack[10] = AT(20);
	stack[11] = 0x1025;
	n = unwind_cfi(0x1054, AT(4), AT(10), stack, 32, out, 8, &end);
	CHECK_EQ_U(n, 1);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
	n = unwind_cfi(0x5000, AT(4), AT(10), stack, 32, out, 8, &end);
	CHECK_EQ_U(n, 1);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
	/* A return address outside the readable stack. */
	n = unwind_cfi(0x1004, AT(31) + 8, 0, stack, 32, out, 8, &end);
	CHECK_EQ_U(n, 1);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
	/* An rbp frame whose CFA (rbp + 16) is not above its sp. */
	stack[4] = 0x1015;
	n = unwind_cfi(0x1004, AT(4), AT(2), stack, 32, out, 8, &end);	/* CFA = rbp+16 <= sp */
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
}

UNIT_TEST(unwind_cfi_through_a_signal_frame)
{
	uintptr_t stack[64] = { 0 };
	uint64_t out[8];
	enum zt_unwind_end end;
	size_t n;
	/* The ucontext at sp: gregs from byte 40, rbp 10th, rsp 15th, rip 16th. */
	size_t uc = 1, rbp = uc + (40 + 10 * 8) / 8, rsp = uc + (40 + 15 * 8) / 8,
	       rip = uc + (40 + 16 * 8) / 8;

	stack[0] = 0x1031;		/* the handler returns into the trampoline */
	stack[rip] = 0x1008;		/* the interrupted leaf */
	stack[rsp] = AT(40);
	stack[rbp] = AT(50);
	stack[40] = 0x1012;		/* the leaf's return address: the rbp frame */
	stack[50] = 0;			/* its saved rbp and return address */
	stack[51] = 0x1021;
	n = unwind_cfi(0x1004, AT(0), 0, stack, 64, out, 8, &end);
	CHECK_EQ_U(n, 5);
	CHECK_EQ_U(out[0], 0x1004 | EXACT);
	CHECK_EQ_U(out[1] & ~EXACT, 0x1031);	/* the trampoline: its tag is unwind.c's choice */
	CHECK_EQ_U(out[2], 0x1008 | EXACT);
	CHECK_EQ_U(out[3], 0x1012);
	CHECK_EQ_U(out[4], 0x1021);
	CHECK_EQ_U(end, ZT_UNWIND_COMPLETE);

	/* A ucontext whose rsp is not above the frame's: stop. */
	stack[rsp] = AT(0);
	n = unwind_cfi(0x1004, AT(0), 0, stack, 64, out, 8, &end);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
}

UNIT_TEST(cfi_find_picks_the_table_holding_pc)
{
	struct zt_cfi_table a = { .lo = 0x1000, .hi = 0x2000, .key = 1 };
	struct zt_cfi_table b = { .lo = 0x3000, .hi = 0x3100, .key = 2 };
	struct zt_cfi_set *set = malloc(sizeof *set + 2 * sizeof set->t[0]);

	if (!set)
		return;
	set->n = 2;
	set->size = 0;
	set->nseg = 0;
	set->t[0] = &a;
	set->t[1] = &b;
	CHECK(zt_cfi_find(set, 0x0fff) == NULL);
	CHECK(zt_cfi_find(set, 0x1000) == &a);
	CHECK(zt_cfi_find(set, 0x1fff) == &a);
	CHECK(zt_cfi_find(set, 0x2000) == NULL);
	CHECK(zt_cfi_find(set, 0x3050) == &b);
	CHECK(zt_cfi_find(set, 0x3100) == NULL);
	CHECK(zt_cfi_find(NULL, 0x1000) == NULL);
	set->n = 0;
	CHECK(zt_cfi_find(set, 0x1000) == NULL);
	free(set);
}

/*
 * A CFA kept in rbx (ld.so's _dl_runtime_resolve realigns rsp): the leaf
 * saved the caller's rbx at CFA - 16, and the caller's CFA is rbx + 16.
 */
static const struct zt_cfi_row rbx_rows[] = {
	{ 0x00, 16, 0, ZT_CFA_SP, ZT_REG_SAME, -16, ZT_REG_SAVED },
	{ 0x10, 16, 0, ZT_CFA_X, ZT_REG_SAME, 0, ZT_REG_SAME },
	{ 0x20, 0, 0, ZT_CFA_END, 0, 0, 0 },
	{ 0x30, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
};

static struct zt_cfi_table rbx_table = { .lo = 0x1000, .hi = 0x1030, .key = 2,
	.nrows = 4, .rows = rbx_rows };

UNIT_TEST(unwind_cfi_follows_a_cfa_in_rbx)
{
	uintptr_t stack[16] = { 0 };
	struct zt_cfi_set *set = malloc(sizeof *set + sizeof set->t[0]);
	struct zt_regs r = { 0x1004, (uintptr_t)stack, 0, (uintptr_t)stack,
			     (uintptr_t)(stack + 16), 0x5, { { 0 } }, 0, 0 };
	uint64_t out[8];
	enum zt_unwind_end end;
	size_t n;

	if (!set)
		return;
	set->n = 1;
	set->size = 0;
	set->nseg = 0;
	set->t[0] = &rbx_table;
	stack[0] = AT(6);	/* the caller's rbx, saved by the leaf */
	stack[1] = 0x1015;	/* the leaf's return address */
	stack[7] = 0x1025;	/* at rbx + 16 - 8: the caller's return address */
	n = zt_unwind(&r, set, ZT_UNWIND_CFI, out, 8, &end);
	CHECK_EQ_U(n, 3);
	CHECK_EQ_U(out[1], 0x1015);
	CHECK_EQ_U(out[2], 0x1025);
	CHECK_EQ_U(end, ZT_UNWIND_COMPLETE);
	/* Without the saved rbx the caller's CFA is unknown: the walk stops. */
	{
		static const struct zt_cfi_row lost[] = {
			{ 0x00, 16, 0, ZT_CFA_SP, ZT_REG_SAME, 0, ZT_REG_LOST },
			{ 0x10, 16, 0, ZT_CFA_X, ZT_REG_SAME, 0, ZT_REG_SAME },
			{ 0x20, 0, 0, ZT_CFA_END, 0, 0, 0 },
			{ 0x30, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
		};
		rbx_table.rows = lost;
		n = zt_unwind(&r, set, ZT_UNWIND_CFI, out, 8, &end);
		CHECK_EQ_U(n, 2);
		CHECK_EQ_U(end, ZT_UNWIND_PARTIAL);
		rbx_table.rows = rbx_rows;
	}
	free(set);
}

/*
 * The PLT's rule: CFA = rsp + 8, and 8 more once the stub has pushed (pc &
 * 15 at or past the threshold, 11 here).
 */
static const struct zt_cfi_row plt_rows[] = {
	{ 0x00, 8, 11, ZT_CFA_PLT, ZT_REG_SAME, 0, 0 },
	{ 0x10, 0, 0, ZT_CFA_END, 0, 0, 0 },
	{ 0x20, 0, 0, ZT_CFA_NONE, 0, 0, 0 },
};

static struct zt_cfi_table plt_table = { .lo = 0x1000, .hi = 0x1020, .key = 3,
	.nrows = 3, .rows = plt_rows };

UNIT_TEST(unwind_cfi_follows_the_plt_expression)
{
	uintptr_t stack[8] = { 0 };
	struct zt_cfi_set *set = malloc(sizeof *set + sizeof set->t[0]);
	uint64_t out[8];
	enum zt_unwind_end end;
	struct zt_regs before = { 0x1004, (uintptr_t)stack, 0, (uintptr_t)stack,
				  (uintptr_t)(stack + 8), 0, { { 0 } }, 0, 0 };
	struct zt_regs after = { 0x100c, (uintptr_t)stack, 0, (uintptr_t)stack,
				 (uintptr_t)(stack + 8), 0, { { 0 } }, 0, 0 };
	size_t n;

	if (!set)
		return;
	set->n = 1;
	set->size = 0;
	set->nseg = 0;
	set->t[0] = &plt_table;
	stack[0] = 0x1015;	/* before the push: the return address at rsp */
	stack[1] = 0x1016;	/* after it: one word further up */
	n = zt_unwind(&before, set, ZT_UNWIND_CFI, out, 8, &end);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(out[1], 0x1015);
	CHECK_EQ_U(end, ZT_UNWIND_COMPLETE);
	n = zt_unwind(&after, set, ZT_UNWIND_CFI, out, 8, &end);
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(out[1], 0x1016);
	free(set);
}
