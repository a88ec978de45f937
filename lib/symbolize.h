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
#include "srcline.h"

struct zt_symbolizer;
struct zt_debuginfod;

/* How to find files and how to name: all zero is the default. */
struct zt_symopts {
	const char *const *debug_dirs;	/* searched first, in order (--debug-dir) */
	size_t ndebug_dirs;
	const char *sysroot;		/* the dump's paths are looked up under it */
	int no_demangle;		/* keep C++ and Rust names mangled */
	int lines;			/* read DWARF: source lines, inlined frames */
	struct zt_debuginfod *debuginfod;	/* asked last for a file not found
						   here (lib/debuginfod.h); NULL:
						   never */
	int view;			/* not the symbolizer's: which records the
					   analysis tools read (--event, lib/event.h) */
};

struct zt_symres {
	const char *name;	/* function, "[basename]", "[vdso]" or "[unknown]" */
	int have_sym;		/* name is a symbol; offset is meaningful */
	int fde;		/* no symbol: name is "[basename+0xSTART]", the start
				   of the .eh_frame FDE that holds the address, in
				   the file's link-time addresses; offset from it */
	uint64_t offset;	/* address - symbol start */
	const char *module;	/* mapped path, pseudo-name, or "[unknown]" */
	/* With lines (DWARF): */
	const char *file;	/* this frame's source file, or NULL */
	unsigned line;
	const struct zt_srcframe *inl;	/* inlined frames at this address, */
	size_t ninl;			/* innermost first, each with its line */
};

/*
 * A symbolizer over dump d, which must outlive it, as must o's strings (o
 * may be NULL). Files are opened lazily, once each, and kept mapped; every
 * address is resolved once.
 *
 * A mapped file is used only when its build-id is the dump's. Otherwise a
 * copy with that build-id is looked for under each debug directory
 * (DIR/.build-id/xx/rest, then rest.debug), and then /usr/lib/debug; last,
 * with o->debuginfod, its servers are asked for the executable, then the
 * debug file. Names
 * come from the separate debug file's .symtab when there is one (found by
 * build-id, by a .gnu_debuglink whose CRC matches, or through debuginfod
 * when the file has no .symtab or o->lines asks for DWARF), else from the file's
 * own .symtab or .dynsym, and PLT entries are "func@plt". A file that is
 * missing, not ELF, or of another build, with no good copy, gets one warning
 * in zt_symbolizer_warnings (the tool prints them), and its frames are
 * "[basename]". An address of a usable file that no symbol names is named
 * by the .eh_frame FDE that holds it, "[basename+0xSTART]" (lib/ehframe.h;
 * a file's FDEs are read the first time it needs them). The vDSO is named
 * from the image the dump carries (d->vdso), as a file is but without FDE
 * names, module "[vdso]"; without one, or where no symbol holds an address,
 * its frames are "[vdso]". A malformed vdso section of d is a warning.
 */
struct zt_symbolizer *zt_symbolizer_new(const struct zt_raw *d,
					const struct zt_symopts *o);
void zt_symbolizer_free(struct zt_symbolizer *s);

/*
 * Resolve addr, an address of a stack with this gen (struct zt_stack), in
 * the mapping that held it when the stack's samples were taken
 * (zt_raw_map_at; ZT_RAW_GEN_ANY: the last one that held it); exact says
 * it is an interrupted pc, not a return address.
 */
void zt_symbolize_gen(struct zt_symbolizer *s, uint64_t addr, int exact, uint32_t gen,
		      struct zt_symres *out);

/*
 * Whether a and b name an address alike (the same strings, by pointer: the
 * symbolizer's): one address can be two answers, a library unloaded and
 * another loaded at its address, each sample named from the maps of its
 * time. Writers that format an address once use it beside the address.
 */
int zt_symres_same(const struct zt_symres *a, const struct zt_symres *b);

/*
 * Resolve the n addresses addr[i] (exact[i] as above, of a stack with
 * gen[i]; gen may be NULL: ZT_RAW_GEN_ANY) into out[i]: the same answers
 * and warnings as zt_symbolize_gen on each in turn, but each distinct
 * address once and in address order, which reads each DWARF line table and
 * scope list while it is in the processor's cache.
 */
void zt_symbolize_all(struct zt_symbolizer *s, const uint64_t *addr, const uint8_t *exact,
		      const uint32_t *gen, size_t n, struct zt_symres *out);

/*
 * res[j]: address j of d, the symbolizer's dump, resolved with its stack's
 * gen (what zt_symstream_resolve gives): zt_symbolizer_warnings then counts
 * the unnamed samples from it instead of resolving every address again.
 * Another dump than the symbolizer's is ignored.
 */
void zt_symbolizer_named(struct zt_symbolizer *s, const struct zt_raw *d,
			 const struct zt_symres *res);

/*
 * The share of the samples, and the number, below which no warning says a
 * file lacks names: one stray sample is no visible share (the loader's
 * entry code, _dl_start_user, has neither a symbol nor an FDE, and a
 * 100-sample run catches it there now and then).
 */
#define ZT_UNNAMED_PCT 1.0
#define ZT_UNNAMED_MIN 5

/*
 * Warnings so far, one per line, each without "zt-symbolize: ". The first
 * call resolves every address of the dump and ends the list with one
 * warning per file that no symbol names in ZT_UNNAMED_PCT percent or more
 * of the samples, and ZT_UNNAMED_MIN samples or more (a sample counts once
 * per file), saying the share and
 * where names would come from (not for a file that has a warning already
 * for being unusable or damaged).
 */
const char *const *zt_symbolizer_warnings(struct zt_symbolizer *s, size_t *n);

/*
 * What debuginfod fetched for this symbolizer's files, where from, and what
 * it could not (zt_debuginfod_report: one line, without "zt-symbolize: "),
 * or NULL when nothing was asked. Made with the warnings (this calls
 * zt_symbolizer_warnings first). For stderr only, never a fact of the
 * stream: whether a file came from a server or the cache is not the dump's.
 */
const char *zt_symbolizer_debuginfod_note(struct zt_symbolizer *s);

#endif
