/*
 * ehcursor.h — the one bounded cursor over .eh_frame and .eh_frame_hdr
 * bytes: fixed-size little-endian fields, LEB128 numbers and pointers in a
 * DW_EH_PE_* encoding (dwarfpe.h). Shared by the collector's CFI compiler
 * (collect/cfi.c, which also runs it in a signal handler for a lazy table)
 * and the symbolizer's FDE reader (lib/ehframe.c), as dwarfpe.h is: only
 * static inline functions, which call nothing (not even libc's string
 * functions) and keep their state in the caller's cursor.
 *
 * A read past end, or a pointer in an encoding that is not allowed, marks
 * the cursor bad, returns 0 and moves it to end, so that every read after
 * it fails too and a caller checks bad once, after a run of reads.
 */
#ifndef ZT_EHCURSOR_H
#define ZT_EHCURSOR_H

#include <stdint.h>

#include "dwarfpe.h"

struct zt_ehcursor {
	const unsigned char *p, *end;	/* the next byte; the end of what may be read */
	const unsigned char *mem;	/* a byte whose address is known (p's section, image) */
	uint64_t addr;			/* mem's address: the base of DW_EH_PE_pcrel */
	uint64_t datarel;		/* the base of DW_EH_PE_datarel, */
	int datarel_ok;			/* or 0: a datarel pointer is malformed */
	int bad;
};

/* Mark c malformed: bad, and nothing more to read. */
static inline uint64_t zt_ehcursor_fail(struct zt_ehcursor *c)
{
	c->bad = 1;
	c->p = c->end;
	return 0;
}

/* The address of the next byte. */
static inline uint64_t zt_ehcursor_here(const struct zt_ehcursor *c)
{
	return c->addr + (uint64_t)(c->p - c->mem);
}

static inline uint64_t zt_ehcursor_u8(struct zt_ehcursor *c)
{
	if (c->p >= c->end)
		return zt_ehcursor_fail(c);
	return *c->p++;
}

/* An n-byte little-endian field (n <= 8). */
static inline uint64_t zt_ehcursor_fixed(struct zt_ehcursor *c, unsigned n)
{
	uint64_t v = 0;

	if (c->p > c->end || (uint64_t)(c->end - c->p) < n)
		return zt_ehcursor_fail(c);
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | c->p[i];
	c->p += n;
	return v;
}

/* LEB128; bits past the 64th are dropped. */
static inline uint64_t zt_ehcursor_leb(struct zt_ehcursor *c, int is_signed)
{
	uint64_t v = 0, b;
	unsigned shift = 0;

	do {
		b = zt_ehcursor_u8(c);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static inline uint64_t zt_ehcursor_uleb(struct zt_ehcursor *c)
{
	return zt_ehcursor_leb(c, 0);
}

static inline int64_t zt_ehcursor_sleb(struct zt_ehcursor *c)
{
	return (int64_t)zt_ehcursor_leb(c, 1);
}

/*
 * A pointer in encoding enc, its relative base applied; 0 for PE_OMIT.
 * Indirect pointers (personality routines) are not followed: the caller
 * masks PE_INDIRECT off where only the size matters.
 */
static inline uint64_t zt_ehcursor_pointer(struct zt_ehcursor *c, unsigned enc)
{
	uint64_t at = zt_ehcursor_here(c), v;

	if (enc == PE_OMIT)
		return 0;
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = zt_ehcursor_fixed(c, 8); break;
	case PE_ULEB128: v = zt_ehcursor_uleb(c); break;
	case PE_UDATA2: v = zt_ehcursor_fixed(c, 2); break;
	case PE_UDATA4: v = zt_ehcursor_fixed(c, 4); break;
	case PE_UDATA8: v = zt_ehcursor_fixed(c, 8); break;
	case PE_SLEB128: v = (uint64_t)zt_ehcursor_sleb(c); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)zt_ehcursor_fixed(c, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)zt_ehcursor_fixed(c, 4); break;
	case PE_SDATA8: v = zt_ehcursor_fixed(c, 8); break;
	default: return zt_ehcursor_fail(c);
	}
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL:
		if (!c->datarel_ok)
			return zt_ehcursor_fail(c);
		v += c->datarel;
		break;
	default: return zt_ehcursor_fail(c);	/* textrel, funcrel, aligned: not on x86-64 */
	}
	return v;
}

#endif
