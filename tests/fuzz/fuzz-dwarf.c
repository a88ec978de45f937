/*
 * fuzz-dwarf.c — libFuzzer target for the DWARF reader (lib/srcline.c) over
 * libdwarf 20210528.
 *
 * The input is an ELF file: it is parsed by the ELF reader, written to a
 * memfd and opened by path (/proc/self/fd/N), as zt-symbolize opens a debug
 * file. When libdwarf takes it, addresses are looked up across every executable PT_LOAD (256
 * steps each, and each edge), across .text, and at fixed addresses; every
 * answer is checked: no more frames than asked for, names and files
 * NUL-terminated. A lookup repeated must give the same answer (CUs are read
 * once and kept).
 *
 * Seeds (corpus-dwarf/, built with -Wl,-z,noseparate-code to stay small):
 * gcc -O2 -g (DWARF 5, inlined calls), the same with -gdwarf-4 (.debug_ranges)
 * and with -gz (zlib-compressed sections), clang -O2 -g (DWARF 5 the LLVM
 * way), g++ -O2 -g (templates, C++ names), and a debug file from objcopy
 * --only-keep-debug (NOBITS code).
 *
 * Found (inputs in crashes/):
 * - dwarf-leak-init-error: when dwarf_init_b fails, its Dwarf_Error has no
 *   dbg to be freed through; it leaked until srcline.c freed it with
 *   dwarf_dealloc(NULL, e, DW_DLA_ERROR).
 * - dwarf-double-free-rnglists-unit-length: a .debug_rnglists unit longer
 *   than the section makes libdwarf 20210528 free memory twice inside
 *   dwarf_next_cu_header_d (dwarf_load_rnglists). A libdwarf bug: srcline.c
 *   now checks the .debug_rnglists and .debug_loclists unit headers first
 *   and refuses such a file's DWARF with a warning.
 * - dwarf-libdwarf-segv-rnglists-entry: bad bytes inside a .debug_rnglists
 *   list (clang's DWARF 5, DW_FORM_rnglistx) make libdwarf 20210528 read
 *   out of bounds in dwarf_rnglists_get_rle_head. srcline.c now decodes
 *   DWARF 5 range lists itself, every read bounded.
 * - dwarf-timeout-sibling-revisits: a DW_AT_sibling pointing back into a
 *   subtree made the DIE walk revisit DIEs (seconds, or without end); the
 *   walk now stops at a DIE that does not come after the last one.
 *   (Other timeouts were this target's own sweep wrapping around.)
 */
#define FUZZ_NAME "fuzz-dwarf"
#include "fuzz.h"
#include "elfread.h"
#include "srcline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *__lsan_default_suppressions(void);

/*
 * srcline.c turns off libdwarf's allocation tree (a fifth of --lines' time
 * on libc); on corrupt DWARF, libdwarf 20210528 then leaks objects it
 * meant that tree to free (errors made inside dwarf_highpc_b, a half-built
 * dwarf_srcfiles list). Those are its own, from its allocator: leaks of
 * anything zt allocates are still reported.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:_dwarf_get_alloc\n";
}

static struct zt_dwarf *dw;

/*
 * Asked without the name first (a CU without inlined calls is then not
 * walked), then with it, then again: the answers agree, but for the name
 * (and a line-less function's one entry) that only the walk gives.
 */
static void lookup(uint64_t vaddr)
{
	struct zt_srcframe f[8], g[8], h[8];
	size_t k = zt_dwarf_lookup(dw, vaddr, h, 8, 0);
	size_t n = zt_dwarf_lookup(dw, vaddr, f, 8, 1), m;

	CHECK(n <= 8 && k <= 8);
	for (size_t i = 0; i < n; i++) {
		if (f[i].name)
			(void)strlen(f[i].name);
		if (f[i].file)
			(void)strlen(f[i].file);
	}
	m = zt_dwarf_lookup(dw, vaddr, g, 8, 1);
	CHECK(m == n);
	for (size_t i = 0; i < n; i++)
		CHECK(f[i].name == g[i].name && f[i].file == g[i].file && f[i].line == g[i].line);
	CHECK(k == n || (k == 0 && n == 1 && !f[0].file));
	for (size_t i = 0; i < k; i++)
		CHECK((h[i].name == f[i].name || (k == 1 && !h[0].name)) &&
		      h[i].file == f[i].file && h[i].line == f[i].line);
}

static void sweep(uint64_t lo, uint64_t len)
{
	uint64_t step = len / 256 ? len / 256 : 1;

	for (uint64_t i = 0; i <= 256 && i * step < len; i++)
		lookup(lo + i * step);
	lookup(lo + len - 1);
	lookup(lo + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_elf e;
	char path[64], err[512];
	const struct zt_section *text;
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	/* zt-symbolize reads DWARF only from files the ELF reader took. */
	if (zt_elf_parse(data, size, &e, err, sizeof err) == 0 &&
	    (dw = zt_dwarf_open(path, &e, err, sizeof err)) != NULL) {
		static const uint64_t fixed[] = { 0, 1, 0x1000, 0x401000, UINT64_MAX - 1, UINT64_MAX };

		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			lookup(fixed[i]);
		for (size_t i = 0; i < e.nloads; i++)
			if (e.loads[i].flags & 1)
				sweep(e.loads[i].vaddr, e.loads[i].memsz);
		text = zt_elf_section(&e, ".text");
		if (text)
			sweep(text->addr, text->size);
		(void)zt_dwarf_problem(dw);
		zt_dwarf_close(dw);
	}
	zt_elf_close(&e);
	close(fd);
	return 0;
}
