/*
 * symbolize.h — from a process address in a dump to a function name.
 *
 * Address -> mapping (the dump's maps) -> file offset -> link-time address
 * (the file's PT_LOADs) -> symbol (.symtab, else .dynsym). A return address
 * is looked up at address - 1, so that a call that ends a function is not
 * charged to the next one; an exact pc is looked up as it is.
 */
#ifndef ZT_SYMBOLIZE_H
#define ZT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "raw.h"

struct zt_symbolizer;

struct zt_symres {
	const char *name;	/* function, "[basename]", "[vdso]" or "[unknown]" */
	int have_sym;		/* name is a symbol; offset is meaningful */
	uint64_t offset;	/* address - symbol start */
	const char *module;	/* mapped path, pseudo-name, or "[unknown]" */
};

/*
 * A symbolizer over dump d, which must outlive it. Files are opened lazily,
 * once each, and kept mapped; every address is resolved once. A file that is
 * missing, not ELF, or whose build-id differs from the dump's, gets one
 * warning on stderr and in zt_symbolizer_warnings, and its frames are named
 * "[basename]".
 */
struct zt_symbolizer *zt_symbolizer_new(const struct zt_dump *d);
void zt_symbolizer_free(struct zt_symbolizer *s);

/* Resolve addr; exact says it is an interrupted pc, not a return address. */
void zt_symbolize(struct zt_symbolizer *s, uint64_t addr, int exact,
		  struct zt_symres *out);

/* Warnings so far, one per line, each without "zt-symbolize: ". */
const char *const *zt_symbolizer_warnings(const struct zt_symbolizer *s,
					  size_t *n);

#endif
