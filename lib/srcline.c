/*
 * srcline.c — a lazy DWARF reader over libdwarf.
 *
 * At open, only the CU index is built: .debug_aranges when present, else
 * each CU DIE's ranges. A CU is parsed when an address in it is first
 * looked up: its line table (rows sorted by address) and its scopes, one
 * interval per range of each DW_TAG_subprogram and DW_TAG_inlined_subroutine
 * with a depth (how many such scopes enclose it). An address's chain is
 * then the intervals that hold it, deepest first.
 *
 * libdwarf is given an error handler and an error pointer on every call, so
 * it never aborts; every return is checked, and a CU that fails is dropped
 * (its problem is remembered for one warning).
 */
#include "srcline.h"
#include "elfread.h"
#include "util.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

struct row {
	uint64_t addr;
	uint32_t file;
	uint32_t line;
	uint32_t seq;		/* order in the table, to sort stably */
	uint8_t end;		/* end_sequence: no code from here */
};

struct scope {
	uint64_t lo, hi;	/* [lo, hi) */
	uint32_t parent;	/* 1 + the interval that encloses it, or 0 */
	Dwarf_Off off;		/* the DIE, whose name is read when first asked */
	const char *name;
	int named;
	uint32_t depth;
	uint32_t call_file, call_line;	/* where this scope was inlined */
	uint32_t die;		/* which DIE: intervals of one DIE share it */
};

struct cu {
	Dwarf_Off die_off;	/* the CU DIE in .debug_info */
	int state;		/* 0 not read, 1 read, -1 failed */
	int version;
	int lversion;		/* the line table's: how file numbers count */
	int gnu_default_file;	/* DWARF 5 from gcc: a row's file 0 means 1 */
	char **files;
	Dwarf_Signed nfiles;
	struct row *rows;
	size_t nrows;
	struct scope *scopes;
	size_t nscopes;
};

struct arange {
	uint64_t lo, hi;
	size_t cu;
};

struct zt_dwarf {
	Dwarf_Debug dbg;
	int fd;
	struct cu *cus;
	size_t ncus;
	struct arange *ar;
	size_t nar;
	char *problem;
	const unsigned char *rng, *addr;	/* .debug_rnglists, .debug_addr */
	size_t nrng, naddr;
	int own_rng, own_addr;		/* decompressed: to be freed */
};

/* Where a CU's DWARF 5 lists and addresses start (DW_AT_*_base). */
struct bases {
	uint64_t rnglists, addr;
	uint64_t lowpc;
	int version;
};

static void on_error(Dwarf_Error e, Dwarf_Ptr arg)
{
	(void)e;
	(void)arg;	/* the caller sees DW_DLV_ERROR and its own error pointer */
}

static void note(struct zt_dwarf *dw, Dwarf_Error *e, const char *what)
{
	if (!dw->problem) {
		char buf[512];

		snprintf(buf, sizeof buf, "corrupt DWARF: %s%s%s", what,
			 e && *e ? ": " : "", e && *e ? dwarf_errmsg(*e) : "");
		dw->problem = zt_strdup(buf);
	}
	if (e && *e) {
		dwarf_dealloc(dw->dbg, *e, DW_DLA_ERROR);
		*e = NULL;
	}
}

static int uleb(const unsigned char *b, size_t n, size_t *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (*p < n) {
		unsigned char c = b[(*p)++];

		if (shift < 64)
			x |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int fixed(const unsigned char *b, size_t n, size_t *p, unsigned size, uint64_t *v)
{
	uint64_t x = 0;

	if (size > 8 || *p > n || n - *p < size)
		return -1;
	memcpy(&x, b + *p, size);	/* little-endian only, as the ELF reader */
	*p += size;
	*v = x;
	return 0;
}

/* Address number i of .debug_addr from the CU's base; 0 on success. */
static int addrx(const struct zt_dwarf *dw, const struct bases *cb, uint64_t i, uint64_t *v)
{
	size_t p;

	if (cb->addr > dw->naddr || i > (dw->naddr - cb->addr) / 8)
		return -1;
	p = (size_t)(cb->addr + i * 8);
	return fixed(dw->addr, dw->naddr, &p, 8, v);
}

/*
 * A DWARF 5 range list, decoded here rather than by libdwarf 20210528, which
 * reads out of bounds on a corrupt one (tests/fuzz/fuzz-dwarf.c). value is
 * the DW_AT_ranges value: an index (rnglistx) or a section offset.
 */
static int rnglist(struct zt_dwarf *dw, const struct bases *cb, int indexed,
		   uint64_t value, uint64_t **r, size_t *n, size_t *cap)
{
	uint64_t base = cb->lowpc, off, a, b;
	size_t p;

	if (!dw->rng)
		return -1;
	if (indexed) {
		/* 32-bit DWARF: 4-byte offsets from the base. */
		if (cb->rnglists > dw->nrng || value > (dw->nrng - cb->rnglists) / 4)
			return -1;
		p = (size_t)(cb->rnglists + value * 4);
		if (fixed(dw->rng, dw->nrng, &p, 4, &off) < 0 || off > dw->nrng - cb->rnglists)
			return -1;
		p = (size_t)(cb->rnglists + off);
	} else {
		if (value >= dw->nrng)
			return -1;
		p = (size_t)value;
	}
	for (int count = 0; count < 100000; count++) {
		unsigned char kind;

		if (p >= dw->nrng)
			return -1;
		kind = dw->rng[p++];
		switch (kind) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			if (uleb(dw->rng, dw->nrng, &p, &a) < 0 || addrx(dw, cb, a, &base) < 0)
				return -1;
			continue;
		case DW_RLE_startx_endx:
			if (uleb(dw->rng, dw->nrng, &p, &a) < 0 || uleb(dw->rng, dw->nrng, &p, &b) < 0 ||
			    addrx(dw, cb, a, &a) < 0 || addrx(dw, cb, b, &b) < 0)
				return -1;
			break;
		case DW_RLE_startx_length:
			if (uleb(dw->rng, dw->nrng, &p, &a) < 0 || uleb(dw->rng, dw->nrng, &p, &b) < 0 ||
			    addrx(dw, cb, a, &a) < 0)
				return -1;
			b += a;
			break;
		case DW_RLE_offset_pair:
			if (uleb(dw->rng, dw->nrng, &p, &a) < 0 || uleb(dw->rng, dw->nrng, &p, &b) < 0)
				return -1;
			a += base;
			b += base;
			break;
		case DW_RLE_base_address:
			if (fixed(dw->rng, dw->nrng, &p, 8, &base) < 0)
				return -1;
			continue;
		case DW_RLE_start_end:
			if (fixed(dw->rng, dw->nrng, &p, 8, &a) < 0 ||
			    fixed(dw->rng, dw->nrng, &p, 8, &b) < 0)
				return -1;
			break;
		case DW_RLE_start_length:
			if (fixed(dw->rng, dw->nrng, &p, 8, &a) < 0 || uleb(dw->rng, dw->nrng, &p, &b) < 0)
				return -1;
			b += a;
			break;
		default:
			return -1;
		}
		if (b > a) {
			zt_grow(r, cap, *n + 2, sizeof **r);
			(*r)[(*n)++] = a;
			(*r)[(*n)++] = b;
		}
	}
	return -1;
}

/* The ranges of die, appended to *r as (lo, hi) pairs; cb are its CU's. */
static int die_ranges(struct zt_dwarf *dw, Dwarf_Die die, const struct bases *cb,
		      uint64_t **r, size_t *n, size_t *cap)
{
	int version = cb->version;
	uint64_t base = cb->lowpc;
	Dwarf_Error e = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute at;
	int res;

	/* low_pc and high_pc; or DW_AT_ranges (a CU may have low_pc 0 too). */
	res = dwarf_lowpc(die, &lo, &e);
	if (res == DW_DLV_OK) {
		res = dwarf_highpc_b(die, &hi, &form, &cls, &e);
		if (res == DW_DLV_OK) {
			if (cls == DW_FORM_CLASS_CONSTANT)
				hi += lo;
			if (hi > lo) {
				zt_grow(r, cap, *n + 2, sizeof **r);
				(*r)[(*n)++] = lo;
				(*r)[(*n)++] = hi;
			}
			return 0;
		}
		if (res == DW_DLV_ERROR)
			note(dw, &e, "high_pc");
	} else if (res == DW_DLV_ERROR) {
		note(dw, &e, "low_pc");
	}
	res = dwarf_attr(die, DW_AT_ranges, &at, &e);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "ranges");
		return 0;
	}
	if (dwarf_whatform(at, &form, &e) != DW_DLV_OK) {
		note(dw, &e, "ranges form");
		goto out;
	}
	if (version >= 5) {
		Dwarf_Unsigned val = 0;

		if (form == DW_FORM_rnglistx)
			res = dwarf_formudata(at, &val, &e);
		else
			res = dwarf_global_formref(at, &val, &e);
		if (res != DW_DLV_OK) {
			note(dw, &e, "ranges value");
			goto out;
		}
		if (rnglist(dw, cb, form == DW_FORM_rnglistx, val, r, n, cap) < 0)
			note(dw, NULL, "a bad range list in .debug_rnglists");
	} else {
		Dwarf_Unsigned off;
		Dwarf_Off real;
		Dwarf_Ranges *rb = NULL;
		Dwarf_Signed cnt = 0;
		Dwarf_Unsigned bytes;

		if (dwarf_global_formref(at, &off, &e) != DW_DLV_OK) {
			note(dw, &e, "ranges offset");
			goto out;
		}
		res = dwarf_get_ranges_b(dw->dbg, off, die, &real, &rb, &cnt, &bytes, &e);
		if (res != DW_DLV_OK) {
			if (res == DW_DLV_ERROR)
				note(dw, &e, "debug_ranges");
			goto out;
		}
		for (Dwarf_Signed i = 0; i < cnt; i++) {
			if (rb[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = rb[i].dwr_addr2;
			} else if (rb[i].dwr_type == DW_RANGES_ENTRY &&
				   rb[i].dwr_addr2 > rb[i].dwr_addr1) {
				zt_grow(r, cap, *n + 2, sizeof **r);
				(*r)[(*n)++] = base + rb[i].dwr_addr1;
				(*r)[(*n)++] = base + rb[i].dwr_addr2;
			} else if (rb[i].dwr_type == DW_RANGES_END) {
				break;
			}
		}
		dwarf_ranges_dealloc(dw->dbg, rb, cnt);
	}
out:
	dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
	return 0;
}

static int die_udata(struct zt_dwarf *dw, Dwarf_Die die, Dwarf_Half an, uint64_t *v)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute at;
	Dwarf_Unsigned u;
	int res = dwarf_attr(die, an, &at, &e);

	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "attribute");
		return -1;
	}
	res = dwarf_formudata(at, &u, &e);
	if (res == DW_DLV_ERROR) {
		/* DW_FORM_implicit_const (DWARF 5) reads only as signed. */
		Dwarf_Signed sv;

		dwarf_dealloc(dw->dbg, e, DW_DLA_ERROR);
		e = NULL;
		res = dwarf_formsdata(at, &sv, &e);
		if (res == DW_DLV_OK && sv >= 0)
			u = (Dwarf_Unsigned)sv;
		else if (res == DW_DLV_OK)
			res = DW_DLV_NO_ENTRY;
		else if (res == DW_DLV_ERROR)
			note(dw, &e, "constant");
	}
	dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
	if (res != DW_DLV_OK)
		return -1;
	*v = u;
	return 0;
}

static const char *die_string(struct zt_dwarf *dw, Dwarf_Die die, Dwarf_Half an)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute at;
	char *s = NULL;
	int res = dwarf_attr(die, an, &at, &e);

	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "attribute");
		return NULL;
	}
	if (dwarf_formstring(at, &s, &e) != DW_DLV_OK) {
		note(dw, &e, "string");
		s = NULL;
	}
	dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
	return s;
}

/*
 * A function's name as addr2line finds it: the linkage name, else the name,
 * of the DIE or of what its abstract_origin or specification points to.
 */
static const char *die_name(struct zt_dwarf *dw, Dwarf_Die die, int hops)
{
	static const Dwarf_Half refs[] = { DW_AT_abstract_origin, DW_AT_specification };
	const char *s;

	if ((s = die_string(dw, die, DW_AT_linkage_name)) ||
	    (s = die_string(dw, die, DW_AT_MIPS_linkage_name)))
		return s;
	s = die_string(dw, die, DW_AT_name);
	if (s || hops > 8)
		return s;
	for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
		Dwarf_Error e = NULL;
		Dwarf_Attribute at;
		Dwarf_Off off;
		Dwarf_Die other;
		int res = dwarf_attr(die, refs[i], &at, &e);

		if (res != DW_DLV_OK) {
			if (res == DW_DLV_ERROR)
				note(dw, &e, "reference");
			continue;
		}
		res = dwarf_global_formref(at, &off, &e);
		dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
		if (res != DW_DLV_OK) {
			note(dw, &e, "reference");
			continue;
		}
		if (dwarf_offdie_b(dw->dbg, off, 1, &other, &e) != DW_DLV_OK) {
			note(dw, &e, "referenced DIE");
			continue;
		}
		s = die_name(dw, other, hops + 1);
		dwarf_dealloc_die(other);
		if (s)
			return s;
	}
	return NULL;
}

/* A section offset attribute (DW_FORM_sec_offset), or def when absent. */
static uint64_t die_secoff(struct zt_dwarf *dw, Dwarf_Die die, Dwarf_Half an, uint64_t def)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute at;
	Dwarf_Off off;
	Dwarf_Unsigned u;
	int res = dwarf_attr(die, an, &at, &e);

	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "attribute");
		return def;
	}
	if (dwarf_global_formref(at, &off, &e) == DW_DLV_OK) {
		u = off;
	} else {
		if (e) {
			dwarf_dealloc(dw->dbg, e, DW_DLA_ERROR);
			e = NULL;
		}
		if (dwarf_formudata(at, &u, &e) != DW_DLV_OK) {
			note(dw, &e, "section offset");
			u = def;
		}
	}
	dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
	return u;
}

/* The bases a CU's DIEs need to read their range lists. */
static void cu_bases(struct zt_dwarf *dw, Dwarf_Die cudie, int version, struct bases *cb)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo = 0;

	cb->version = version;
	if (dwarf_lowpc(cudie, &lo, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc(dw->dbg, e, DW_DLA_ERROR);
		lo = 0;
	}
	cb->lowpc = lo;
	/* Without the attributes: just past the first unit's header. */
	cb->rnglists = die_secoff(dw, cudie, DW_AT_rnglists_base, 12);
	cb->addr = die_secoff(dw, cudie, DW_AT_addr_base, 8);
}

struct walk {
	struct zt_dwarf *dw;
	struct cu *cu;
	struct bases cb;
	uint64_t *r;
	size_t nr, capr, capscopes;
	uint32_t ndies;
	size_t visited;
	Dwarf_Off lastoff;	/* the last DIE visited */
};

/* Visit die and its siblings, depth scopes deep; children recursively. */
static void walk(struct walk *w, Dwarf_Die die, uint32_t depth, int level)
{
	Dwarf_Error e = NULL;

	while (die) {
		Dwarf_Half tag = 0;
		Dwarf_Die child = NULL, next = NULL;
		uint32_t inner = depth;
		int res;

		if (++w->visited > 4000000 || level > 200) {
			note(w->dw, NULL, "DIE tree too deep or too large");
			dwarf_dealloc_die(die);
			return;
		}
		/*
		 * In a tree walked in order, each DIE comes after every one
		 * before it: a DW_AT_sibling that points back, or into a
		 * subtree already walked, would revisit DIEs without end.
		 */
		{
			Dwarf_Off here = 0;

			if (dwarf_dieoffset(die, &here, &e) != DW_DLV_OK ||
			    (w->visited > 1 && here <= w->lastoff)) {
				note(w->dw, &e, "DIEs out of order (a bad DW_AT_sibling)");
				dwarf_dealloc_die(die);
				return;
			}
			w->lastoff = here;
		}
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
			note(w->dw, &e, "tag");
			tag = 0;
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			uint64_t cf = 0, cl = 0;
			Dwarf_Off off = 0;

			w->nr = 0;
			die_ranges(w->dw, die, &w->cb, &w->r, &w->nr, &w->capr);
			if (tag == DW_TAG_inlined_subroutine) {
				die_udata(w->dw, die, DW_AT_call_file, &cf);
				die_udata(w->dw, die, DW_AT_call_line, &cl);
			}
			if (w->nr && dwarf_dieoffset(die, &off, &e) != DW_DLV_OK) {
				note(w->dw, &e, "DIE offset");
				w->nr = 0;
			}
			for (size_t i = 0; i + 1 < w->nr; i += 2) {
				struct scope *s;

				zt_grow(&w->cu->scopes, &w->capscopes, w->cu->nscopes + 1,
					sizeof *w->cu->scopes);
				s = &w->cu->scopes[w->cu->nscopes++];
				s->lo = w->r[i];
				s->hi = w->r[i + 1];
				s->off = off;
				s->name = NULL;
				s->named = 0;
				s->depth = depth;
				s->call_file = (uint32_t)cf;
				s->call_line = (uint32_t)cl;
				s->die = w->ndies;
			}
			w->ndies++;
			inner = depth + 1;
		}
		/*
		 * Functions sit at the top, in namespaces, or (inlined) in
		 * functions and their blocks: the rest (types, variables,
		 * parameters) is not walked into.
		 */
		res = DW_DLV_NO_ENTRY;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
		    tag == DW_TAG_module)
			res = dwarf_child(die, &child, &e);
		if (res == DW_DLV_OK)
			walk(w, child, inner, level + 1);
		else if (res == DW_DLV_ERROR)
			note(w->dw, &e, "child");
		res = dwarf_siblingof_b(w->dw->dbg, die, 1, &next, &e);
		if (res == DW_DLV_ERROR) {
			note(w->dw, &e, "sibling");
			next = NULL;
		} else if (res != DW_DLV_OK) {
			next = NULL;
		}
		dwarf_dealloc_die(die);
		die = next;
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_scope(const void *a, const void *b)
{
	const struct scope *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static void read_lines(struct zt_dwarf *dw, struct cu *cu, Dwarf_Die cudie)
{
	Dwarf_Error e = NULL;
	Dwarf_Unsigned version;
	Dwarf_Small tables;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n;
	size_t cap = 0;
	int res;

	res = dwarf_srclines_b(cudie, &version, &tables, &ctx, &e);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "line table");
		return;
	}
	if (version >= 5) {
		const char *prod = die_string(dw, cudie, DW_AT_producer);

		cu->gnu_default_file = prod && strncmp(prod, "GNU ", 4) == 0;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK) {
		note(dw, &e, "line table");
		dwarf_srclines_dealloc_b(ctx);
		return;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Addr a;
		Dwarf_Unsigned ln, fno;
		Dwarf_Bool end;

		if (dwarf_lineaddr(lines[i], &a, &e) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &ln, &e) != DW_DLV_OK ||
		    dwarf_line_srcfileno(lines[i], &fno, &e) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &e) != DW_DLV_OK) {
			note(dw, &e, "line row");
			break;
		}
		zt_grow(&cu->rows, &cap, cu->nrows + 1, sizeof *cu->rows);
		cu->rows[cu->nrows].addr = a;
		/*
		 * libdwarf 20210528 starts a DWARF 5 line program's file
		 * register at 0, where DWARF 5 says 1 (binutils 2.40's
		 * addr2line does the same; readelf and llvm-symbolizer do
		 * not). A row that never set the file then reads as file 0:
		 * in a table from gcc and gas, which never set file 0, that
		 * 0 is the default 1.
		 */
		cu->rows[cu->nrows].file = (uint32_t)fno + (cu->gnu_default_file && fno == 0);
		cu->rows[cu->nrows].line = (uint32_t)ln;
		cu->rows[cu->nrows].seq = (uint32_t)i;
		cu->rows[cu->nrows].end = end != 0;
		cu->nrows++;
	}
	cu->lversion = (int)version;
	dwarf_srclines_dealloc_b(ctx);
	if (cu->nrows)
		qsort(cu->rows, cu->nrows, sizeof *cu->rows, cmp_row);
	res = dwarf_srcfiles(cudie, &cu->files, &cu->nfiles, &e);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "file names");
		cu->files = NULL;
		cu->nfiles = 0;
	}
}

/*
 * Scopes nest: each interval's parent is the one before it in (lo, depth)
 * order, one scope shallower, that has not ended where it starts. A sweep
 * with a stack finds them all, so that a lookup climbs from the deepest
 * interval instead of scanning.
 */
static void link_parents(struct cu *cu)
{
	uint32_t *stack = zt_calloc(cu->nscopes ? cu->nscopes : 1, sizeof *stack);
	size_t top = 0;

	for (size_t i = 0; i < cu->nscopes; i++) {
		struct scope *s = &cu->scopes[i];

		while (top > 0 && (cu->scopes[stack[top - 1]].hi <= s->lo ||
				   cu->scopes[stack[top - 1]].depth >= s->depth))
			top--;
		s->parent = top > 0 ? stack[top - 1] + 1 : 0;
		stack[top++] = (uint32_t)i;
	}
	free(stack);
}

static void load_cu(struct zt_dwarf *dw, struct cu *cu)
{
	Dwarf_Error e = NULL;
	Dwarf_Die cudie, child = NULL;
	Dwarf_Half ver = 0, offsz = 0;
	struct walk w = { .dw = dw, .cu = cu };
	int res;

	cu->state = -1;
	if (dwarf_offdie_b(dw->dbg, cu->die_off, 1, &cudie, &e) != DW_DLV_OK) {
		note(dw, &e, "compilation unit");
		return;
	}
	if (dwarf_get_version_of_die(cudie, &ver, &offsz) != DW_DLV_OK)
		ver = 4;
	cu->version = ver;
	cu_bases(dw, cudie, ver, &w.cb);
	read_lines(dw, cu, cudie);
	res = dwarf_child(cudie, &child, &e);
	if (res == DW_DLV_OK)
		walk(&w, child, 0, 1);
	else if (res == DW_DLV_ERROR)
		note(dw, &e, "child");
	free(w.r);
	dwarf_dealloc_die(cudie);
	if (cu->nscopes)
		qsort(cu->scopes, cu->nscopes, sizeof *cu->scopes, cmp_scope);
	link_parents(cu);
	cu->state = 1;
}

static int cmp_arange(const void *a, const void *b)
{
	const struct arange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int cmp_off(const void *a, const void *b)
{
	const struct cu *x = a, *y = b;

	return x->die_off < y->die_off ? -1 : x->die_off > y->die_off;
}

/* Index every CU, and its ranges unless .debug_aranges gave them. */
static void index_cus(struct zt_dwarf *dw)
{
	Dwarf_Error e = NULL;
	Dwarf_Arange *ars = NULL;
	Dwarf_Signed nars = 0;
	size_t capcu = 0, capar = 0;
	int have_aranges, res;

	for (;;) {
		Dwarf_Unsigned len, next, typeoff;
		Dwarf_Half ver, asz, lsz, esz, type;
		Dwarf_Off abbr;
		Dwarf_Sig8 sig;
		Dwarf_Die cudie;

		res = dwarf_next_cu_header_d(dw->dbg, 1, &len, &ver, &abbr, &asz, &lsz, &esz,
					     &sig, &typeoff, &next, &type, &e);
		if (res == DW_DLV_ERROR)
			note(dw, &e, "CU header");
		if (res != DW_DLV_OK)
			break;
		res = dwarf_siblingof_b(dw->dbg, NULL, 1, &cudie, &e);
		if (res != DW_DLV_OK) {
			if (res == DW_DLV_ERROR)
				note(dw, &e, "CU DIE");
			continue;
		}
		zt_grow(&dw->cus, &capcu, dw->ncus + 1, sizeof *dw->cus);
		memset(&dw->cus[dw->ncus], 0, sizeof *dw->cus);
		if (dwarf_dieoffset(cudie, &dw->cus[dw->ncus].die_off, &e) != DW_DLV_OK) {
			note(dw, &e, "CU offset");
			dwarf_dealloc_die(cudie);
			continue;
		}
		dw->cus[dw->ncus].version = ver;
		dw->ncus++;
		dwarf_dealloc_die(cudie);
	}
	if (dw->ncus)
		qsort(dw->cus, dw->ncus, sizeof *dw->cus, cmp_off);
	res = dwarf_get_aranges(dw->dbg, &ars, &nars, &e);
	if (res == DW_DLV_ERROR)
		note(dw, &e, "aranges");
	have_aranges = res == DW_DLV_OK;
	for (Dwarf_Signed i = 0; have_aranges && i < nars; i++) {
		Dwarf_Unsigned seg, segsz, len;
		Dwarf_Addr start;
		Dwarf_Off off;
		struct cu key, *hit;

		if (dwarf_get_arange_info_b(ars[i], &seg, &segsz, &start, &len, &off, &e) ==
		    DW_DLV_OK) {
			key.die_off = off;
			hit = dw->ncus ? bsearch(&key, dw->cus, dw->ncus, sizeof *dw->cus,
						 cmp_off) : NULL;
			if (hit && len > 0) {
				zt_grow(&dw->ar, &capar, dw->nar + 1, sizeof *dw->ar);
				dw->ar[dw->nar].lo = start;
				dw->ar[dw->nar].hi = start + len;
				dw->ar[dw->nar].cu = (size_t)(hit - dw->cus);
				dw->nar++;
			}
		} else {
			note(dw, &e, "arange");
		}
		dwarf_dealloc(dw->dbg, ars[i], DW_DLA_ARANGE);
	}
	if (have_aranges)
		dwarf_dealloc(dw->dbg, ars, DW_DLA_LIST);
	/* CUs that aranges left out (clang omits it): their own ranges. */
	for (size_t c = 0; c < dw->ncus; c++) {
		Dwarf_Die cudie;
		uint64_t *r = NULL;
		size_t nr = 0, capr = 0;
		struct bases cb;
		int covered = 0;

		for (size_t i = 0; i < dw->nar && !covered; i++)
			covered = dw->ar[i].cu == c;
		if (covered)
			continue;
		if (dwarf_offdie_b(dw->dbg, dw->cus[c].die_off, 1, &cudie, &e) != DW_DLV_OK) {
			note(dw, &e, "CU DIE");
			continue;
		}
		cu_bases(dw, cudie, dw->cus[c].version, &cb);
		die_ranges(dw, cudie, &cb, &r, &nr, &capr);
		for (size_t i = 0; i + 1 < nr; i += 2) {
			zt_grow(&dw->ar, &capar, dw->nar + 1, sizeof *dw->ar);
			dw->ar[dw->nar].lo = r[i];
			dw->ar[dw->nar].hi = r[i + 1];
			dw->ar[dw->nar].cu = c;
			dw->nar++;
		}
		free(r);
		dwarf_dealloc_die(cudie);
	}
	if (dw->nar)
		qsort(dw->ar, dw->nar, sizeof *dw->ar, cmp_arange);
}

/*
 * The bytes of section sec of e, decompressed when SHF_COMPRESSED (zlib);
 * *owned says whether the caller frees them. NULL if they cannot be had.
 */
static const unsigned char *section_bytes(const struct zt_elf *e,
					  const struct zt_section *sec, size_t *n,
					  int *owned)
{
	Elf64_Chdr ch;
	unsigned char *out;
	uLongf len;

	*owned = 0;
	if (sec->type == SHT_NOBITS || sec->offset > e->size ||
	    sec->size > e->size - sec->offset)
		return NULL;
	if (!(sec->flags & SHF_COMPRESSED)) {
		*n = sec->size;
		return e->data + sec->offset;
	}
	if (sec->size < sizeof ch)
		return NULL;
	memcpy(&ch, e->data + sec->offset, sizeof ch);
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1u << 30))
		return NULL;
	len = (uLongf)ch.ch_size;
	out = zt_malloc(len ? len : 1);
	if (uncompress(out, &len, e->data + sec->offset + sizeof ch,
		       (uLong)(sec->size - sizeof ch)) != Z_OK || len != ch.ch_size) {
		free(out);
		return NULL;
	}
	*owned = 1;
	*n = len;
	return out;
}

/*
 * libdwarf 20210528 frees memory twice when a .debug_rnglists or
 * .debug_loclists unit header claims more bytes than the section has (found
 * by tests/fuzz/fuzz-dwarf.c): check those headers before libdwarf reads
 * them. Returns NULL, or what is wrong.
 */
static const char *check_lists(const struct zt_elf *e, char *msg, size_t msglen)
{
	static const char *const names[] = { ".debug_rnglists", ".debug_loclists" };

	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		const struct zt_section *sec = zt_elf_section(e, names[k]);
		const unsigned char *b;
		size_t n, p = 0;
		int owned;
		const char *bad = NULL;

		if (!sec)
			continue;
		b = section_bytes(e, sec, &n, &owned);
		if (!b) {
			snprintf(msg, msglen, "%s cannot be read", names[k]);
			return msg;
		}
		while (p < n && !bad) {
			uint64_t len;
			size_t hdr = 4;
			uint32_t l32;
			uint16_t ver;

			if (n - p < 4) {
				bad = "a unit header past the section end";
				break;
			}
			memcpy(&l32, b + p, 4);
			len = l32;
			if (l32 == 0xffffffffu) {
				if (n - p < 12) {
					bad = "a unit header past the section end";
					break;
				}
				memcpy(&len, b + p + 4, 8);
				hdr = 12;
			} else if (l32 >= 0xfffffff0u) {
				bad = "a reserved unit length";
				break;
			}
			if (len > n - p - hdr || len < 8) {
				bad = "a unit longer than the section";
				break;
			}
			memcpy(&ver, b + p + hdr, 2);
			if (ver != 5 || (b[p + hdr + 2] != 4 && b[p + hdr + 2] != 8) ||
			    b[p + hdr + 3] != 0)
				bad = "a unit header of an unknown kind";
			else {
				uint32_t cnt;

				memcpy(&cnt, b + p + hdr + 4, 4);
				if ((uint64_t)cnt * (hdr == 4 ? 4 : 8) > len - 8)
					bad = "more offsets than the unit holds";
			}
			p += hdr + len;
		}
		if (owned)
			free((void *)b);
		if (bad) {
			snprintf(msg, msglen, "%s: %s", names[k], bad);
			return msg;
		}
	}
	return NULL;
}

struct zt_dwarf *zt_dwarf_open(const char *path, const struct zt_elf *e, char *err,
			       size_t errlen)
{
	struct zt_dwarf *dw;
	Dwarf_Error de = NULL;
	const char *bad;
	char msg[128];
	int fd, res;

	*err = '\0';
	/* Only files whose section headers the ELF reader could read whole. */
	if (e->damage || !zt_elf_section(e, ".debug_info"))
		return NULL;
	if ((bad = check_lists(e, msg, sizeof msg)) != NULL) {
		snprintf(err, errlen, "corrupt DWARF: %s", bad);
		return NULL;
	}
	/* The same file, looked up the same way: a regular file, in its root. */
	fd = e->root ? zt_open_file(e->root, e->path + e->rootlen, msg, sizeof msg) :
		       zt_open_file(NULL, path, msg, sizeof msg);
	if (fd < 0) {
		snprintf(err, errlen, "%s, for DWARF", msg);
		return NULL;
	}
	dw = zt_calloc(1, sizeof *dw);
	dw->fd = fd;
	{
		const struct zt_section *sec;
		size_t n;

		if ((sec = zt_elf_section(e, ".debug_rnglists")) != NULL &&
		    (dw->rng = section_bytes(e, sec, &n, &dw->own_rng)) != NULL)
			dw->nrng = n;
		if ((sec = zt_elf_section(e, ".debug_addr")) != NULL &&
		    (dw->addr = section_bytes(e, sec, &n, &dw->own_addr)) != NULL)
			dw->naddr = n;
	}
	/*
	 * libdwarf otherwise records every allocation in a tree for
	 * dwarf_finish to free: a fifth of the time of --lines on libc. zt
	 * frees what it is given itself (dies, attributes, errors, lists,
	 * file names).
	 */
	dwarf_set_de_alloc_flag(0);
	res = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, on_error, NULL, &dw->dbg, &de);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR) {
			snprintf(err, errlen, "corrupt DWARF: %s", de ? dwarf_errmsg(de) : "unreadable");
			/* There is no dbg: libdwarf frees such an error without one. */
			if (de)
				dwarf_dealloc(NULL, de, DW_DLA_ERROR);
		}
		close(fd);
		free(dw);
		return NULL;
	}
	index_cus(dw);
	if (dw->ncus == 0) {
		if (dw->problem)
			snprintf(err, errlen, "%s", dw->problem);
		zt_dwarf_close(dw);
		return NULL;
	}
	return dw;
}

void zt_dwarf_close(struct zt_dwarf *dw)
{
	Dwarf_Error e = NULL;

	if (!dw)
		return;
	for (size_t i = 0; i < dw->ncus; i++) {
		free(dw->cus[i].rows);
		free(dw->cus[i].scopes);
		for (Dwarf_Signed k = 0; k < dw->cus[i].nfiles; k++)
			dwarf_dealloc(dw->dbg, dw->cus[i].files[k], DW_DLA_STRING);
		if (dw->cus[i].files)
			dwarf_dealloc(dw->dbg, dw->cus[i].files, DW_DLA_LIST);
	}
	dwarf_finish(dw->dbg, &e);
	close(dw->fd);
	if (dw->own_rng)
		free((void *)dw->rng);
	if (dw->own_addr)
		free((void *)dw->addr);
	free(dw->cus);
	free(dw->ar);
	free(dw->problem);
	free(dw);
}

const char *zt_dwarf_problem(const struct zt_dwarf *dw)
{
	return dw ? dw->problem : NULL;
}

static const char *file_name(const struct cu *cu, uint32_t fno)
{
	int64_t i = cu->lversion >= 5 ? (int64_t)fno : (int64_t)fno - 1;

	if (i < 0 || i >= cu->nfiles)
		return NULL;
	return cu->files[i];
}

/* The line-table row for vaddr in cu, or NULL. */
static const struct row *row_for(const struct cu *cu, uint64_t vaddr)
{
	size_t lo = 0, hi = cu->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->rows[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || cu->rows[lo - 1].end)
		return NULL;
	/* At one address the last row counts, as in addr2line. */
	return &cu->rows[lo - 1];
}

static struct cu *cu_for(struct zt_dwarf *dw, uint64_t vaddr)
{
	size_t lo = 0, hi = dw->nar;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->ar[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges of different CUs do not nest; look a few back for overlap. */
	for (size_t i = lo; i > 0 && lo - i < 16; i--) {
		const struct arange *a = &dw->ar[i - 1];

		if (vaddr >= a->lo && vaddr < a->hi) {
			struct cu *cu = &dw->cus[a->cu];

			if (cu->state == 0)
				load_cu(dw, cu);
			return cu->state == 1 ? cu : NULL;
		}
	}
	return NULL;
}

size_t zt_dwarf_lookup(struct zt_dwarf *dw, uint64_t vaddr, struct zt_srcframe *out,
		       size_t max)
{
	struct cu *cu = cu_for(dw, vaddr);
	const struct scope *chain[64];
	const struct row *row;
	size_t lo = 0, hi, n = 0, depth = 0;

	if (!cu || max == 0)
		return 0;
	row = row_for(cu, vaddr);
	/* Scopes holding vaddr, one per depth. */
	hi = cu->nscopes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->scopes[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * The last interval that starts at or before vaddr, if it does not
	 * hold vaddr, has ended: the ones that hold vaddr enclose it.
	 */
	if (lo > 0) {
		const struct scope *s = &cu->scopes[lo - 1];

		while (s && !(vaddr >= s->lo && vaddr < s->hi))
			s = s->parent ? &cu->scopes[s->parent - 1] : NULL;
		if (s && s->depth < 64) {
			depth = s->depth + 1;
			for (size_t d = depth; d-- > 0; ) {
				if (!s || s->depth != d) {
					depth = 0;	/* a gap: trust none of it */
					break;
				}
				chain[d] = s;
				s = s->parent ? &cu->scopes[s->parent - 1] : NULL;
			}
		}
	}
	if (depth == 0) {
		if (!row)
			return 0;
		out[0].name = NULL;
		out[0].file = file_name(cu, row->file);
		out[0].line = row->line;
		return 1;
	}
	for (size_t d = depth; d-- > 0 && n < max; ) {
		struct scope *sc = (struct scope *)chain[d];

		if (!sc->named) {
			Dwarf_Error e = NULL;
			Dwarf_Die die;

			sc->named = 1;
			if (dwarf_offdie_b(dw->dbg, sc->off, 1, &die, &e) == DW_DLV_OK) {
				sc->name = die_name(dw, die, 0);
				dwarf_dealloc_die(die);
			} else {
				note(dw, &e, "DIE");
			}
		}
		out[n].name = sc->name;
		if (d == depth - 1) {
			out[n].file = row ? file_name(cu, row->file) : NULL;
			out[n].line = row ? row->line : 0;
		} else {
			out[n].file = file_name(cu, chain[d + 1]->call_file);
			out[n].line = chain[d + 1]->call_line;
		}
		n++;
	}
	return n;
}
