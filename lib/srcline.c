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
#include "dwarfcompat.h"
#include "elfread.h"
#include "ranges.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
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
	uint32_t fn;		/* its DIE in the CU's fns */
	uint32_t depth;
	uint32_t call_file, call_line;	/* where this scope was inlined */
};

/*
 * A DW_TAG_subprogram or DW_TAG_inlined_subroutine DIE as the CU's walk
 * read it: its own name and where its name may come from instead. The walk
 * reads them in .debug_info order, so a CU's fns are sorted by off and a
 * reference into the CU is found by binary search, not by libdwarf's
 * dwarf_offdie_b (which walks a list of every CU before it: a quarter of
 * the time of --lines on libc).
 */
struct fn {
	uint64_t off;		/* the DIE's offset in .debug_info */
	const char *str;	/* linkage name, else name, of the DIE itself */
	uint64_t origin, spec;	/* DW_AT_abstract_origin, DW_AT_specification; 0: none */
	const char *name;	/* the name die_name finds, once named */
	int named;
};

struct cu {
	Dwarf_Off die_off;	/* the CU DIE in .debug_info */
	Dwarf_Die die;		/* that DIE, kept from list_cus */
	int state;		/* 0 not read, 1 read, -1 failed */
	int walked;		/* its DIEs read: scopes and fns */
	int inlines;		/* its abbreviations have DW_TAG_inlined_subroutine */
	Dwarf_Off abbrev_off;	/* its abbreviation table in .debug_abbrev */
	uint16_t *amask;	/* per abbreviation code: its A_ bits, until walked */
	size_t namask;
	int version;
	int lversion;		/* the line table's: how file numbers count */
	int gnu_default_file;	/* DWARF 5 from gcc: a row's file 0 means 1 */
	char **files;
	Dwarf_Signed nfiles;
	struct row *rows;
	size_t nrows;
	struct scope *scopes;
	size_t nscopes;
	struct fn *fns;
	size_t nfns;
};

/*
 * Which attributes the walk asks for a DIE's abbreviation has: libdwarf
 * looks for each by stepping over the others, found or not, so the walk
 * asks only for those there. KNOWN: the table was read. DECLARATION:
 * DW_AT_declaration as DW_FORM_flag_present (a DW_FORM_flag may be 0).
 */
enum {
	A_KNOWN = 1 << 0, A_NAME = 1 << 1, A_LINKAGE = 1 << 2, A_MIPS_LINKAGE = 1 << 3,
	A_ORIGIN = 1 << 4, A_SPEC = 1 << 5, A_LOW_PC = 1 << 6, A_RANGES = 1 << 7,
	A_CALL_FILE = 1 << 8, A_CALL_LINE = 1 << 9, A_DECLARATION = 1 << 10,
	A_ALL = 0xffff
};

struct arange {
	uint64_t lo, hi;
	size_t cu;
	uint32_t up;	/* the enclosing range's link (ranges.h) */
};

struct zt_dwarf {
	Dwarf_Debug dbg;
	struct zt_dwarfcompat_secs secs;	/* what libdwarf reads (obj below) */
	Dwarf_Obj_Access_Interface obj;
	struct cu *cus;
	size_t ncus;
	struct arange *ar;
	size_t nar;
	size_t last_ar;		/* 1 + the range cu_for found last, or 0 */
	char *problem;
	struct zt_dwarfcompat_lists lists;	/* for the range-list decoder */
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

/* The ranges of die, appended to *r as (lo, hi) pairs; cb are its CU's. */
static int die_ranges(struct zt_dwarf *dw, Dwarf_Die die, const struct zt_dwarfcompat_bases *cb,
		      unsigned mask, uint64_t **r, size_t *n, size_t *cap)
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
	res = mask & A_LOW_PC ? dwarf_lowpc(die, &lo, &e) : DW_DLV_NO_ENTRY;
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
	res = mask & A_RANGES ? dwarf_attr(die, DW_AT_ranges, &at, &e) : DW_DLV_NO_ENTRY;
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
		if (zt_dwarfcompat_rnglist(&dw->lists, cb, form == DW_FORM_rnglistx, val,
					   r, n, cap) < 0)
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
 * The DIE's own name: its linkage name, else its name; NULL if none. mask:
 * the attributes its abbreviation has (A_ALL: look for each).
 */
static const char *die_own_name(struct zt_dwarf *dw, Dwarf_Die die, unsigned mask)
{
	const char *s;

	if ((mask & A_LINKAGE && (s = die_string(dw, die, DW_AT_linkage_name))) ||
	    (mask & A_MIPS_LINKAGE && (s = die_string(dw, die, DW_AT_MIPS_linkage_name))))
		return s;
	return mask & A_NAME ? die_string(dw, die, DW_AT_name) : NULL;
}

/* The .debug_info offset that reference attribute an of die points to, or 0. */
static uint64_t die_ref(struct zt_dwarf *dw, Dwarf_Die die, Dwarf_Half an)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute at;
	Dwarf_Off off;
	int res = dwarf_attr(die, an, &at, &e);

	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR)
			note(dw, &e, "reference");
		return 0;
	}
	res = dwarf_global_formref(at, &off, &e);
	dwarf_dealloc(dw->dbg, at, DW_DLA_ATTR);
	if (res != DW_DLV_OK) {
		note(dw, &e, "reference");
		return 0;
	}
	return off;
}

static const char *fn_name(struct zt_dwarf *dw, struct cu *cu, const struct fn *f, int hops);

/*
 * The name of the DIE at off, hops references away from the scope that
 * asked: from the CU's fns when the DIE is one of them, else read through
 * libdwarf (a reference into another CU, or to a declaration in a class,
 * which the walk does not enter).
 */
static const char *name_at(struct zt_dwarf *dw, struct cu *cu, uint64_t off, int hops)
{
	static const Dwarf_Half refs[] = { DW_AT_abstract_origin, DW_AT_specification };
	size_t i = zt_ranges_upto(cu->fns, cu->nfns, sizeof *cu->fns,
				  offsetof(struct fn, off), off);
	Dwarf_Error e = NULL;
	Dwarf_Die die;
	const char *s;

	if (i > 0 && cu->fns[i - 1].off == off)
		return fn_name(dw, cu, &cu->fns[i - 1], hops);
	if (dwarf_offdie_b(dw->dbg, off, 1, &die, &e) != DW_DLV_OK) {
		note(dw, &e, "referenced DIE");
		return NULL;
	}
	s = die_own_name(dw, die, A_ALL);
	for (size_t k = 0; !s && hops <= 8 && k < sizeof refs / sizeof refs[0]; k++) {
		uint64_t ref = die_ref(dw, die, refs[k]);

		if (ref)
			s = name_at(dw, cu, ref, hops + 1);
	}
	dwarf_dealloc_die(die);
	return s;
}

/*
 * A function's name as addr2line finds it: the linkage name, else the name,
 * of the DIE or of what its abstract_origin or specification points to
 * (at most 8 references deep).
 */
static const char *fn_name(struct zt_dwarf *dw, struct cu *cu, const struct fn *f, int hops)
{
	const char *s = f->str;

	if (s || hops > 8)
		return s;
	if (f->origin && (s = name_at(dw, cu, f->origin, hops + 1)))
		return s;
	if (f->spec)
		s = name_at(dw, cu, f->spec, hops + 1);
	return s;
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
static void cu_bases(struct zt_dwarf *dw, Dwarf_Die cudie, int version, struct zt_dwarfcompat_bases *cb)
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
	struct zt_dwarfcompat_bases cb;
	uint64_t *r;
	size_t nr, capr, capscopes, capfns;
	size_t visited;
	Dwarf_Off lastoff;	/* the last DIE visited */
};

/*
 * In a tree walked in order, each DIE comes after every one before it: a
 * DW_AT_sibling that points back, or into a subtree already walked, would
 * revisit DIEs without end. Whether die is after the last one visited.
 */
static int in_order(struct walk *w, Dwarf_Die die)
{
	Dwarf_Error e = NULL;
	Dwarf_Off here = 0;

	if (dwarf_dieoffset(die, &here, &e) != DW_DLV_OK ||
	    (w->visited > 1 && here <= w->lastoff)) {
		note(w->dw, &e, "DIEs out of order (a bad DW_AT_sibling)");
		return 0;
	}
	w->lastoff = here;
	return 1;
}

/* The A_ bits of die's abbreviation: A_ALL when not known. */
static unsigned die_mask(const struct cu *cu, Dwarf_Die die)
{
	int code = dwarf_die_abbrev_code(die);

	if (code > 0 && (size_t)code < cu->namask && (cu->amask[code] & A_KNOWN))
		return cu->amask[code];
	return A_ALL;
}

static unsigned attr_bit(uint64_t attr, uint64_t form)
{
	switch (attr) {
	case DW_AT_name: return A_NAME;
	case DW_AT_linkage_name: return A_LINKAGE;
	case DW_AT_MIPS_linkage_name: return A_MIPS_LINKAGE;
	case DW_AT_abstract_origin: return A_ORIGIN;
	case DW_AT_specification: return A_SPEC;
	case DW_AT_low_pc: return A_LOW_PC;
	case DW_AT_ranges: return A_RANGES;
	case DW_AT_call_file: return A_CALL_FILE;
	case DW_AT_call_line: return A_CALL_LINE;
	/* A flag that is present says yes; DW_FORM_flag may say no. */
	case DW_AT_declaration: return form == DW_FORM_flag_present ? A_DECLARATION : 0;
	default: return 0;
	}
}

/* zt_dwarfcompat_abbrevs's callback: cu's masks, and whether it inlines. */
static int mask_attr(void *ctx, uint64_t code, uint64_t tag, uint64_t attr, uint64_t form)
{
	struct cu *cu = ctx;

	if (tag == DW_TAG_inlined_subroutine)
		cu->inlines = 1;
	if (code >= 65536)
		return 0;	/* not kept: such a DIE's mask is A_ALL */
	if (code >= cu->namask) {
		size_t cap = cu->namask;

		zt_grow(&cu->amask, &cap, (size_t)code + 1, sizeof *cu->amask);
		memset(cu->amask + cu->namask, 0, (cap - cu->namask) * sizeof *cu->amask);
		cu->namask = cap;
	}
	cu->amask[code] |= (uint16_t)(A_KNOWN | attr_bit(attr, form));
	return 0;
}

/*
 * A function or inlined call: its fn (names and references), and one scope
 * per range, depth scopes deep.
 */
static void add_scopes(struct walk *w, Dwarf_Die die, Dwarf_Half tag, uint32_t depth,
		       unsigned mask)
{
	Dwarf_Error e = NULL;
	uint64_t cf = 0, cl = 0;
	Dwarf_Off off = 0;
	struct fn *f;

	if (dwarf_dieoffset(die, &off, &e) != DW_DLV_OK) {
		note(w->dw, &e, "DIE offset");
		return;
	}
	zt_grow(&w->cu->fns, &w->capfns, w->cu->nfns + 1, sizeof *w->cu->fns);
	f = &w->cu->fns[w->cu->nfns++];
	memset(f, 0, sizeof *f);
	f->off = off;
	f->str = die_own_name(w->dw, die, mask);
	if (!f->str) {
		if (mask & A_ORIGIN)
			f->origin = die_ref(w->dw, die, DW_AT_abstract_origin);
		if (mask & A_SPEC)
			f->spec = die_ref(w->dw, die, DW_AT_specification);
	}
	w->nr = 0;
	die_ranges(w->dw, die, &w->cb, mask, &w->r, &w->nr, &w->capr);
	if (tag == DW_TAG_inlined_subroutine) {
		if (mask & A_CALL_FILE)
			die_udata(w->dw, die, DW_AT_call_file, &cf);
		if (mask & A_CALL_LINE)
			die_udata(w->dw, die, DW_AT_call_line, &cl);
	}
	for (size_t i = 0; i + 1 < w->nr; i += 2) {
		struct scope *s;

		zt_grow(&w->cu->scopes, &w->capscopes, w->cu->nscopes + 1,
			sizeof *w->cu->scopes);
		s = &w->cu->scopes[w->cu->nscopes++];
		s->lo = w->r[i];
		s->hi = w->r[i + 1];
		s->fn = (uint32_t)(w->cu->nfns - 1);
		s->depth = depth;
		s->call_file = (uint32_t)cf;
		s->call_line = (uint32_t)cl;
	}
}

/* Visit die and its siblings, depth scopes deep; children recursively. */
static void walk(struct walk *w, Dwarf_Die die, uint32_t depth, int level)
{
	Dwarf_Error e = NULL;

	while (die) {
		Dwarf_Half tag = 0;
		Dwarf_Die child = NULL, next = NULL;
		uint32_t inner = depth;
		unsigned mask = A_ALL;
		int res;

		if (++w->visited > 4000000 || level > 200) {
			note(w->dw, NULL, "DIE tree too deep or too large");
			dwarf_dealloc_die(die);
			return;
		}
		if (!in_order(w, die)) {
			dwarf_dealloc_die(die);
			return;
		}
		if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
			note(w->dw, &e, "tag");
			tag = 0;
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			mask = die_mask(w->cu, die);
			add_scopes(w, die, tag, depth, mask);
			inner = depth + 1;
		}
		/*
		 * Functions sit at the top, in namespaces, or (inlined) in
		 * functions and their blocks: the rest (types, variables,
		 * parameters, and what a declaration holds) is not walked into.
		 */
		res = DW_DLV_NO_ENTRY;
		if ((tag == DW_TAG_subprogram && (mask == A_ALL || !(mask & A_DECLARATION))) ||
		    tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_namespace || tag == DW_TAG_module)
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

struct block {
	uint64_t addr;
	uint32_t seq;
	size_t first, n;
};

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The rows in address order, equal addresses in table order (cmp_row, a
 * total order: the result is the one qsort gives). A table is a few
 * sequences, each in address order already: they are put in order as
 * blocks, by their first rows, and the rows are sorted one by one only
 * when that leaves them out of order (sequences that overlap, or a
 * sequence that goes back).
 */
static void sort_rows(struct cu *cu)
{
	struct block *b = NULL;
	struct row *out;
	size_t nb = 0, capb = 0, k = 0, start = 0;
	int sorted = 1;

	if (cu->nrows < 2)
		return;
	for (size_t i = 0; i < cu->nrows; i++) {
		if (i + 1 < cu->nrows && !cu->rows[i].end)
			continue;
		zt_grow(&b, &capb, nb + 1, sizeof *b);
		b[nb++] = (struct block){ cu->rows[start].addr, cu->rows[start].seq, start,
					  i + 1 - start };
		start = i + 1;
	}
	qsort(b, nb, sizeof *b, cmp_block);
	out = zt_malloc(cu->nrows * sizeof *out);
	for (size_t j = 0; j < nb; j++) {
		memcpy(out + k, cu->rows + b[j].first, b[j].n * sizeof *out);
		k += b[j].n;
	}
	free(b);
	free(cu->rows);
	cu->rows = out;
	for (size_t i = 1; i < cu->nrows && sorted; i++)
		sorted = cmp_row(&out[i - 1], &out[i]) < 0;
	if (!sorted)
		qsort(cu->rows, cu->nrows, sizeof *cu->rows, cmp_row);
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
		cu->rows[cu->nrows].file = zt_dwarfcompat_file(fno, cu->gnu_default_file);
		cu->rows[cu->nrows].line = (uint32_t)ln;
		cu->rows[cu->nrows].seq = (uint32_t)i;
		cu->rows[cu->nrows].end = end != 0;
		cu->nrows++;
	}
	cu->lversion = (int)version;
	dwarf_srclines_dealloc_b(ctx);
	sort_rows(cu);
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

/* .debug_abbrev's bytes (*n), or NULL. */
static const unsigned char *abbrevs(struct zt_dwarf *dw, size_t *n)
{
	const struct zt_section *sec = zt_elf_section(dw->secs.e, ".debug_abbrev");

	*n = 0;
	return sec ? zt_dwarfcompat_section(&dw->secs, (size_t)(sec - dw->secs.e->sections), n)
		   : NULL;
}

/* The CU's functions and inlined calls, from a walk of its DIEs. */
static void walk_cu(struct zt_dwarf *dw, struct cu *cu)
{
	Dwarf_Error e = NULL;
	Dwarf_Die child = NULL;
	struct walk w = { .dw = dw, .cu = cu };
	Dwarf_Half ver = 0, offsz = 0;
	int res;

	cu->walked = 1;
	if (dwarf_get_version_of_die(cu->die, &ver, &offsz) != DW_DLV_OK)
		ver = 4;
	cu_bases(dw, cu->die, ver, &w.cb);
	res = dwarf_child(cu->die, &child, &e);
	if (res == DW_DLV_OK)
		walk(&w, child, 0, 1);
	else if (res == DW_DLV_ERROR)
		note(dw, &e, "child");
	free(w.r);
	free(cu->amask);
	cu->amask = NULL;
	cu->namask = 0;
	if (cu->nscopes)
		qsort(cu->scopes, cu->nscopes, sizeof *cu->scopes, cmp_scope);
	link_parents(cu);
}

/*
 * A CU's line table, and its DIEs when it has inlined calls (most of its
 * DIEs are types, which cost libdwarf as much to step over as a function
 * does to read). In a CU without them an address's frame is its line alone,
 * unless its function's DWARF name is asked for (zt_dwarf_lookup).
 */
static void load_cu(struct zt_dwarf *dw, struct cu *cu)
{
	Dwarf_Die cudie;
	Dwarf_Half ver = 0, offsz = 0;
	const unsigned char *ab;
	size_t nab;

	cu->state = -1;
	cudie = cu->die;
	if (dwarf_get_version_of_die(cudie, &ver, &offsz) != DW_DLV_OK)
		ver = 4;
	cu->version = ver;
	read_lines(dw, cu, cudie);
	/*
	 * A table cut off tells nothing sure: every attribute is asked for,
	 * and the CU may inline.
	 */
	ab = abbrevs(dw, &nab);
	if (zt_dwarfcompat_abbrevs(ab, nab, cu->abbrev_off, mask_attr, cu) < 0) {
		free(cu->amask);
		cu->amask = NULL;
		cu->namask = 0;
		cu->inlines = 1;
	}
	if (cu->inlines)
		walk_cu(dw, cu);
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

static int arange_holds(const void *p, uint64_t vaddr)
{
	const struct arange *a = p;

	return vaddr >= a->lo && vaddr < a->hi;
}

#define ARANGES(dw) ZT_RANGES((dw)->ar, (dw)->nar, struct arange, lo, up, arange_holds)

static void add_arange(struct zt_dwarf *dw, size_t *cap, uint64_t lo, uint64_t hi, size_t cu)
{
	zt_grow(&dw->ar, cap, dw->nar + 1, sizeof *dw->ar);
	dw->ar[dw->nar].lo = lo;
	dw->ar[dw->nar].hi = hi;
	dw->ar[dw->nar].cu = cu;
	dw->nar++;
}

/* Every CU, from the unit headers, sorted by the offset of its DIE. */
static void list_cus(struct zt_dwarf *dw)
{
	Dwarf_Error e = NULL;
	size_t capcu = 0;
	int res;

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
		dw->cus[dw->ncus].abbrev_off = abbr;
		dw->cus[dw->ncus].die = cudie;	/* kept: dwarf_offdie_b is slow */
		dw->ncus++;
	}
	if (dw->ncus)
		qsort(dw->cus, dw->ncus, sizeof *dw->cus, cmp_off);
}

/* The CU whose DIE is at off, by number, or -1. */
static int64_t cu_at(const struct zt_dwarf *dw, Dwarf_Off off)
{
	size_t i = zt_ranges_upto(dw->cus, dw->ncus, sizeof *dw->cus,
				  offsetof(struct cu, die_off), off);

	return i > 0 && dw->cus[i - 1].die_off == off ? (int64_t)i - 1 : -1;
}

/* The CU ranges .debug_aranges gives, for the CUs list_cus found. */
static void aranges_from_section(struct zt_dwarf *dw, size_t *capar)
{
	Dwarf_Error e = NULL;
	Dwarf_Arange *ars = NULL;
	Dwarf_Signed nars = 0;
	int res = dwarf_get_aranges(dw->dbg, &ars, &nars, &e);

	if (res == DW_DLV_ERROR)
		note(dw, &e, "aranges");
	if (res != DW_DLV_OK)
		return;
	for (Dwarf_Signed i = 0; i < nars; i++) {
		Dwarf_Unsigned seg, segsz, len;
		Dwarf_Addr start;
		Dwarf_Off off;
		int64_t cu;

		if (dwarf_get_arange_info_b(ars[i], &seg, &segsz, &start, &len, &off, &e) ==
		    DW_DLV_OK) {
			cu = cu_at(dw, off);
			if (cu >= 0 && len > 0)
				add_arange(dw, capar, start, start + len, (size_t)cu);
		} else {
			note(dw, &e, "arange");
		}
		dwarf_dealloc(dw->dbg, ars[i], DW_DLA_ARANGE);
	}
	dwarf_dealloc(dw->dbg, ars, DW_DLA_LIST);
}

/* The ranges of the CUs that .debug_aranges left out (clang omits it). */
static void aranges_from_cus(struct zt_dwarf *dw, size_t *capar)
{
	char *covered = zt_calloc(dw->ncus ? dw->ncus : 1, 1);

	for (size_t i = 0; i < dw->nar; i++)
		covered[dw->ar[i].cu] = 1;
	for (size_t c = 0; c < dw->ncus; c++) {
		Dwarf_Die cudie;
		uint64_t *r = NULL;
		size_t nr = 0, capr = 0;
		struct zt_dwarfcompat_bases cb;

		if (covered[c])
			continue;
		cudie = dw->cus[c].die;
		cu_bases(dw, cudie, dw->cus[c].version, &cb);
		die_ranges(dw, cudie, &cb, A_ALL, &r, &nr, &capr);
		for (size_t i = 0; i + 1 < nr; i += 2)
			add_arange(dw, capar, r[i], r[i + 1], c);
		free(r);
	}
	free(covered);
}

/* Index every CU, and its ranges: .debug_aranges, else the CU's own. */
static void index_cus(struct zt_dwarf *dw)
{
	size_t capar = 0;

	list_cus(dw);
	aranges_from_section(dw, &capar);
	aranges_from_cus(dw, &capar);
	if (dw->nar)
		qsort(dw->ar, dw->nar, sizeof *dw->ar, cmp_arange);
	/* The ranges of different CUs should not overlap; when they do, the links. */
	zt_ranges_link(&ARANGES(dw));
}

/*
 * libdwarf reads the file through these (dwarf_object_init_b): the ELF
 * reader's section headers and zt_dwarfcompat_section's bytes, so that
 * each section is read once, and decompressed by libdeflate. 64-bit
 * little-endian ELF only, as the ELF reader; no relocations (executables
 * and shared objects have none in their DWARF).
 */
static int obj_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *out, int *error)
{
	struct zt_dwarf *dw = obj;
	const struct zt_section *sec;
	int64_t n;

	if (i >= dw->secs.n) {
		*error = DW_DLE_SECTION_INDEX_BAD;
		return DW_DLV_NO_ENTRY;
	}
	sec = &dw->secs.e->sections[i];
	n = zt_dwarfcompat_section_size(&dw->secs, i);
	memset(out, 0, sizeof *out);
	out->addr = sec->addr;
	out->type = sec->type;
	out->size = n > 0 ? (Dwarf_Unsigned)n : 0;
	out->name = sec->name ? sec->name : "";
	out->link = sec->link;
	out->entrysize = sec->entsize;
	return DW_DLV_OK;
}

static Dwarf_Endianness obj_byte_order(void *obj)
{
	(void)obj;
	return DW_OBJECT_LSB;
}

static Dwarf_Small obj_length_size(void *obj)
{
	(void)obj;
	return 4;
}

static Dwarf_Small obj_pointer_size(void *obj)
{
	(void)obj;
	return 8;
}

static Dwarf_Unsigned obj_section_count(void *obj)
{
	const struct zt_dwarf *dw = obj;

	return dw->secs.n > 0xffff ? 0xffff : dw->secs.n;
}

static int obj_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	struct zt_dwarf *dw = obj;
	const unsigned char *b;
	size_t n = 0;

	if (i >= dw->secs.n) {
		*error = DW_DLE_SECTION_INDEX_BAD;
		return DW_DLV_NO_ENTRY;
	}
	b = zt_dwarfcompat_section(&dw->secs, i, &n);
	if (!b) {
		*error = DW_DLE_ZLIB_UNCOMPRESS_ERROR;
		return DW_DLV_ERROR;
	}
	*data = (Dwarf_Small *)(uintptr_t)b;	/* libdwarf only reads them */
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods obj_methods = {
	.get_section_info = obj_section_info,
	.get_byte_order = obj_byte_order,
	.get_length_size = obj_length_size,
	.get_pointer_size = obj_pointer_size,
	.get_section_count = obj_section_count,
	.load_section = obj_load_section,
	.relocate_a_section = NULL,
};

struct zt_dwarf *zt_dwarf_open(const char *path, const struct zt_elf *e, char *err,
			       size_t errlen)
{
	struct zt_dwarf *dw;
	Dwarf_Error de = NULL;
	int res;

	(void)path;
	zt_errf(err, errlen, "%s", "");
	/* Only files whose section headers the ELF reader could read whole. */
	if (e->damage || !zt_elf_section(e, ".debug_info"))
		return NULL;
	/*
	 * Sections cut off by the end of the file read as empty: libdwarf
	 * would take what they are missing for corrupt DWARF, or worse.
	 */
	if (e->sections_cut) {
		zt_errf(err, errlen, "%u section%s past the end of the file: DWARF not read",
			e->sections_cut, e->sections_cut == 1 ? "" : "s");
		return NULL;
	}
	dw = zt_calloc(1, sizeof *dw);
	zt_dwarfcompat_secs_open(e, &dw->secs);
	if (zt_dwarfcompat_check_lists(&dw->secs, err, errlen) < 0) {
		zt_dwarfcompat_secs_close(&dw->secs);
		free(dw);
		return NULL;
	}
	zt_dwarfcompat_lists_open(&dw->secs, &dw->lists);
	/*
	 * libdwarf otherwise records every allocation in a tree for
	 * dwarf_finish to free: a fifth of the time of --lines on libc. zt
	 * frees what it is given itself (dies, attributes, errors, lists,
	 * file names).
	 */
	dwarf_set_de_alloc_flag(0);
	dw->obj.object = dw;
	dw->obj.methods = &obj_methods;
	res = dwarf_object_init_b(&dw->obj, on_error, NULL, DW_GROUPNUMBER_ANY, &dw->dbg, &de);
	if (res != DW_DLV_OK) {
		if (res == DW_DLV_ERROR) {
			zt_errf(err, errlen, "corrupt DWARF: %s", de ? dwarf_errmsg(de) : "unreadable");
			/* There is no dbg: libdwarf frees such an error without one. */
			if (de)
				dwarf_dealloc(NULL, de, DW_DLA_ERROR);
		}
		zt_dwarfcompat_secs_close(&dw->secs);
		free(dw);
		return NULL;
	}
	index_cus(dw);
	if (dw->ncus == 0) {
		if (dw->problem)
			zt_errf(err, errlen, "%s", dw->problem);
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
		free(dw->cus[i].fns);
		free(dw->cus[i].amask);
		dwarf_dealloc_die(dw->cus[i].die);
		for (Dwarf_Signed k = 0; k < dw->cus[i].nfiles; k++)
			dwarf_dealloc(dw->dbg, dw->cus[i].files[k], DW_DLA_STRING);
		if (dw->cus[i].files)
			dwarf_dealloc(dw->dbg, dw->cus[i].files, DW_DLA_LIST);
	}
	dwarf_object_finish(dw->dbg, &e);
	zt_dwarfcompat_secs_close(&dw->secs);
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
	size_t i = zt_ranges_upto(cu->rows, cu->nrows, sizeof *cu->rows,
				  offsetof(struct row, addr), vaddr);

	/* At one address the last row counts, as in addr2line. */
	if (i == 0 || cu->rows[i - 1].end)
		return NULL;
	return &cu->rows[i - 1];
}

static struct cu *cu_for(struct zt_dwarf *dw, uint64_t vaddr)
{
	size_t i = dw->last_ar;
	struct cu *cu;

	/*
	 * Addresses come in order (zt_symbolize_all): the range that held
	 * the last one is the holder of this one too when it holds it and
	 * the next range starts after it.
	 */
	if (!(i > 0 && vaddr >= dw->ar[i - 1].lo && vaddr < dw->ar[i - 1].hi &&
	      (i == dw->nar || dw->ar[i].lo > vaddr)))
		i = dw->last_ar = zt_ranges_holder(&ARANGES(dw), vaddr);

	if (i == 0)
		return NULL;
	cu = &dw->cus[dw->ar[i - 1].cu];
	if (cu->state == 0)
		load_cu(dw, cu);
	return cu->state == 1 ? cu : NULL;
}

void zt_dwarf_load(struct zt_dwarf *dw, uint64_t vaddr)
{
	cu_for(dw, vaddr);
}

size_t zt_dwarf_lookup(struct zt_dwarf *dw, uint64_t vaddr, struct zt_srcframe *out,
		       size_t max, int want_name)
{
	struct cu *cu = cu_for(dw, vaddr);
	const struct scope *chain[64];
	const struct row *row;
	size_t lo, n = 0, depth = 0;

	if (!cu || max == 0)
		return 0;
	if (want_name && !cu->walked)
		walk_cu(dw, cu);
	row = row_for(cu, vaddr);
	/* Scopes holding vaddr, one per depth. */
	lo = zt_ranges_upto(cu->scopes, cu->nscopes, sizeof *cu->scopes,
			    offsetof(struct scope, lo), vaddr);
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
		const struct scope *sc = chain[d];

		struct fn *f = &cu->fns[sc->fn];

		if (!f->named) {
			f->named = 1;
			f->name = fn_name(dw, cu, f, 0);
		}
		out[n].name = f->name;
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
