/*
 * cfi.c — compile .eh_frame into the sampler's unwind rows (cfi.h).
 *
 * The call-frame programs of each FDE (DWARF 4 section 6.4, in the .eh_frame
 * form of the LSB) are run once, here, and reduced to the three rules the
 * unwinder needs: the CFA, the return address (at CFA - 8 on x86-64) and
 * rbp. Every read is bounded by the image; anything malformed skips its CIE
 * or FDE, whose pcs then have no row and fall back to frame pointers. Never
 * called from a signal handler: it allocates.
 */
#include "cfi.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum {
	REG_RBX = 3,
	REG_RBP = 6,
	REG_RSP = 7,
	REG_RA = 16,
	MAX_STATES = 16,	/* DW_CFA_remember_state nesting kept */
	MAX_ROWS = 1 << 24,	/* rows per object: far above any real one */
};

#include "dwarfpe.h"

/* A bounded cursor over the image. */
struct cur {
	const unsigned char *p, *end;
	const struct zt_cfi_image *img;
	int bad;
};

static uint64_t u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

static uint64_t fixed(struct cur *c, int n)
{
	uint64_t v = 0;

	if (c->end - c->p < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | c->p[i];
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint64_t b = u8(c);

		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0, b;
	unsigned shift = 0;

	do {
		b = u8(c);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A ULEB128 operand that must fit int64_t. */
static int64_t uoperand(struct cur *c)
{
	uint64_t v = uleb(c);

	if (v > INT64_MAX) {
		c->bad = 1;
		return 0;
	}
	return (int64_t)v;
}

/* A factored operand times the CIE's alignment; malformed if it overflows. */
static int64_t scaled(struct cur *c, int64_t v, int64_t align)
{
	int64_t r;

	if (__builtin_mul_overflow(v, align, &r)) {
		c->bad = 1;
		return 0;
	}
	return r;
}

/* The run-time address of the cursor. */
static uintptr_t here(const struct cur *c)
{
	return c->img->addr + (uintptr_t)(c->p - c->img->mem);
}

/*
 * A pointer in encoding enc. Indirect pointers (personality routines) are
 * not followed: their value is not needed, only their size.
 */
static uint64_t pointer(struct cur *c, unsigned enc)
{
	uintptr_t at = here(c);
	uint64_t v;

	if (enc == PE_OMIT)
		return 0;
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = fixed(c, 8); break;
	case PE_ULEB128: v = uleb(c); break;
	case PE_UDATA2: v = fixed(c, 2); break;
	case PE_UDATA4: v = fixed(c, 4); break;
	case PE_UDATA8: v = fixed(c, 8); break;
	case PE_SLEB128: v = (uint64_t)sleb(c); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case PE_SDATA8: v = fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL: v += c->img->hdr; break;
	default: c->bad = 1; return 0;	/* textrel, funcrel, aligned: not on x86-64 */
	}
	return v;
}

/* The register rules one row is made of. */
struct state {
	uint8_t cfa;		/* ZT_CFA_RSP, _RBP, _PLT or _BAD */
	int64_t cfa_off;
	int64_t plt;		/* the PLT expression's threshold */
	uint8_t rbp;		/* enum zt_rbp_rule */
	int64_t rbp_off;
	uint8_t rbx;		/* enum zt_rbp_rule */
	int64_t rbx_off;
	uint8_t ra;		/* 0 at CFA - 8, 1 undefined, 2 anything else */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned fde_enc;
	int has_z, signal;
	const unsigned char *insns, *end;
};

/* Read the CIE at p (its length field). 0 on success. */
static int read_cie(const struct zt_cfi_image *img, const unsigned char *p, struct cie *ci)
{
	struct cur c = { p, img->mem + img->len, img, 0 };
	uint64_t len = fixed(&c, 4), ra, version;
	const char *aug;
	size_t auglen;

	if (c.bad || len == 0 || len == 0xffffffff || len > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + len;
	if (fixed(&c, 4) != 0)	/* a CIE's id is 0 in .eh_frame */
		return -1;
	version = u8(&c);
	if (version != 1 && version != 3)
		return -1;
	aug = (const char *)c.p;
	auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	if (strstr(aug, "eh"))	/* gcc 2's pointer: obsolete */
		return -1;
	memset(ci, 0, sizeof *ci);
	ci->fde_enc = PE_ABSPTR;
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	ra = version == 1 ? u8(&c) : uleb(&c);
	if (c.bad || ra != REG_RA || ci->code_align == 0)
		return -1;
	if (aug[0] == 'z') {
		uint64_t n = uleb(&c);
		const unsigned char *after;

		if (c.bad || n > (uint64_t)(c.end - c.p))
			return -1;
		after = c.p + n;
		ci->has_z = 1;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (unsigned)u8(&c);
				if (ci->fde_enc & PE_INDIRECT)
					return -1;	/* an FDE's pc is never indirect */
			} else if (*a == 'P') {
				unsigned enc = (unsigned)u8(&c);

				pointer(&c, enc & (unsigned)~PE_INDIRECT);
			} else if (*a == 'L') {
				u8(&c);
			} else if (*a == 'S') {
				ci->signal = 1;
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
struct rows {
	struct zt_cfi_row *r;
	size_t n, cap;
	uintptr_t lo;
	int full;
};

static void emit(struct rows *rs, uintptr_t pc, const struct state *s, int signal,
		 struct zt_cfi_stats *st)
{
	struct zt_cfi_row row = { 0 };

	row.start = (uint32_t)(pc - rs->lo);
	if (!s) {
		row.kind = ZT_CFA_NONE;
	} else if (s->ra == 1) {
		row.kind = ZT_CFA_END;
	} else if (signal) {
		row.kind = ZT_CFA_SIGNAL;
	} else if (s->ra != 0 || s->cfa == ZT_CFA_BAD ||
		   s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX) {
		row.kind = ZT_CFA_BAD;
	} else {
		row.kind = s->cfa;
		row.cfa_off = (int32_t)s->cfa_off;
		if (s->cfa == ZT_CFA_PLT)
			row.arg = (int16_t)s->plt;
		row.rbp = s->rbp;
		if (s->rbp == ZT_RBP_SAVED && s->cfa == ZT_CFA_PLT) {
			row.rbp = ZT_RBP_LOST;	/* arg holds the threshold */
		} else if (s->rbp == ZT_RBP_SAVED) {
			if (s->rbp_off < INT16_MIN || s->rbp_off > INT16_MAX)
				row.rbp = ZT_RBP_LOST;
			else
				row.arg = (int16_t)s->rbp_off;
		}
		row.rbx = s->rbx;
		if (s->rbx == ZT_RBP_SAVED) {
			if (s->rbx_off < INT16_MIN || s->rbx_off > INT16_MAX)
				row.rbx = ZT_RBP_LOST;
			else
				row.rbx_off = (int16_t)s->rbx_off;
		}
	}
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
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 1024;
		struct zt_cfi_row *r;

		if (cap > MAX_ROWS || !(r = realloc(rs->r, cap * sizeof *r))) {
			rs->full = 1;
			return;
		}
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n++] = row;
}

/* The CFA kind for a register-based rule. */
static uint8_t cfa_reg(uint64_t reg)
{
	return reg == REG_RSP ? ZT_CFA_RSP : reg == REG_RBP ? ZT_CFA_RBP :
	       reg == REG_RBX ? ZT_CFA_RBX : ZT_CFA_BAD;
}

/* Whether the expression [p, end) is the PLT's; sets the rules if so. */
static int plt_expression(const unsigned char *p, const unsigned char *end, struct state *s)
{
	/* DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK;
	 * DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus */
	static const unsigned char tail[] = { 0x80, 0x00, 0x3f, 0x1a };
	static const unsigned char last[] = { 0x2a, 0x33, 0x24, 0x22 };
	int64_t off;

	if (end - p != 11 || p[0] != 0x77 || (p[1] & 0x80))
		return 0;
	off = p[1] & 0x40 ? (int64_t)p[1] - 0x80 : p[1];
	if (memcmp(p + 2, tail, sizeof tail) != 0 || p[6] < 0x30 || p[6] > 0x4f ||
	    memcmp(p + 7, last, sizeof last) != 0)
		return 0;
	s->cfa = ZT_CFA_PLT;
	s->cfa_off = off;
	s->plt = p[6] - 0x30;
	return 1;
}

/*
 * Run a call-frame program from [p, end) on s, starting at pc loc; emit a
 * row at each advance when rs is given. init is the CIE's state, for
 * DW_CFA_restore. Returns 0, or -1 on a malformed program.
 */
static int run(const struct zt_cfi_image *img, const struct cie *ci,
	       const unsigned char *p, const unsigned char *end, struct state *s,
	       const struct state *init, uintptr_t *loc, uintptr_t limit,
	       struct rows *rs, struct zt_cfi_stats *st)
{
	struct cur c = { p, end, img, 0 };
	struct state saved[MAX_STATES];
	int nsaved = 0;

	while (c.p < c.end && !c.bad) {
		unsigned op = (unsigned)u8(&c), low = op & 0x3f;
		uint64_t reg = 0, delta = 0;
		int64_t off = 0;
		int set_reg = 0, rule = 0;	/* rule: 1 offset, 2 same, 3 lost, 4 restore */

		switch (op >> 6) {
		case 1:	/* DW_CFA_advance_loc */
			delta = low;
			goto advance;
		case 2:	/* DW_CFA_offset */
			reg = low;
			off = scaled(&c, uoperand(&c), ci->data_align);
			set_reg = 1, rule = 1;
			break;
		case 3:	/* DW_CFA_restore */
			reg = low;
			set_reg = 1, rule = 4;
			break;
		default:
			switch (op) {
			case 0x00:	/* nop */
				break;
			case 0x01:	/* set_loc */
				{
					uint64_t to = pointer(&c, ci->fde_enc);

					if (to < *loc)
						return -1;
					delta = (to - *loc) / ci->code_align;
				}
				goto advance;
			case 0x02: delta = fixed(&c, 1); goto advance;
			case 0x03: delta = fixed(&c, 2); goto advance;
			case 0x04: delta = fixed(&c, 4); goto advance;
			case 0x05:	/* offset_extended */
				reg = uleb(&c);
				off = scaled(&c, uoperand(&c), ci->data_align);
				set_reg = 1, rule = 1;
				break;
			case 0x11:	/* offset_extended_sf */
				reg = uleb(&c);
				off = scaled(&c, sleb(&c), ci->data_align);
				set_reg = 1, rule = 1;
				break;
			case 0x2f:	/* GNU_negative_offset_extended */
				reg = uleb(&c);
				off = scaled(&c, -uoperand(&c), ci->data_align);
				set_reg = 1, rule = 1;
				break;
			case 0x06:	/* restore_extended */
				reg = uleb(&c);
				set_reg = 1, rule = 4;
				break;
			case 0x07:	/* undefined */
				reg = uleb(&c);
				set_reg = 1, rule = 5;
				break;
			case 0x08:	/* same_value */
				reg = uleb(&c);
				set_reg = 1, rule = 2;
				break;
			case 0x09:	/* register */
				reg = uleb(&c);
				uleb(&c);
				set_reg = 1, rule = 3;
				break;
			case 0x14:	/* val_offset */
			case 0x15:	/* val_offset_sf */
				reg = uleb(&c);
				if (op == 0x14)
					uleb(&c);
				else
					sleb(&c);
				set_reg = 1, rule = 3;
				break;
			case 0x10:	/* expression */
			case 0x16:	/* val_expression */
				{
					uint64_t n;

					reg = uleb(&c);
					n = uleb(&c);
					if (c.bad || n > (uint64_t)(c.end - c.p))
						return -1;
					c.p += n;
					set_reg = 1, rule = 3;
				}
				break;
			case 0x0a:	/* remember_state */
				if (nsaved == MAX_STATES)
					return -1;
				saved[nsaved++] = *s;
				break;
			case 0x0b:	/* restore_state */
				if (nsaved == 0)
					return -1;
				/* The CFA rule too, as gcc's code expects. */
				*s = saved[--nsaved];
				break;
			case 0x0c:	/* def_cfa */
				reg = uleb(&c);
				s->cfa_off = uoperand(&c);
				s->cfa = cfa_reg(reg);
				break;
			case 0x12:	/* def_cfa_sf */
				reg = uleb(&c);
				s->cfa_off = scaled(&c, sleb(&c), ci->data_align);
				s->cfa = cfa_reg(reg);
				break;
			case 0x0d:	/* def_cfa_register */
				reg = uleb(&c);
				if (s->cfa == ZT_CFA_PLT)
					s->cfa = ZT_CFA_BAD;	/* no offset to keep */
				else if (s->cfa != ZT_CFA_BAD || cfa_reg(reg) != ZT_CFA_BAD)
					s->cfa = cfa_reg(reg);
				break;
			case 0x0e:	/* def_cfa_offset */
			case 0x13:	/* def_cfa_offset_sf */
				s->cfa_off = op == 0x0e ? uoperand(&c) :
					     scaled(&c, sleb(&c), ci->data_align);
				if (s->cfa == ZT_CFA_PLT)
					s->cfa = ZT_CFA_BAD;	/* the expression stays, as in libgcc */
				break;
			case 0x0f:	/* def_cfa_expression */
				{
					uint64_t n = uleb(&c);

					if (c.bad || n > (uint64_t)(c.end - c.p))
						return -1;
					if (!plt_expression(c.p, c.p + n, s))
						s->cfa = ZT_CFA_BAD;
					c.p += n;
				}
				break;
			case 0x2e:	/* GNU_args_size */
				uleb(&c);
				break;
			default:
				return -1;	/* an op zt does not know: its operands cannot be skipped */
			}
		}
		if (c.bad)
			return -1;
		if (set_reg && reg == REG_RA) {
			if (rule == 4 && !init)
				return -1;	/* restore inside a CIE */
			s->ra = rule == 4 ? init->ra : rule == 5 ? 1 : rule == 1 && off == -8 ? 0 : 2;
		} else if (set_reg && (reg == REG_RBP || reg == REG_RBX)) {
			uint8_t *r = reg == REG_RBP ? &s->rbp : &s->rbx;
			int64_t *o = reg == REG_RBP ? &s->rbp_off : &s->rbx_off;

			if (rule == 4) {
				if (!init)
					return -1;
				*r = reg == REG_RBP ? init->rbp : init->rbx;
				*o = reg == REG_RBP ? init->rbp_off : init->rbx_off;
			} else if (rule == 1) {
				*r = ZT_RBP_SAVED;
				*o = off;
			} else {
				*r = rule == 2 ? ZT_RBP_SAME : ZT_RBP_LOST;
			}
		}
		continue;
advance:
		if (c.bad)
			return -1;
		if (rs) {
			uint64_t step;

			/* Past the FDE's end (or at it): the rest does not apply. */
			if (__builtin_mul_overflow(delta, ci->code_align, &step) ||
			    *loc >= limit || step > limit - *loc)
				return 0;
			emit(rs, *loc, s, ci->signal, st);
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

/* Where .eh_frame starts, from .eh_frame_hdr; NULL if unreadable. */
static const unsigned char *eh_frame_start(const struct zt_cfi_image *img)
{
	struct cur c;
	uint64_t at;

	if (img->hdr < img->addr || img->hdr - img->addr >= img->len)
		return NULL;
	c.p = img->mem + (img->hdr - img->addr);
	c.end = img->mem + img->len;
	c.img = img;
	c.bad = 0;
	if (u8(&c) != 1)	/* version */
		return NULL;
	{
		unsigned enc = (unsigned)u8(&c);

		fixed(&c, 2);	/* the table's encodings: the table is not used */
		if (c.bad || enc == PE_OMIT || (enc & PE_INDIRECT))
			return NULL;
		at = pointer(&c, enc);
	}
	if (c.bad || at < img->addr || at - img->addr >= img->len)
		return NULL;
	return img->mem + (at - img->addr);
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

/*
 * Every FDE of .eh_frame, read in order up to its zero terminator or the end
 * of the image. The hdr's search table is not trusted to be complete.
 */
static struct fde *collect_fdes(const struct zt_cfi_image *img, size_t *nout,
				struct zt_cfi_stats *st)
{
	const unsigned char *p = eh_frame_start(img), *end = img->mem + img->len;
	struct fde *f = NULL;
	size_t n = 0, cap = 0;

	*nout = 0;
	if (!p)
		return NULL;
	while (end - p >= 4) {
		struct cur c = { p, end, img, 0 };
		uint64_t len = fixed(&c, 4), id;
		const unsigned char *start, *next;
		struct cie ci;
		struct fde x;

		if (len == 0)
			break;
		if (len == 0xffffffff || len > (uint64_t)(end - c.p)) {
			st->skipped++;	/* 64-bit DWARF is not used in .eh_frame */
			break;		/* nothing after a bad length can be found */
		}
		start = c.p;
		next = c.p + len;
		c.end = next;
		id = fixed(&c, 4);
		if (c.bad) {			/* too short for an id */
			st->skipped++;
			p = next;
			continue;
		}
		if (id == 0) {			/* a CIE: read with its first FDE */
			p = next;
			continue;
		}
		if (id > (uint64_t)(start - img->mem)) {
			st->skipped++;
			p = next;
			continue;
		}
		x.cie = start - id;
		if (read_cie(img, x.cie, &ci) < 0) {
			st->skipped++;
			p = next;
			continue;
		}
		x.begin = pointer(&c, ci.fde_enc);
		x.end = x.begin + pointer(&c, ci.fde_enc & 0x0f);
		if (ci.has_z) {
			uint64_t alen = uleb(&c);

			if (!c.bad && alen <= (uint64_t)(c.end - c.p))
				c.p += alen;
			else
				c.bad = 1;
		}
		if (c.bad || x.end <= x.begin || x.begin == 0) {
			st->skipped++;
			p = next;
			continue;
		}
		x.untrusted = !in_text(img, x.begin, x.end);
		if (x.untrusted) {
			/*
			 * Its range runs out of the object's code: rejected,
			 * but where it starts in the code, its pcs get a row
			 * that says no rule is trusted there (up to the next
			 * FDE), so that a walk through them is marked partial.
			 */
			st->skipped++;
			x.end = text_end(img, x.begin);
			if (!x.end) {
				p = next;
				continue;
			}
		}
		x.insns = c.p;
		x.insns_end = next;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			struct fde *g = realloc(f, ncap * sizeof *g);

			if (!g)
				break;
			f = g;
			cap = ncap;
		}
		f[n++] = x;
		p = next;
	}
	if (n > 1)	/* qsort's array may not be NULL, even when empty */
		qsort(f, n, sizeof *f, by_begin);
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
	struct rows rs = { 0 };
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
		struct state init = { .cfa = ZT_CFA_BAD, .rbp = ZT_RBP_SAME, .ra = 2 }, s;
		uintptr_t loc = f[i].begin;
		size_t mark = rs.n;

		if (f[i].untrusted) {
			static const struct state none = { .cfa = ZT_CFA_BAD, .ra = 2 };
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
		if (run(img, &ci, ci.insns, ci.end, &init, NULL, &loc, f[i].end, NULL, st) < 0) {
			st->skipped++;
			continue;
		}
		s = init;
		/* A row for the gap before this FDE ends the one before it. */
		if (rs.n > 0 && last_end < f[i].begin)
			emit(&rs, last_end, NULL, 0, st);
		if (run(img, &ci, f[i].insns, f[i].insns_end, &s, &init, &loc, f[i].end,
			&rs, st) < 0) {
			rs.n = mark;
			st->skipped++;
			continue;
		}
		if (loc < f[i].end)	/* not when the program advanced to the end */
			emit(&rs, loc, &s, ci.signal, st);
		last_end = f[i].end;
		st->fdes++;
	}
	if (rs.n == 0 || rs.full)
		goto out;
	emit(&rs, last_end, NULL, 0, st);	/* the end of the last FDE */
	size = sizeof *t + rs.n * sizeof *rs.r;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
	free(rs.r);
	free(f);
	return t;
}

void zt_cfi_free(struct zt_cfi_table *t)
{
	if (t)
		munmap(t, t->size);
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
