/*
 * ehframe.c — FDE ranges from .eh_frame_hdr and .eh_frame (ehframe.h), in
 * the .eh_frame form of the LSB (Linux Standard Base Core, "Exception Frames"):
 * records of a length, an id (0 for a CIE, else the distance back to the
 * FDE's CIE), and for an FDE its pc_begin and pc_range in the pointer
 * encoding its CIE's augmentation 'R' names. Only those two fields are read;
 * the call-frame programs are the collector's business (collect/cfi.c, which
 * runs inside the profiled process and cannot use lib/). Every read is
 * bounded by its section, so a corrupt file skips records, never reads
 * outside the file.
 */
#include "ehframe.h"
#include "ranges.h"
#include "util.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehcursor.h"

/* A section's bytes and its link-time address. */
struct sect {
	const unsigned char *p;
	uint64_t size, addr;
};

/* A cursor over s from off to its end (lib/ehcursor.h); datarel 0: not allowed. */
static struct zt_ehcursor cursor(const struct sect *s, uint64_t off, uint64_t datarel)
{
	return (struct zt_ehcursor){ .p = s->p + off, .end = s->p + s->size, .mem = s->p,
				     .addr = s->addr, .datarel = datarel, .datarel_ok = datarel != 0 };
}

/*
 * The record at off: its length field read, the cursor at its id, end at
 * its end. *idlen is the size of the id (4, or 8 in 64-bit DWARF). Returns
 * -1 for the zero terminator or a record that runs off the section.
 */
static int record(const struct sect *s, uint64_t off, struct zt_ehcursor *c, unsigned *idlen)
{
	uint64_t len;

	if (off > s->size)
		return -1;
	*c = cursor(s, off, 0);
	len = zt_ehcursor_fixed(c, 4);
	*idlen = 4;
	if (len == 0xffffffff) {
		len = zt_ehcursor_fixed(c, 8);
		*idlen = 8;
	}
	if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p))
		return -1;
	c->end = c->p + len;
	return 0;
}

/* The pointer encoding of the FDEs of the CIE at off, or -1. */
static int cie_encoding(const struct sect *s, uint64_t off)
{
	struct zt_ehcursor c;
	unsigned idlen, enc = PE_ABSPTR;
	uint64_t version, auglen;
	const unsigned char *aug;

	if (record(s, off, &c, &idlen) < 0 || zt_ehcursor_fixed(&c, idlen) != 0)
		return -1;
	version = zt_ehcursor_fixed(&c, 1);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = c.p;
	while (!c.bad && zt_ehcursor_fixed(&c, 1) != 0)
		;
	if (c.bad)
		return -1;
	if (version == 4)
		zt_ehcursor_fixed(&c, 2);	/* address_size, segment_selector_size */
	zt_ehcursor_uleb(&c);		/* code alignment */
	zt_ehcursor_sleb(&c);		/* data alignment */
	if (version == 1)
		zt_ehcursor_fixed(&c, 1);	/* return address register */
	else
		zt_ehcursor_uleb(&c);
	if (c.bad)
		return -1;
	if (aug[0] == '\0')
		return PE_ABSPTR;
	if (aug[0] != 'z')
		return -1;	/* an augmentation without 'z' cannot be skipped */
	auglen = zt_ehcursor_uleb(&c);
	if (c.bad || auglen > (uint64_t)(c.end - c.p))
		return -1;
	c.end = c.p + auglen;
	for (const unsigned char *a = aug + 1; *a && !c.bad; a++) {
		if (*a == 'R') {
			enc = (unsigned)zt_ehcursor_fixed(&c, 1);
		} else if (*a == 'P') {
			unsigned penc = (unsigned)zt_ehcursor_fixed(&c, 1);

			if (penc == PE_OMIT)
				continue;
			/* A personality pointer may be datarel; only its size matters. */
			c.datarel = 1;
			c.datarel_ok = 1;
			zt_ehcursor_pointer(&c, penc & (unsigned)~PE_INDIRECT);
			c.datarel = 0;
			c.datarel_ok = 0;
		} else if (*a == 'L') {
			zt_ehcursor_fixed(&c, 1);
		} else if (*a != 'S' && *a != 'B' && *a != 'G') {
			break;	/* unknown: the length skips the rest */
		}
	}
	if (c.bad || enc == PE_OMIT || (enc & PE_INDIRECT))
		return -1;
	return (int)enc;
}

/* The FDE at off into *f; -1 if it is a CIE, the terminator or malformed. */
static int read_fde(const struct sect *s, uint64_t off, struct zt_fde *f)
{
	struct zt_ehcursor c;
	unsigned idlen;
	uint64_t idpos, id;
	int enc;

	if (record(s, off, &c, &idlen) < 0)
		return -1;
	idpos = (uint64_t)(c.p - s->p);
	id = zt_ehcursor_fixed(&c, idlen);
	if (c.bad || id == 0 || id > idpos)
		return -1;
	enc = cie_encoding(s, idpos - id);
	if (enc < 0)
		return -1;
	f->start = zt_ehcursor_pointer(&c, (unsigned)enc);
	f->size = zt_ehcursor_pointer(&c, (unsigned)enc & 0x0f);
	f->up = 0;
	return c.bad ? -1 : 0;
}

static void add(struct zt_ehframe *t, size_t *cap, const struct zt_fde *f)
{
	if (f->size == 0 || f->start == 0)
		return;	/* covers nothing, or a discarded section's */
	zt_grow(&t->fdes, cap, t->n + 1, sizeof *t->fdes);
	t->fdes[t->n++] = *f;
}

static void problem(struct zt_ehframe *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct zt_ehframe *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->problem, sizeof t->problem, fmt, ap);
	va_end(ap);
	free(t->fdes);
	t->fdes = NULL;
	t->n = 0;
}

/*
 * The FDEs through .eh_frame_hdr's table: version 1, the encodings of the
 * .eh_frame pointer, the count and the table, then the table's sorted
 * (initial location, FDE address) pairs. 0, or -1 (problem set when the
 * header is unsound rather than merely tableless).
 */
static int from_hdr(struct zt_ehframe *t, const struct sect *hdr, const struct sect *eh)
{
	struct zt_ehcursor c = cursor(hdr, 0, hdr->addr);
	unsigned penc, cenc, tenc;
	uint64_t count, prev = 0;
	size_t cap = 0;

	if (zt_ehcursor_fixed(&c, 1) != 1 || c.bad) {
		problem(t, "version is not 1");
		return -1;
	}
	penc = (unsigned)zt_ehcursor_fixed(&c, 1);
	cenc = (unsigned)zt_ehcursor_fixed(&c, 1);
	tenc = (unsigned)zt_ehcursor_fixed(&c, 1);
	if (penc == PE_OMIT || (zt_ehcursor_pointer(&c, penc) != eh->addr && !c.bad)) {
		problem(t, "its .eh_frame pointer is not .eh_frame's address");
		return -1;
	}
	if (cenc == PE_OMIT || tenc == PE_OMIT)
		return -1;	/* no table: legal, walk .eh_frame */
	count = zt_ehcursor_pointer(&c, cenc);
	if (c.bad) {
		problem(t, "truncated header");
		return -1;
	}
	/* Each entry takes at least 2 bytes: a count past that is a lie. */
	if (count > (uint64_t)(c.end - c.p) / 2) {
		problem(t, "its table of %llu entries runs past its end",
			(unsigned long long)count);
		return -1;
	}
	for (uint64_t i = 0; i < count; i++) {
		struct zt_fde f;
		uint64_t loc = zt_ehcursor_pointer(&c, tenc), fde = zt_ehcursor_pointer(&c, tenc);

		if (c.bad) {
			problem(t, "entry %llu: not readable", (unsigned long long)i);
			return -1;
		}
		if (i > 0 && loc < prev) {
			problem(t, "its table is not sorted (entry %llu)", (unsigned long long)i);
			return -1;
		}
		prev = loc;
		if (fde - eh->addr >= eh->size) {
			problem(t, "entry %llu points outside .eh_frame", (unsigned long long)i);
			return -1;
		}
		if (read_fde(eh, fde - eh->addr, &f) < 0) {
			problem(t, "entry %llu points to no FDE", (unsigned long long)i);
			return -1;
		}
		if (f.start != loc) {
			problem(t, "entry %llu: its FDE starts at 0x%llx, not 0x%llx",
				(unsigned long long)i, (unsigned long long)f.start,
				(unsigned long long)loc);
			return -1;
		}
		add(t, &cap, &f);
	}
	t->from_hdr = 1;
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct zt_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* At one start the larger first, so that a nested one is found. */
	return x->size > y->size ? -1 : x->size < y->size;
}

/* Every FDE of .eh_frame, in order up to its terminator, then sorted. */
static void walk(struct zt_ehframe *t, const struct sect *eh)
{
	size_t cap = 0;
	uint64_t off = 0;

	while (off < eh->size) {
		struct zt_ehcursor c;
		struct zt_fde f;
		unsigned idlen;

		if (record(eh, off, &c, &idlen) < 0)
			break;	/* the terminator, or the rest cannot be read */
		if (read_fde(eh, off, &f) == 0)
			add(t, &cap, &f);
		off = (uint64_t)(c.end - eh->p);
	}
	if (t->n > 1)
		qsort(t->fdes, t->n, sizeof *t->fdes, cmp_fde);
}

static int fde_holds(const void *p, uint64_t vaddr)
{
	const struct zt_fde *f = p;

	return vaddr - f->start < f->size;
}

#define FDE_RANGES(t) ZT_RANGES((t)->fdes, (t)->n, struct zt_fde, start, up, fde_holds)

/*
 * Whether a section of type type in e holds bytes of the file. On x86-64,
 * .eh_frame and .eh_frame_hdr may be SHT_X86_64_UNWIND: the type clang's
 * assembler gives .eh_frame, which GNU gold keeps for both (Debian's
 * libLLVM, libclang-cpp and clang are linked so).
 */
static int unwind_type(const struct zt_elf *e, uint32_t type)
{
	return type == SHT_PROGBITS || (type == SHT_X86_64_UNWIND && e->machine == EM_X86_64);
}

/* A section's bytes, or 0 when it is absent, empty or not in the file. */
static int section(const struct zt_elf *e, const char *name, struct sect *s)
{
	const struct zt_section *sh = zt_elf_section(e, name);

	if (!sh || !unwind_type(e, sh->type) || sh->size == 0 ||
	    sh->offset > e->size || sh->size > e->size - sh->offset)
		return 0;
	s->p = e->data + sh->offset;
	s->size = sh->size;
	s->addr = sh->addr;
	return 1;
}

void zt_ehframe_read(const struct zt_elf *e, struct zt_ehframe *t)
{
	struct sect eh, hdr;

	memset(t, 0, sizeof *t);
	if (!section(e, ".eh_frame", &eh))
		return;
	if (!section(e, ".eh_frame_hdr", &hdr) || from_hdr(t, &hdr, &eh) < 0)
		walk(t, &eh);
	if (t->n >= UINT32_MAX) {
		t->n = 0;	/* zt_ranges_link's limit; no file comes near */
		return;
	}
	zt_ranges_link(&FDE_RANGES(t));
}

const struct zt_fde *zt_ehframe_lookup(const struct zt_ehframe *t, uint64_t vaddr)
{
	size_t i = zt_ranges_holder(&FDE_RANGES(t), vaddr);

	return i ? &t->fdes[i - 1] : NULL;
}

void zt_ehframe_free(struct zt_ehframe *t)
{
	free(t->fdes);
	memset(t, 0, sizeof *t);
}
