/*
 * cfi.c — compile .eh_frame into the sampler's unwind rows (cfi.h).
 *
 * The call-frame programs of each FDE (DWARF 4 section 6.4, in the .eh_frame
 * form of the LSB) are run once, here, and reduced to the rules the unwinder
 * needs: the CFA, the return address (at CFA + ZT_ARCH_RA_AT), the frame
 * pointer and one more register (arch.h names them). Every read is bounded
 * by the image; anything malformed skips its CIE or FDE, whose pcs then have
 * no row and fall back to frame pointers. zt_cfi_build allocates and is
 * never called from a signal handler; a lazy table's zt_cfi_lookup runs
 * the same programs there, one FDE at a time, so everything it reaches
 * (the cursor, lib/ehcursor.h, which lib/ehframe.c reads .eh_frame with
 * too; read_cie, run, read_fde) calls nothing, not even libc's string
 * functions, and keeps its state on the stack.
 */
#include "cfi.h"
#include "arch.h"
#include "sys.h"
#include "ehcursor.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum {
	LAZY_TRIES = 4,		/* search entries, and records after each, a lookup reads */
	MAX_STATES = 16,	/* DW_CFA_remember_state nesting kept */
	MAX_ROWS = 1 << 24,	/* rows per object: far above any real one */
};

/* A cursor over [p, end) of img (lib/ehcursor.h), its pointers relative to img's addresses. */
static struct zt_ehcursor cursor(const struct zt_cfi_image *img, const unsigned char *p,
				 const unsigned char *end)
{
	return (struct zt_ehcursor){ .p = p, .end = end, .mem = img->mem, .addr = img->addr,
				     .datarel = img->hdr, .datarel_ok = 1 };
}

/* A ULEB128 operand that must fit int64_t. */
static int64_t uoperand(struct zt_ehcursor *c)
{
	uint64_t v = zt_ehcursor_uleb(c);

	if (v > INT64_MAX) {
		c->bad = 1;
		return 0;
	}
	return (int64_t)v;
}

/* A factored operand times the CIE's alignment; malformed if it overflows. */
static int64_t scaled(struct zt_ehcursor *c, int64_t v, int64_t align)
{
	int64_t r;

	if (__builtin_mul_overflow(v, align, &r)) {
		c->bad = 1;
		return 0;
	}
	return r;
}

/* Where the return address is, as the rules so far say. */
enum ra_rule {
	RA_AT_CFA,	/* where rows keep it: at CFA + ZT_ARCH_RA_AT, or (ZT_ARCH_RA_IN_X) where x's rule says */
	RA_UNDEFINED,	/* none: the thread's outermost frame */
	RA_ELSEWHERE,	/* anywhere else: a rule zt does not follow */
};

/* The register rules one row is made of. */
struct state {
	uint8_t cfa;		/* ZT_CFA_SP, _FP, _X, _PLT or _BAD */
	int64_t cfa_off;
	int64_t plt;		/* the PLT expression's threshold */
	uint8_t fp;		/* enum zt_reg_rule */
	int64_t fp_off;
	uint8_t x;		/* enum zt_reg_rule */
	int64_t x_off;
	uint8_t ra;		/* enum ra_rule */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned fde_enc;
	int has_z, sigframe;	/* sigframe: augmentation S, a signal trampoline */
	const unsigned char *insns, *end;
};

/* Read the CIE at p (its length field). 0 on success. */
static int read_cie(const struct zt_cfi_image *img, const unsigned char *p, struct cie *ci)
{
	struct zt_ehcursor c = cursor(img, p, img->mem + img->len);
	uint64_t len = zt_ehcursor_fixed(&c, 4), ra, version;
	const char *aug;
	size_t auglen;

	if (c.bad || len == 0 || len == 0xffffffff || len > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + len;
	if (zt_ehcursor_fixed(&c, 4) != 0)	/* a CIE's id is 0 in .eh_frame */
		return -1;
	version = zt_ehcursor_u8(&c);
	if (version != 1 && version != 3)
		return -1;
	aug = (const char *)c.p;
	for (auglen = 0; auglen < (size_t)(c.end - c.p) && aug[auglen]; auglen++)
		if (auglen > 0 && aug[auglen - 1] == 'e' && aug[auglen] == 'h')
			return -1;	/* gcc 2's "eh" pointer: obsolete */
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	*ci = (struct cie){ 0 };
	ci->fde_enc = PE_ABSPTR;
	ci->code_align = zt_ehcursor_uleb(&c);
	ci->data_align = zt_ehcursor_sleb(&c);
	ra = version == 1 ? zt_ehcursor_u8(&c) : zt_ehcursor_uleb(&c);
	if (c.bad || ra != ZT_ARCH_DWARF_RA || ci->code_align == 0)
		return -1;
	if (aug[0] == 'z') {
		uint64_t n = zt_ehcursor_uleb(&c);
		const unsigned char *after;

		if (c.bad || n > (uint64_t)(c.end - c.p))
			return -1;
		after = c.p + n;
		ci->has_z = 1;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (unsigned)zt_ehcursor_u8(&c);
				if (ci->fde_enc & PE_INDIRECT)
					return -1;	/* an FDE's pc is never indirect */
			} else if (*a == 'P') {
				unsigned enc = (unsigned)zt_ehcursor_u8(&c);

				zt_ehcursor_pointer(&c, enc & (unsigned)~PE_INDIRECT);
			} else if (*a == 'L') {
				zt_ehcursor_u8(&c);
			} else if (*a == 'S') {
				ci->sigframe = 1;
			} else if (*a != 'B') {
				break;	/* unknown: the length lets us skip the rest */
			}
		}
		if (c.bad || c.p > after)
			return -1;
		c.p = after;
	} else if (aug[0]) {
		return -1;	/* an augmentation without 'z' cannot be skipped */
	}
	ci->insns = c.p;
	ci->end = c.end;
	return 0;
}

/* Rows being built, in a growing buffer. */
/* The rows of an object being built, in memory mapped apart (sys.h: never the program's heap). */
struct rows {
	struct zt_cfi_row *r;
	size_t n, bytes;	/* rows kept, bytes mapped */
	uintptr_t lo;
	int full;
};

/* The row the rules s give (none: s NULL), start left 0. */
static void make_row(struct zt_cfi_row *out, const struct state *s, int sigframe)
{
	struct zt_cfi_row row = { 0 };

	if (!s) {
		row.kind = ZT_CFA_NONE;
	} else if (s->ra == RA_UNDEFINED) {
		row.kind = ZT_CFA_END;
	} else if (sigframe) {
		row.kind = ZT_CFA_SIGNAL;
	} else if (s->ra != RA_AT_CFA || s->cfa == ZT_CFA_BAD ||
		   s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX) {
		row.kind = ZT_CFA_BAD;
	} else {
		row.kind = s->cfa;
		row.cfa_off = (int32_t)s->cfa_off;
		if (s->cfa == ZT_CFA_PLT)
			row.arg = (int16_t)s->plt;
		row.fp = s->fp;
		if (s->fp == ZT_REG_SAVED && s->cfa == ZT_CFA_PLT) {
			row.fp = ZT_REG_LOST;	/* arg holds the threshold */
		} else if (s->fp == ZT_REG_SAVED) {
			if (s->fp_off < INT16_MIN || s->fp_off > INT16_MAX)
				row.fp = ZT_REG_LOST;
			else
				row.arg = (int16_t)s->fp_off;
		}
		row.x = s->x;
		if (s->x == ZT_REG_SAVED) {
			if (s->x_off < INT16_MIN || s->x_off > INT16_MAX)
				row.x = ZT_REG_LOST;
			else
				row.x_off = (int16_t)s->x_off;
		}
	}
	*out = row;
}

static void emit(struct rows *rs, uintptr_t pc, const struct state *s, int sigframe,
		 struct zt_cfi_stats *st)
{
	struct zt_cfi_row row;

	make_row(&row, s, sigframe);
	row.start = (uint32_t)(pc - rs->lo);
	if (row.kind == ZT_CFA_BAD)
		st->bad_rows++;
	if (rs->n > 0 && rs->r[rs->n - 1].start == row.start) {
		rs->n--;	/* the same pc: the later rules win */
	}
	if (rs->n > 0) {
		struct zt_cfi_row prev = rs->r[rs->n - 1];

		prev.start = row.start;
		if (memcmp(&prev, &row, sizeof row) == 0)
			return;	/* same rules as the row before: one row */
	}
	if ((rs->n + 1) * sizeof *rs->r > rs->bytes &&
	    (rs->n + 1 > MAX_ROWS ||
	     zt_sys_grow((void **)&rs->r, &rs->bytes, (rs->n + 1) * sizeof *rs->r) < 0)) {
		rs->full = 1;
		return;
	}
	rs->r[rs->n++] = row;
}

/* The CFA kind for a register-based rule. */
static uint8_t cfa_reg(uint64_t reg)
{
	return reg == ZT_ARCH_DWARF_SP ? ZT_CFA_SP : reg == ZT_ARCH_DWARF_FP ? ZT_CFA_FP :
	       reg == ZT_ARCH_DWARF_X ? ZT_CFA_X : ZT_CFA_BAD;
}

/* What one instruction says of a register. */
enum rule {
	RULE_NONE,	/* the instruction sets no register's rule */
	RULE_OFFSET,	/* saved at CFA + off */
	RULE_SAME,	/* unchanged: DW_CFA_same_value */
	RULE_LOST,	/* in another register, at an expression, or a value: not followed */
	RULE_RESTORE,	/* as the CIE's initial instructions left it */
	RULE_UNDEFINED,	/* no value (the return address: the outermost frame) */
};

/*
 * Apply rule (with off, for RULE_OFFSET) to register reg of s; init is the
 * CIE's state, NULL inside the CIE. -1 when the program is malformed.
 */
static int set_rule(struct state *s, const struct state *init, uint64_t reg, enum rule rule,
		    int64_t off)
{
	uint8_t *r;
	int64_t *o;

	if (rule == RULE_RESTORE && !init &&
	    (reg == ZT_ARCH_DWARF_RA || reg == ZT_ARCH_DWARF_FP || reg == ZT_ARCH_DWARF_X))
		return -1;	/* a restore inside a CIE */
	if (reg == ZT_ARCH_DWARF_RA) {
		switch (rule) {
		case RULE_RESTORE: s->ra = init->ra; break;
		case RULE_UNDEFINED: s->ra = RA_UNDEFINED; break;
		case RULE_OFFSET:
			s->ra = off == ZT_ARCH_RA_AT || ZT_ARCH_RA_IN_X ? RA_AT_CFA : RA_ELSEWHERE;
			break;
		case RULE_SAME: s->ra = ZT_ARCH_RA_IN_X ? RA_AT_CFA : RA_ELSEWHERE; break;
		default: s->ra = RA_ELSEWHERE; break;
		}
		if (!ZT_ARCH_RA_IN_X)
			return 0;
	}
	if (reg != ZT_ARCH_DWARF_FP && reg != ZT_ARCH_DWARF_X)
		return 0;	/* a register the unwinder does not need */
	r = reg == ZT_ARCH_DWARF_FP ? &s->fp : &s->x;
	o = reg == ZT_ARCH_DWARF_FP ? &s->fp_off : &s->x_off;
	switch (rule) {
	case RULE_RESTORE:
		*r = reg == ZT_ARCH_DWARF_FP ? init->fp : init->x;
		*o = reg == ZT_ARCH_DWARF_FP ? init->fp_off : init->x_off;
		break;
	case RULE_OFFSET:
		*r = ZT_REG_SAVED;
		*o = off;
		break;
	case RULE_SAME:
		*r = ZT_REG_SAME;
		break;
	default:
		*r = ZT_REG_LOST;
		break;
	}
	return 0;
}

/*
 * Where run keeps what it is asked for: the rows of every advance (rows),
 * or the rules in force at one pc (target, into *at; got says whether the
 * program advanced past it, else the rules at the end are the ones).
 * Neither (a CIE's initial instructions): advances are not followed.
 */
struct sink {
	struct rows *rows;
	struct zt_cfi_stats *st;
	struct state *at;
	uintptr_t target;
	int got;
};

/*
 * Run a call-frame program from [p, end) on s, starting at pc loc, into k.
 * init is the CIE's state, for DW_CFA_restore. Returns 0, or -1 on a
 * malformed program. Async-signal-safe (for zt_cfi_lookup).
 */
static int run(const struct zt_cfi_image *img, const struct cie *ci,
	       const unsigned char *p, const unsigned char *end, struct state *s,
	       const struct state *init, uintptr_t *loc, uintptr_t limit,
	       struct sink *k)
{
	struct zt_ehcursor c = cursor(img, p, end);
	struct state saved[MAX_STATES];
	int nsaved = 0;

	while (c.p < c.end && !c.bad) {
		unsigned op = (unsigned)zt_ehcursor_u8(&c);
		uint64_t reg = 0, delta = 0, n;
		int64_t off = 0, thr;
		enum rule rule = RULE_NONE;

		switch (op & DW_CFA_PRIMARY ? op & DW_CFA_PRIMARY : op) {
		case DW_CFA_advance_loc:
			delta = op & DW_CFA_OPERAND;
			goto advance;
		case DW_CFA_offset:
			reg = op & DW_CFA_OPERAND;
			off = scaled(&c, uoperand(&c), ci->data_align);
			rule = RULE_OFFSET;
			break;
		case DW_CFA_restore:
			reg = op & DW_CFA_OPERAND;
			rule = RULE_RESTORE;
			break;
		case DW_CFA_nop:
			break;
		case DW_CFA_set_loc: {
			uint64_t to = zt_ehcursor_pointer(&c, ci->fde_enc);

			if (to < *loc)
				return -1;
			delta = (to - *loc) / ci->code_align;
			goto advance;
		}
		case DW_CFA_advance_loc1: delta = zt_ehcursor_fixed(&c, 1); goto advance;
		case DW_CFA_advance_loc2: delta = zt_ehcursor_fixed(&c, 2); goto advance;
		case DW_CFA_advance_loc4: delta = zt_ehcursor_fixed(&c, 4); goto advance;
		case DW_CFA_offset_extended:
			reg = zt_ehcursor_uleb(&c);
			off = scaled(&c, uoperand(&c), ci->data_align);
			rule = RULE_OFFSET;
			break;
		case DW_CFA_offset_extended_sf:
			reg = zt_ehcursor_uleb(&c);
			off = scaled(&c, zt_ehcursor_sleb(&c), ci->data_align);
			rule = RULE_OFFSET;
			break;
		case DW_CFA_GNU_negative_offset_extended:
			reg = zt_ehcursor_uleb(&c);
			off = scaled(&c, -uoperand(&c), ci->data_align);
			rule = RULE_OFFSET;
			break;
		case DW_CFA_restore_extended:
			reg = zt_ehcursor_uleb(&c);
			rule = RULE_RESTORE;
			break;
		case DW_CFA_undefined:
			reg = zt_ehcursor_uleb(&c);
			rule = RULE_UNDEFINED;
			break;
		case DW_CFA_same_value:
			reg = zt_ehcursor_uleb(&c);
			rule = RULE_SAME;
			break;
		case DW_CFA_register:
			reg = zt_ehcursor_uleb(&c);
			zt_ehcursor_uleb(&c);
			rule = RULE_LOST;
			break;
		case DW_CFA_val_offset:
			reg = zt_ehcursor_uleb(&c);
			zt_ehcursor_uleb(&c);
			rule = RULE_LOST;
			break;
		case DW_CFA_val_offset_sf:
			reg = zt_ehcursor_uleb(&c);
			zt_ehcursor_sleb(&c);
			rule = RULE_LOST;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			reg = zt_ehcursor_uleb(&c);
			n = zt_ehcursor_uleb(&c);
			if (c.bad || n > (uint64_t)(c.end - c.p))
				return -1;
			c.p += n;
			rule = RULE_LOST;
			break;
		case DW_CFA_remember_state:
			if (nsaved == MAX_STATES)
				return -1;
			saved[nsaved++] = *s;
			break;
		case DW_CFA_restore_state:
			if (nsaved == 0)
				return -1;
			/* The CFA rule too, as gcc's code expects. */
			*s = saved[--nsaved];
			break;
		case DW_CFA_def_cfa:
			reg = zt_ehcursor_uleb(&c);
			s->cfa_off = uoperand(&c);
			s->cfa = cfa_reg(reg);
			break;
		case DW_CFA_def_cfa_sf:
			reg = zt_ehcursor_uleb(&c);
			s->cfa_off = scaled(&c, zt_ehcursor_sleb(&c), ci->data_align);
			s->cfa = cfa_reg(reg);
			break;
		case DW_CFA_def_cfa_register:
			reg = zt_ehcursor_uleb(&c);
			if (s->cfa == ZT_CFA_PLT)
				s->cfa = ZT_CFA_BAD;	/* no offset to keep */
			else if (s->cfa != ZT_CFA_BAD || cfa_reg(reg) != ZT_CFA_BAD)
				s->cfa = cfa_reg(reg);
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
			s->cfa_off = op == DW_CFA_def_cfa_offset ? uoperand(&c) :
				     scaled(&c, zt_ehcursor_sleb(&c), ci->data_align);
			if (s->cfa == ZT_CFA_PLT)
				s->cfa = ZT_CFA_BAD;	/* the expression stays, as in libgcc */
			break;
		case DW_CFA_def_cfa_expression:
			n = zt_ehcursor_uleb(&c);
			if (c.bad || n > (uint64_t)(c.end - c.p))
				return -1;
			if (zt_arch_plt_expression(c.p, c.p + n, &off, &thr)) {
				s->cfa = ZT_CFA_PLT;
				s->cfa_off = off;
				s->plt = thr;
			} else {
				s->cfa = ZT_CFA_BAD;
			}
			c.p += n;
			break;
		case DW_CFA_GNU_args_size:
			zt_ehcursor_uleb(&c);
			break;
		case DW_CFA_AARCH64_negate_ra_state:
			/* The return address is signed from here (or no longer):
			 * every one is stripped before use (arch.h). */
			if (!ZT_ARCH_NEGATE_RA_STATE)
				return -1;
			break;
		default:
			return -1;	/* an op zt does not know: its operands cannot be skipped */
		}
		if (c.bad)
			return -1;
		if (rule != RULE_NONE && set_rule(s, init, reg, rule, off) < 0)
			return -1;
		continue;
advance:
		if (c.bad)
			return -1;
		if (k->rows || k->at) {
			uint64_t step;

			/* Past the FDE's end (or at it): the rest does not apply. */
			if (__builtin_mul_overflow(delta, ci->code_align, &step) ||
			    *loc >= limit || step > limit - *loc)
				return 0;
			if (k->rows)
				emit(k->rows, *loc, s, ci->sigframe, k->st);
			if (k->at && !k->got && k->target - *loc < step) {
				*k->at = *s;
				k->got = 1;
			}
			*loc += step;
		}
	}
	return c.bad ? -1 : 0;
}

/* An FDE found in .eh_frame, before it is compiled. */
struct fde {
	uintptr_t begin, end;
	int untrusted;		/* rejected: its range left its object's code */
	const unsigned char *cie;	/* its CIE's length field */
	const unsigned char *insns, *insns_end;
};

static int by_begin(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* What .eh_frame_hdr says. */
struct hdr {
	const unsigned char *eh_frame;	/* where .eh_frame starts */
	const unsigned char *search;	/* its search table of datarel sdata4 pairs; NULL if none */
	uint32_t nfdes;			/* entries in it */
};

/* Read img's .eh_frame_hdr. 0, or -1 if unreadable. */
static int read_hdr(const struct zt_cfi_image *img, struct hdr *h)
{
	struct zt_ehcursor c;
	uint64_t at, n;
	unsigned enc, count_enc, table_enc;

	if (img->hdr < img->addr || img->hdr - img->addr >= img->len)
		return -1;
	c = cursor(img, img->mem + (img->hdr - img->addr), img->mem + img->len);
	if (zt_ehcursor_u8(&c) != 1)	/* version */
		return -1;
	enc = (unsigned)zt_ehcursor_u8(&c);
	count_enc = (unsigned)zt_ehcursor_u8(&c);
	table_enc = (unsigned)zt_ehcursor_u8(&c);
	if (c.bad || enc == PE_OMIT || (enc & PE_INDIRECT))
		return -1;
	at = zt_ehcursor_pointer(&c, enc);
	if (c.bad || at < img->addr || at - img->addr >= img->len)
		return -1;
	h->eh_frame = img->mem + (at - img->addr);
	h->search = NULL;
	h->nfdes = 0;
	if (count_enc == PE_OMIT || (count_enc & PE_INDIRECT) || table_enc != (PE_DATAREL | PE_SDATA4))
		return 0;
	n = zt_ehcursor_pointer(&c, count_enc);
	if (c.bad || n > UINT32_MAX || n > (uint64_t)(c.end - c.p) / 8)
		return 0;
	h->search = c.p;
	h->nfdes = (uint32_t)n;
	return 0;
}

/* Where .eh_frame starts, from .eh_frame_hdr; NULL if unreadable. */
static const unsigned char *eh_frame_start(const struct zt_cfi_image *img)
{
	struct hdr h;

	return read_hdr(img, &h) < 0 ? NULL : h.eh_frame;
}

/* The end of img's executable segment that holds pc; 0 if none does. */
static uintptr_t text_end(const struct zt_cfi_image *img, uintptr_t pc)
{
	for (uint32_t i = 0; i < img->ntext && i < ZT_CFI_MAX_TEXT; i++)
		if (pc >= img->text[i].lo && pc < img->text[i].hi)
			return img->text[i].hi;
	return 0;
}

/* Whether [begin, end) lies inside one executable segment of img (or img has none listed). */
static int in_text(const struct zt_cfi_image *img, uintptr_t begin, uintptr_t end)
{
	if (img->ntext == 0)
		return 1;
	for (uint32_t i = 0; i < img->ntext && i < ZT_CFI_MAX_TEXT; i++)
		if (begin >= img->text[i].lo && end <= img->text[i].hi)
			return 1;
	return 0;
}

/* What read_fde found at a record. */
enum rec {
	REC_FDE,	/* an FDE, in *x (x->untrusted: rejected, counted) */
	REC_CIE,	/* a CIE, read with its FDEs */
	REC_SKIP,	/* a malformed one, skipped and counted */
	REC_STOP,	/* the terminator, or a length nothing after can be found past */
};

/*
 * The record of .eh_frame at p (its length field), read up to end; *next
 * is the one after it (REC_STOP: unset), *ci an FDE's CIE. A rejected FDE
 * that starts in the object's code ends (x->end) where that segment does;
 * one that starts elsewhere is REC_SKIP. *skipped counts what is skipped
 * or rejected. Async-signal-safe (for zt_cfi_lookup).
 */
static enum rec read_fde(const struct zt_cfi_image *img, const unsigned char *p,
			 const unsigned char *end, struct fde *x, struct cie *ci,
			 const unsigned char **next, uint32_t *skipped)
{
	struct zt_ehcursor c = cursor(img, p, end);
	uint64_t len, id;
	const unsigned char *start;

	if (end - p < 4 || (len = zt_ehcursor_fixed(&c, 4)) == 0)
		return REC_STOP;
	if (len == 0xffffffff || len > (uint64_t)(end - c.p)) {
		++*skipped;	/* 64-bit DWARF is not used in .eh_frame */
		return REC_STOP;
	}
	start = c.p;
	*next = c.p + len;
	c.end = *next;
	id = zt_ehcursor_fixed(&c, 4);
	if (c.bad || id > (uint64_t)(start - img->mem)) {	/* too short for an id, or a CIE before the image */
		++*skipped;
		return REC_SKIP;
	}
	if (id == 0)
		return REC_CIE;
	x->cie = start - id;
	if (read_cie(img, x->cie, ci) < 0) {
		++*skipped;
		return REC_SKIP;
	}
	x->begin = zt_ehcursor_pointer(&c, ci->fde_enc);
	x->end = x->begin + zt_ehcursor_pointer(&c, ci->fde_enc & 0x0f);
	if (ci->has_z) {
		uint64_t alen = zt_ehcursor_uleb(&c);

		if (!c.bad && alen <= (uint64_t)(c.end - c.p))
			c.p += alen;
		else
			c.bad = 1;
	}
	if (c.bad || x->end <= x->begin || x->begin == 0) {
		++*skipped;
		return REC_SKIP;
	}
	x->untrusted = !in_text(img, x->begin, x->end);
	if (x->untrusted) {
		/*
		 * Its range runs out of the object's code: rejected, but
		 * where it starts in the code, its pcs get a row that says no
		 * rule is trusted there (up to the next FDE), so that a walk
		 * through them is marked partial.
		 */
		++*skipped;
		x->end = text_end(img, x->begin);
		if (!x->end)
			return REC_SKIP;
	}
	x->insns = c.p;
	x->insns_end = *next;
	return REC_FDE;
}

/*
 * Every FDE of .eh_frame, read in order up to its zero terminator or the end
 * of the image. The hdr's search table is not trusted to be complete.
 */
/*
 * The scratch of zt_cfi_build (the FDEs, with room after them for the
 * sort's merges, and the rows), kept from one object's build to the next
 * so that its pages are faulted in once, not once an object: mapped, never
 * the program's malloc (sys.h). One build at a time (tables.c's lock).
 */
static struct scratch { void *p; size_t bytes; } fde_scratch, row_scratch;

void zt_cfi_scratch_free(void)
{
	zt_sys_drop(fde_scratch.p, fde_scratch.bytes);
	zt_sys_drop(row_scratch.p, row_scratch.bytes);
	fde_scratch.p = row_scratch.p = NULL;
	fde_scratch.bytes = row_scratch.bytes = 0;
}

static struct fde *collect_fdes(const struct zt_cfi_image *img, size_t *nout,
				struct zt_cfi_stats *st)
{
	const unsigned char *p = eh_frame_start(img), *end = img->mem + img->len;
	struct fde *f = fde_scratch.p;
	size_t n = 0;

	*nout = 0;
	if (!p)
		return NULL;
	for (;;) {
		const unsigned char *next;
		struct cie ci;
		struct fde x;
		enum rec r = read_fde(img, p, end, &x, &ci, &next, &st->skipped);

		if (r == REC_STOP)
			break;
		if (r != REC_FDE) {
			p = next;
			continue;
		}
		if (zt_sys_grow(&fde_scratch.p, &fde_scratch.bytes, (n + 1) * sizeof *f) < 0)
			break;
		f = fde_scratch.p;
		f[n++] = x;
		p = next;
	}
	/* Sorted with the room after them as the merges' scratch. */
	if (n > 1 && zt_sys_grow(&fde_scratch.p, &fde_scratch.bytes, 2 * n * sizeof *f) == 0) {
		f = fde_scratch.p;
		zt_sys_msort((char *)f, (char *)(f + n), n, sizeof *f, by_begin);
	} else {
		zt_sys_sort(f, n, sizeof *f, by_begin);
	}
	*nout = n;
	return f;
}

int zt_cfi_image_of(const struct dl_phdr_info *info, struct zt_cfi_image *img)
{
	const ElfW(Phdr) *hdr = NULL, *seg = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = &info->dlpi_phdr[i];
	/* .eh_frame follows .eh_frame_hdr in the same read-only segment. */
	for (int i = 0; hdr && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && hdr->p_vaddr >= ph->p_vaddr &&
		    hdr->p_vaddr - ph->p_vaddr < ph->p_filesz)
			seg = ph;
	}
	if (!seg)
		return -1;
	img->ntext = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (img->ntext == ZT_CFI_MAX_TEXT)
			return -1;
		img->text[img->ntext].lo = info->dlpi_addr + ph->p_vaddr;
		img->text[img->ntext].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		img->ntext++;
	}
	if (img->ntext == 0)
		return -1;	/* no code: nothing to unwind */
	img->addr = info->dlpi_addr + seg->p_vaddr;
	img->mem = (const unsigned char *)img->addr;
	img->len = seg->p_filesz;
	img->hdr = info->dlpi_addr + hdr->p_vaddr;
	return 0;
}

struct zt_cfi_table *zt_cfi_build(const struct zt_cfi_image *img, struct zt_cfi_stats *st)
{
	struct rows rs = { .r = row_scratch.p, .bytes = row_scratch.bytes };
	struct sink cie_sink = { 0 }, rows = { .rows = &rs, .st = st };
	struct zt_cfi_table *t = NULL;
	struct fde *f;
	size_t n, size;
	uintptr_t last_end = 0;
	void *m;

	memset(st, 0, sizeof *st);
	f = collect_fdes(img, &n, st);
	if (!f || n == 0)
		goto out;
	rs.lo = f[0].begin;
	for (size_t i = 0; i < n && !rs.full; i++) {
		struct cie ci;
		/* Before the CIE's rules: on AArch64 the return address is in x30. */
		struct state init = { .cfa = ZT_CFA_BAD, .fp = ZT_REG_SAME,
				      .ra = ZT_ARCH_RA_IN_X ? RA_AT_CFA : RA_ELSEWHERE }, s;
		uintptr_t loc = f[i].begin;
		size_t mark = rs.n;

		if (f[i].untrusted) {
			static const struct state none = { .cfa = ZT_CFA_BAD, .ra = RA_ELSEWHERE };
			uintptr_t to = f[i].end;

			if (i + 1 < n && f[i + 1].begin > f[i].begin && f[i + 1].begin < to)
				to = f[i + 1].begin;
			if (f[i].begin < last_end || to - rs.lo > UINT32_MAX)
				continue;	/* counted when it was rejected */
			if (rs.n > 0 && last_end < f[i].begin)
				emit(&rs, last_end, NULL, 0, st);
			emit(&rs, f[i].begin, &none, 0, st);
			last_end = to;
			continue;
		}
		/* Overlapping FDEs, or pcs too far for 32-bit rows: skipped. */
		if (f[i].begin < last_end || f[i].end - rs.lo > UINT32_MAX ||
		    read_cie(img, f[i].cie, &ci) < 0) {
			st->skipped++;
			continue;
		}
		if (run(img, &ci, ci.insns, ci.end, &init, NULL, &loc, f[i].end, &cie_sink) < 0) {
			st->skipped++;
			continue;
		}
		s = init;
		/* A row for the gap before this FDE ends the one before it. */
		if (rs.n > 0 && last_end < f[i].begin)
			emit(&rs, last_end, NULL, 0, st);
		if (run(img, &ci, f[i].insns, f[i].insns_end, &s, &init, &loc, f[i].end,
			&rows) < 0) {
			rs.n = mark;
			st->skipped++;
			continue;
		}
		if (loc < f[i].end)	/* not when the program advanced to the end */
			emit(&rs, loc, &s, ci.sigframe, st);
		last_end = f[i].end;
		st->fdes++;
	}
	if (rs.n == 0 || rs.full)
		goto out;
	emit(&rs, last_end, NULL, 0, st);	/* the end of the last FDE */
	size = sizeof *t + rs.n * sizeof *rs.r;
	m = zt_sys_map(size);
	if (m == MAP_FAILED)
		goto out;
	t = m;
	memcpy(t + 1, rs.r, rs.n * sizeof *rs.r);
	t->rows = (const struct zt_cfi_row *)(t + 1);
	t->nrows = (uint32_t)rs.n;
	t->lo = rs.lo;
	t->hi = last_end;
	t->key = img->hdr;
	t->size = size;
out:
	row_scratch.p = rs.r;		/* kept for the next object's build */
	row_scratch.bytes = rs.bytes;
	return t;
}

void zt_cfi_free(struct zt_cfi_table *t)
{
	if (t)
		zt_sys_unmap(t, t->size);
}

struct zt_cfi_table *zt_cfi_lazy(const struct zt_cfi_image *img, uint32_t min_fdes)
{
	struct hdr h;
	struct zt_cfi_table *t;
	size_t head = (sizeof *t + 15) & ~(size_t)15;
	size_t size = head + ZT_CFI_LAZY_SLOTS * sizeof(struct zt_cfi_slot) + sizeof(uint64_t) +
		      ZT_CFI_REJECTED * sizeof(uint32_t);
	unsigned char *m;

	if (read_hdr(img, &h) < 0 || !h.search || h.nfdes < min_fdes || img->ntext == 0)
		return NULL;
	m = zt_sys_map(size);
	if (m == MAP_FAILED)
		return NULL;
	t = (struct zt_cfi_table *)m;
	t->size = size;
	t->lazy = 1;
	t->img = *img;
	t->key = img->hdr;
	t->search = h.search;
	t->nfdes = h.nfdes;
	/* Every pc an FDE may be kept for lies in the object's code. */
	t->lo = img->text[0].lo;
	t->hi = img->text[0].hi;
	for (uint32_t i = 1; i < img->ntext && i < ZT_CFI_MAX_TEXT; i++) {
		if (img->text[i].lo < t->lo)
			t->lo = img->text[i].lo;
		if (img->text[i].hi > t->hi)
			t->hi = img->text[i].hi;
	}
	t->nslots = ZT_CFI_LAZY_SLOTS;
	/* The slots first (16-byte alignment), then the counters. */
	t->slots = (struct zt_cfi_slot *)(m + head);
	t->nrejected = (uint64_t *)(t->slots + t->nslots);
	t->rejected = (uint32_t *)(t->nrejected + 1);
	return t;
}

/* The hdr-relative int32 at p (a search table's field). */
static uintptr_t search_at(const struct zt_cfi_table *t, const unsigned char *p)
{
	int32_t v;

	__builtin_memcpy(&v, p, sizeof v);
	return t->img.hdr + (uintptr_t)(intptr_t)v;
}

/* The index of the last entry of the search table at or below pc; -1 if none. */
static int64_t search_index(const struct zt_cfi_table *t, uintptr_t pc)
{
	uint32_t lo = 0, hi = t->nfdes;

	if (hi == 0 || search_at(t, t->search) > pc)
		return -1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (search_at(t, t->search + 8 * (size_t)mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The record of entry i's FDE; NULL if it is outside the image. */
static const unsigned char *search_fde(const struct zt_cfi_table *t, uint32_t i)
{
	uintptr_t at = search_at(t, t->search + 8 * (size_t)i + 4);

	if (at < t->img.addr || at - t->img.addr >= t->img.len)
		return NULL;
	return t->img.mem + (at - t->img.addr);
}

/* Count the rejected FDE at p once, in the table's list (each time once it is full). */
static void note_rejected(const struct zt_cfi_table *t, const unsigned char *p)
{
	size_t off = (size_t)(p - t->img.mem) + 1;

	for (uint32_t i = 0; off <= UINT32_MAX && i < ZT_CFI_REJECTED; i++) {
		uint32_t v = __atomic_load_n(&t->rejected[i], __ATOMIC_RELAXED);

		if (v == 0 && __atomic_compare_exchange_n(&t->rejected[i], &v, (uint32_t)off, 0,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
		if (v == off)
			return;
	}
	__atomic_fetch_add(t->nrejected, 1, __ATOMIC_RELAXED);
}

/* The row for pc, from the object's CFI: one FDE's program, run up to pc. */
static void interpret(const struct zt_cfi_table *t, uintptr_t pc, struct zt_cfi_row *out)
{
	const struct zt_cfi_image *img = &t->img;
	const unsigned char *p = NULL, *next;
	int64_t i = search_index(t, pc);
	/* Before the CIE's rules: on AArch64 the return address is in x30. */
	struct state init = { .cfa = ZT_CFA_BAD, .fp = ZT_REG_SAME,
			      .ra = ZT_ARCH_RA_IN_X ? RA_AT_CFA : RA_ELSEWHERE }, s, at;
	struct sink cie_sink = { 0 }, one = { .at = &at, .target = pc };
	struct cie ci;
	struct fde x;
	uint32_t skipped = 0;
	uintptr_t loc;

	make_row(out, NULL, 0);
	/*
	 * The entry found may be an FDE that does not hold pc where another
	 * does: rustc's libLLVM has an empty FDE at the pc of the real one
	 * that follows it in .eh_frame, and its search table lists only the
	 * empty one; a malformed FDE may hide one before it. So a few records
	 * after the entry's, and a few entries back, are tried, no more.
	 */
	for (int64_t stop = i - LAZY_TRIES; i >= 0 && i > stop && !p; i--) {
		const unsigned char *q = search_fde(t, (uint32_t)i);
		/* A rejected FDE's row ends where the next FDE starts, as compiled. */
		uintptr_t bound = (uint32_t)i + 1 < t->nfdes ?
				  search_at(t, t->search + 8 * (size_t)(i + 1)) : UINTPTR_MAX;

		for (int k = 0; q && k < LAZY_TRIES; k++) {
			enum rec r = read_fde(img, q, img->mem + img->len, &x, &ci, &next, &skipped);

			if (r == REC_FDE && pc >= x.begin && pc < x.end && (!x.untrusted || pc < bound)) {
				p = q;
				break;
			}
			q = r == REC_STOP || (r == REC_FDE && x.begin > pc) ? NULL : next;
		}
	}
	if (!p)
		return;
	if (x.untrusted) {
		out->kind = ZT_CFA_BAD;
		note_rejected(t, p);
		return;
	}
	if (ci.end - ci.insns > ZT_CFI_LAZY_MAX || x.insns_end - x.insns > ZT_CFI_LAZY_MAX)
		return;
	loc = x.begin;
	if (run(img, &ci, ci.insns, ci.end, &init, NULL, &loc, x.end, &cie_sink) < 0)
		return;
	s = init;
	if (run(img, &ci, x.insns, x.insns_end, &s, &init, &loc, x.end, &one) < 0)
		return;
	make_row(out, one.got ? &at : &s, ci.sigframe);
}

/* A cache slot as two words, and back: the row's bytes, whatever its layout. */
typedef char zt_cfi_row_fits[sizeof(struct zt_cfi_row) <= 2 * sizeof(uint64_t) ? 1 : -1];

int zt_cfi_lookup(const struct zt_cfi_table *t, uintptr_t pc, int read_image, struct zt_cfi_row *out)
{
	struct zt_cfi_slot *sl;
	uint64_t w[2] = { 0, 0 }, k;

	if (!t->lazy) {
		const struct zt_cfi_row *r = zt_cfi_row_at(t, pc);

		if (r)
			*out = *r;
		return r != NULL;
	}
	if (pc < t->lo || pc >= t->hi)
		return 0;
	/* A multiplicative hash: nearby return addresses spread over the slots. */
	sl = &t->slots[(uint64_t)pc * 0x9e3779b97f4a7c15ull >> (64 - __builtin_ctz(t->nslots))];
	if (__atomic_load_n(&sl->key, __ATOMIC_ACQUIRE) == pc) {
		w[0] = __atomic_load_n(&sl->row[0], __ATOMIC_RELAXED);
		w[1] = __atomic_load_n(&sl->row[1], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&sl->key, __ATOMIC_RELAXED) == pc) {
			__builtin_memcpy(out, w, sizeof *out);
			return out->kind != ZT_CFA_NONE;
		}
	}
	if (!read_image)
		return 0;
	interpret(t, pc, out);
	/* Kept unless another writer holds the slot (the row is found again next time). */
	k = __atomic_load_n(&sl->key, __ATOMIC_RELAXED);
	if (k != 1 && __atomic_compare_exchange_n(&sl->key, &k, 1, 0, __ATOMIC_ACQ_REL,
						  __ATOMIC_RELAXED)) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__builtin_memcpy(w, out, sizeof *out);
		__atomic_store_n(&sl->row[0], w[0], __ATOMIC_RELAXED);
		__atomic_store_n(&sl->row[1], w[1], __ATOMIC_RELAXED);
		__atomic_store_n(&sl->key, (uint64_t)pc, __ATOMIC_RELEASE);
	}
	return out->kind != ZT_CFA_NONE;
}

const struct zt_cfi_row *zt_cfi_row_at(const struct zt_cfi_table *t, uintptr_t pc)
{
	uint32_t lo = 0, hi = t->nrows, off;

	if (pc < t->lo || pc >= t->hi)
		return NULL;
	off = (uint32_t)(pc - t->lo);
	/* The last row whose start is at or below off. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (t->nrows == 0 || t->rows[lo].start > off || t->rows[lo].kind == ZT_CFA_NONE)
		return NULL;
	return &t->rows[lo];
}

const struct zt_cfi_table *zt_cfi_find(const struct zt_cfi_set *s, uintptr_t pc)
{
	uint32_t lo = 0, hi;

	if (!s || s->n == 0)
		return NULL;
	hi = s->n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->t[mid]->lo <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (pc < s->t[lo]->lo || pc >= s->t[lo]->hi)
		return NULL;
	return s->t[lo];
}

size_t zt_cfi_segs_of(const struct dl_phdr_info *info, struct zt_cfi_seg *out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		if (n < max) {
			out[n].lo = info->dlpi_addr + ph->p_vaddr;
			out[n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			out[n].exec = (ph->p_flags & PF_X) != 0;
		}
		n++;
	}
	return n;
}

const struct zt_cfi_seg *zt_cfi_seg_of(const struct zt_cfi_set *s, uintptr_t a)
{
	uint32_t lo = 0, hi;

	if (!s || s->nseg == 0)
		return NULL;
	hi = s->nseg;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->seg[mid].lo <= a)
			lo = mid;
		else
			hi = mid;
	}
	if (a < s->seg[lo].lo || a >= s->seg[lo].hi)
		return NULL;
	return &s->seg[lo];
}
