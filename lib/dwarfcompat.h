/*
 * dwarfcompat.h — what zt does itself because libdwarf 20210528 (Debian
 * 12's libdwarf-dev) gets it wrong; lib/srcline.c does the rest of its
 * reading through libdwarf.
 *
 * - DWARF 5 range lists (.debug_rnglists) are decoded here: libdwarf reads
 *   out of bounds on a corrupt one (found by tests/fuzz/fuzz-dwarf.c).
 * - The unit headers of .debug_rnglists and .debug_loclists are checked
 *   before libdwarf is opened: libdwarf frees memory twice when one claims
 *   more bytes than the section has (found by fuzz-dwarf too).
 * - Sections are read here, for libdwarf too (lib/srcline.c hands them to
 *   it through dwarf_object_init_b): each once, the file's own mapped
 *   bytes or, when SHF_COMPRESSED, decompressed by libdeflate (twice as
 *   fast as the zlib inside libdwarf, which also read each compressed
 *   section into memory first, and the list checks decompressed them again).
 * - A DWARF 5 line table's file register starts at 0 in libdwarf, where
 *   DWARF 5 says 1 (zt_dwarfcompat_file).
 *
 * With a libdwarf that has these fixed, srcline.c can read range lists
 * through libdwarf again and this file goes.
 */
#ifndef ZT_DWARFCOMPAT_H
#define ZT_DWARFCOMPAT_H

#include <stddef.h>
#include <stdint.h>

struct zt_elf;
struct libdeflate_decompressor;

/*
 * The sections of an ELF file e (which must outlive it) as DWARF reads
 * them, by section index, each read once when first asked for.
 */
struct zt_dwarfcompat_secs {
	const struct zt_elf *e;
	size_t n;			/* e's sections */
	const unsigned char **data;
	size_t *size;
	unsigned char *state;
	struct libdeflate_decompressor *inflater;
};

void zt_dwarfcompat_secs_open(const struct zt_elf *e, struct zt_dwarfcompat_secs *c);
/*
 * Section i's bytes (*n of them): the file's own, or decompressed. NULL
 * when there is no section i or its bytes cannot be had (past the end of
 * the file, a compressed header of another kind or claiming more than
 * 1 GiB, data that does not inflate to that size or fails its check).
 */
const unsigned char *zt_dwarfcompat_section(struct zt_dwarfcompat_secs *c, size_t i, size_t *n);
/* The size zt_dwarfcompat_section will give, without reading; -1 as NULL above. */
int64_t zt_dwarfcompat_section_size(const struct zt_dwarfcompat_secs *c, size_t i);
void zt_dwarfcompat_secs_close(struct zt_dwarfcompat_secs *c);

/*
 * Check the unit headers of .debug_rnglists and .debug_loclists. Returns 0,
 * or -1 with err set to what is wrong ("corrupt DWARF: .debug_rnglists: a
 * unit longer than the section"): libdwarf must then not open the file.
 */
int zt_dwarfcompat_check_lists(struct zt_dwarfcompat_secs *c, char *err, size_t errlen);

/*
 * The abbreviation table at offset off of .debug_abbrev (b, n bytes): each
 * abbreviation's attributes in turn, then attr 0, through each(ctx, code,
 * tag, attr, form), which stops the scan by returning non-zero. Returns 0 when
 * the table was read to its end, 1 when each stopped it, -1 when it is cut
 * off. libdwarf reads the same tables one abbreviation at a time and
 * allocating each; this only looks.
 */
int zt_dwarfcompat_abbrevs(const unsigned char *b, size_t n, uint64_t off,
			   int (*each)(void *ctx, uint64_t code, uint64_t tag, uint64_t attr,
				       uint64_t form),
			   void *ctx);

/* A file's .debug_rnglists and .debug_addr, for zt_dwarfcompat_rnglist. */
struct zt_dwarfcompat_lists {
	const unsigned char *rng, *addr;
	size_t nrng, naddr;
};

/* Read them from c (either may be missing); c keeps the bytes. */
void zt_dwarfcompat_lists_open(struct zt_dwarfcompat_secs *c, struct zt_dwarfcompat_lists *l);

/* Where a CU's DWARF 5 lists and addresses start (DW_AT_*_base). */
struct zt_dwarfcompat_bases {
	uint64_t rnglists, addr;
	uint64_t lowpc;
	int version;
};

/*
 * Append the ranges of one DWARF 5 range list to *r as (lo, hi) pairs
 * (*n values, *cap allocated). value is the DW_AT_ranges value: an index
 * when indexed (DW_FORM_rnglistx), else a section offset. 0, or -1 when the
 * list is cut off or corrupt (the pairs read so far are kept).
 */
int zt_dwarfcompat_rnglist(const struct zt_dwarfcompat_lists *l,
			   const struct zt_dwarfcompat_bases *cb, int indexed,
			   uint64_t value, uint64_t **r, size_t *n, size_t *cap);

/*
 * A line-table row's file number as DWARF 5 means it. libdwarf starts a
 * DWARF 5 line program's file register at 0, where DWARF 5 says 1
 * (binutils 2.40's addr2line does the same; readelf and llvm-symbolizer do
 * not). A row that never set the file then reads as file 0: in a table
 * from gcc and gas (gnu: the CU's producer starts "GNU "), which never set
 * file 0, that 0 is the default 1.
 */
static inline uint32_t zt_dwarfcompat_file(uint64_t fno, int gnu)
{
	return (uint32_t)fno + (gnu && fno == 0);
}

#endif
