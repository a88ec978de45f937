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
 * - Sections are decompressed here (SHF_COMPRESSED, zlib) for the two
 *   jobs above, which read the bytes libdwarf would have read.
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

/*
 * Check the unit headers of .debug_rnglists and .debug_loclists. Returns 0,
 * or -1 with err set to what is wrong ("corrupt DWARF: .debug_rnglists: a
 * unit longer than the section"): libdwarf must then not open the file.
 */
int zt_dwarfcompat_check_lists(const struct zt_elf *e, char *err, size_t errlen);

/* A file's .debug_rnglists and .debug_addr, for zt_dwarfcompat_rnglist. */
struct zt_dwarfcompat_lists {
	const unsigned char *rng, *addr;
	size_t nrng, naddr;
	int own_rng, own_addr;		/* decompressed: to be freed */
};

/* Read them from e (either may be missing); e must outlive l. */
void zt_dwarfcompat_lists_open(const struct zt_elf *e, struct zt_dwarfcompat_lists *l);
void zt_dwarfcompat_lists_close(struct zt_dwarfcompat_lists *l);

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
