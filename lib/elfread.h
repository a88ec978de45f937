/*
 * elfread.h — reading 64-bit little-endian ELF files (x86-64, AArch64 and the
 * like), whatever machine zt runs on:
 * load segments, sections, symbol tables and the build-id. A file is mmapped
 * once; every offset and size read from it is checked against its length,
 * so a truncated or corrupt file gives an error, never a bad read.
 */
#ifndef ZT_ELFREAD_H
#define ZT_ELFREAD_H

#include <stddef.h>
#include <stdint.h>

struct zt_load {
	uint64_t offset, vaddr, filesz, memsz;
	uint32_t flags;
};

struct zt_sym {
	uint64_t addr, size;
	const char *name;	/* into the mapped file, or its symnames */
	uint8_t bind, type;
	uint8_t zero_size;	/* st_size was 0: size runs to the next symbol */
	uint32_t index;		/* its index in the symbol table */
	uint32_t up;		/* the enclosing symbol's link (ranges.h) */
};

struct zt_section {
	const char *name;
	uint32_t type, link;
	uint64_t flags, addr, offset, size, entsize;
};

struct zt_elf {
	char *path;			/* as opened: root, then the path in it */
	char *root;			/* the root it was looked up in, or NULL */
	size_t rootlen;			/* path + rootlen is the path in root */
	const unsigned char *data;	/* the whole file, mapped read-only */
	size_t size;
	uint16_t type;			/* ET_EXEC, ET_DYN, ... */
	uint16_t machine;
	int has_interp;			/* a PT_INTERP: dynamically linked */
	int has_dynamic;
	struct zt_load *loads;
	size_t nloads;
	struct zt_section *sections;
	size_t nsections;
	struct zt_sym *syms;		/* functions, sorted by address */
	char *symnames;			/* storage of names without their version */
	size_t nsyms;
	int symtab;			/* names came from .symtab, not .dynsym */
	char buildid[129];		/* hex, "" if none */
	const char *damage;		/* why sections were left unread, or NULL */
	uint32_t sections_cut;		/* sections past the end of the file, read as empty */
	char symproblem[128];		/* what is wrong with .symtab/.dynsym, or "" */
	const char *debuglink;		/* .gnu_debuglink's file name, or NULL */
	uint32_t debuglink_crc;		/* its CRC32 of the debug file */
	int nobits_text;		/* .text is NOBITS: a separate debug file */
	struct zt_sym *plt;		/* "func@plt" entries, sorted by address */
	size_t nplt;
	char *pltnames;			/* storage of the plt names */
	struct zt_elf_kept *kept;	/* the parse this shares (zt_elf_open_in), or NULL */
};

/*
 * Map and parse the file at path. Returns 0, or -1 with err set to a message
 * such as "not an ELF file" or "truncated or corrupt program headers"
 * (errno-style failures read "cannot open: No such file or directory").
 * Symbols are read too. A file whose section headers are cut off or corrupt
 * (a truncated file) still opens with its program headers and build-id, no
 * sections and no symbols, and damage says what was wrong. The caller frees
 * e with zt_elf_close.
 */
int zt_elf_open(const char *path, struct zt_elf *e, char *err, size_t errlen);

/*
 * zt_elf_open of path inside root (see zt_elf_open_file); root may be NULL.
 * A file opened again in the process (the same device, inode, size and
 * times: a tool reading a thousand dumps of one program) shares the first
 * open's parse, read-only, and the last few files closed stay parsed for
 * the next open: reading many inputs parses each file once.
 */
int zt_elf_open_in(const char *root, const char *path, struct zt_elf *e, char *err,
		   size_t errlen);

/*
 * Open a file that a dump names (or a file found from one) for reading,
 * and return its descriptor, or -1 with err set. Only a regular file outside
 * /proc and /sys opens: a maps line naming a FIFO, a device or a /proc file
 * must never block or feed a tool ("not a regular file"). The open itself
 * is non-blocking, so a FIFO with no writer cannot hang it.
 *
 * With root (--sysroot), path is looked up as if root were '/': neither
 * '..' nor a symbolic link, absolute or relative, leads out of root
 * (openat2's RESOLVE_IN_ROOT, Linux 5.6; on older kernels '..' is removed
 * from path by its text, and links are followed as they are).
 */
int zt_elf_open_file(const char *root, const char *path, char *err, size_t errlen);

/* Parse an ELF image already in memory (not owned): for tests and fuzzing. */
int zt_elf_parse(const unsigned char *data, size_t size, struct zt_elf *e,
		 char *err, size_t errlen);

void zt_elf_close(struct zt_elf *e);

/* File offset to link-time address through the PT_LOADs; 0 on success. */
int zt_elf_offset_to_vaddr(const struct zt_elf *e, uint64_t off, uint64_t *vaddr);

/*
 * The function holding vaddr, or NULL. Of the names at one address, the one
 * perf chooses (a size over none, not WEAK over WEAK, GLOBAL over LOCAL,
 * fewer leading underscores, the longer name, the earlier in the table),
 * without its symbol version ("memcpy@GLIBC_2.2.5" is "memcpy"). A symbol
 * of size zero holds everything up to the next symbol.
 * Where sized symbols nest, the innermost (the last to start) holds it, the
 * rule of lib/ranges.h.
 */
const struct zt_sym *zt_elf_lookup(const struct zt_elf *e, uint64_t vaddr);

/*
 * The .plt, .plt.sec or .plt.got entry holding vaddr, named "func@plt", or
 * NULL. Entries are found by decoding how each one reads its GOT slot (on
 * x86-64 its jmp *GOT(%rip), so the lazy and the IBT (.plt.sec) layouts
 * read alike; on AArch64 its adrp x16 and ldr x17, with or without a bti c
 * before them) and naming the relocation of that slot (JUMP_SLOT or
 * GLOB_DAT). Other machines' files have no PLT entries here.
 */
const struct zt_sym *zt_elf_lookup_plt(const struct zt_elf *e, uint64_t vaddr);

/* The section with the given name, or NULL. */
const struct zt_section *zt_elf_section(const struct zt_elf *e, const char *name);

#endif
