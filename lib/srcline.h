/*
 * srcline.h — source lines and inlined frames from DWARF, through libdwarf
 * (its 20210528 API). Only what symbolization needs is read: the CU that
 * holds an address is found through .debug_aranges (or the CUs' own
 * ranges), and a CU's line table and function scopes are parsed the first
 * time one of its addresses is asked for.
 */
#ifndef ZT_SRCLINE_H
#define ZT_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct zt_dwarf;
struct zt_elf;

/* One function in an address's chain of inlined calls. */
struct zt_srcframe {
	const char *name;	/* linkage name if any, else name; NULL if unknown */
	const char *file;	/* NULL if unknown */
	unsigned line;
};

/*
 * Open the DWARF of the ELF file at path, which e is (parsed already; e
 * must outlive the result, which reads some of its sections in place).
 * Returns NULL when it has none, or when it is refused (err then says why;
 * "" means no DWARF).
 */
struct zt_dwarf *zt_dwarf_open(const char *path, const struct zt_elf *e, char *err,
			       size_t errlen);
void zt_dwarf_close(struct zt_dwarf *dw);

/*
 * The chain at link-time address vaddr, innermost first, into out[0..max):
 * out[0] is the innermost inlined function with the line of vaddr; each
 * next entry is the function that inlined the one before, with the line of
 * that call; the last is the function that holds vaddr out of line.
 * Returns the number of entries: 0 when no DWARF covers vaddr, and 1 with
 * name NULL when the line table covers it but no function does (assembly).
 * Strings live as long as dw. A CU found to be corrupt is skipped; its
 * problem is kept for zt_dwarf_problem.
 *
 * want_name 0: the caller has the function's name from elsewhere (a
 * symbol), and in a CU without inlined calls the one entry may have name
 * NULL, its DIEs left unread. Every other answer is the same.
 */
size_t zt_dwarf_lookup(struct zt_dwarf *dw, uint64_t vaddr, struct zt_srcframe *out,
		       size_t max, int want_name);

/*
 * Read the CU that holds vaddr now, if it is not read yet (its problems
 * are then kept): zt_dwarf_lookup would read it when first asked.
 */
void zt_dwarf_load(struct zt_dwarf *dw, uint64_t vaddr);

/* The first problem met in the DWARF, or NULL; for one warning per file. */
const char *zt_dwarf_problem(const struct zt_dwarf *dw);

#endif
