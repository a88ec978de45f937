/*
 * elfread.c — the ELF reader. Structures are copied out with memcpy, so the file
 * needs no alignment; each table is checked to lie inside the file before it
 * is read.
 */
#include "elfread.h"
#include "ranges.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether [off, off + n) lies inside the file. */
static int inside(const struct zt_elf *e, uint64_t off, uint64_t n)
{
	return off <= e->size && n <= e->size - off;
}

/* A NUL-terminated string at strtab[off], or NULL if it runs off the end. */
static const char *str_at(const struct zt_elf *e, const struct zt_section *tab,
			  uint64_t off)
{
	const char *s;

	if (!tab || off >= tab->size)
		return NULL;
	s = (const char *)e->data + tab->offset + off;
	if (!memchr(s, '\0', tab->size - off))
		return NULL;
	return s;
}

static void parse_notes(struct zt_elf *e, uint64_t off, uint64_t size, uint64_t align)
{
	const unsigned char *p = e->data + off, *end = p + size;
	uint64_t a = align == 8 ? 8 : 4;

	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		const unsigned char *name, *desc;
		uint64_t nlen, dlen;

		memcpy(&nh, p, sizeof nh);
		name = p + sizeof nh;
		nlen = (nh.n_namesz + a - 1) & ~(a - 1);
		if (nlen > (uint64_t)(end - name))
			return;
		desc = name + nlen;
		dlen = (nh.n_descsz + a - 1) & ~(a - 1);
		if (nh.n_descsz > (uint64_t)(end - desc))
			return;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= 64) {
			for (unsigned i = 0; i < nh.n_descsz; i++)
				sprintf(e->buildid + 2 * i, "%02x", desc[i]);
			return;
		}
		if (dlen > (uint64_t)(end - desc))
			return;
		p = desc + dlen;
	}
}

/* How many '_' a name starts with. */
static size_t leading_underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * By address, and at one address the best name first, by perf's rule
 * (tools/perf/util/symbol.c, choose_best_symbol): a symbol with a size over
 * one without; not WEAK over WEAK; GLOBAL over not GLOBAL (so GLOBAL, then
 * LOCAL, then WEAK); fewer leading underscores; the longer name; then the
 * one earlier in the table. Names are compared as the table spells them,
 * versions included, as perf compares them.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct zt_sym *x = a, *y = b;
	size_t ux, uy, nx, ny;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->zero_size != y->zero_size)
		return x->zero_size ? 1 : -1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	nx = strlen(x->name);
	ny = strlen(y->name);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The length of name without its symbol version ("@GLIBC_2.2.5", the
 * default "@@GLIBC_2.34"), which a debug file's .symtab keeps in the name:
 * perf and gdb show the function without it. A name with no version, or an
 * '@' that does not start one, keeps its length.
 */
static size_t unversioned_len(const char *name)
{
	const char *at = strchr(name, '@'), *v;

	if (!at || at == name)
		return strlen(name);
	v = at[1] == '@' ? at + 2 : at + 1;
	if (!*v || strchr(v, '@'))
		return strlen(name);
	return (size_t)(at - name);
}

/* Whether symbol or PLT entry p holds vaddr (no overflow at the top). */
static int sym_holds(const void *p, uint64_t vaddr)
{
	const struct zt_sym *s = p;

	return vaddr - s->addr < s->size;
}

#define SYM_RANGES(arr, n) ZT_RANGES(arr, n, struct zt_sym, addr, up, sym_holds)

/* Say what is wrong with a symbol table: the first problem found wins. */
static void sym_problem(struct zt_elf *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sym_problem(struct zt_elf *e, const char *fmt, ...)
{
	va_list ap;

	if (e->symproblem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(e->symproblem, sizeof e->symproblem, fmt, ap);
	va_end(ap);
}

/*
 * A label: a symbol of no type and no size in a section of code, as an
 * assembly file's entry points are (ld.so's _start and _dl_start_user).
 * perf names the code after one by it, up to the next symbol; so does zt,
 * where no sized function holds the address.
 */
static int is_label(const struct zt_elf *e, const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_NOTYPE && s->st_size == 0 &&
	       s->st_shndx != SHN_UNDEF && s->st_shndx < e->nsections &&
	       (e->sections[s->st_shndx].flags & SHF_EXECINSTR);
}

/*
 * Data in a section of code: an STT_OBJECT symbol there names code, as
 * GHC's info tables do (stg_upd_frame_info, stg_ap_pv_info: the code follows
 * each table, under the table's symbol). perf names addresses by them, as
 * by functions; so does zt.
 */
static int is_code_object(const struct zt_elf *e, const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_OBJECT && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx < e->nsections && (e->sections[s->st_shndx].flags & SHF_EXECINSTR);
}

/* Read the functions of tab; returns how many names were off strtab's end. */
static size_t read_symbols(struct zt_elf *e, const struct zt_section *tab,
			   const struct zt_section *strtab,
			   const uint64_t *sec_end, size_t nsec_end)
{
	size_t n = tab->size / sizeof(Elf64_Sym), out = 0, bad = 0, namelen = 0;

	e->syms = zt_calloc(n ? n : 1, sizeof *e->syms);
	for (size_t i = 1; i < n; i++) {
		Elf64_Sym s;
		const char *name;
		uint8_t type;

		memcpy(&s, e->data + tab->offset + i * sizeof s, sizeof s);
		type = ELF64_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !is_label(e, &s) &&
		    !is_code_object(e, &s))
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		name = str_at(e, strtab, s.st_name);
		bad += !name;
		if (!name || !*name || (type == STT_NOTYPE && name[0] == '$'))
			continue;	/* $x, $d: aarch64's mapping symbols, not names */
		e->syms[out].addr = s.st_value;
		e->syms[out].size = s.st_size;
		e->syms[out].name = name;
		e->syms[out].bind = ELF64_ST_BIND(s.st_info);
		e->syms[out].type = type;
		e->syms[out].zero_size = s.st_size == 0;
		e->syms[out].index = (uint32_t)i;
		/* A sized-zero symbol ends at its section's end, at most. */
		if (s.st_size == 0 && s.st_shndx < nsec_end && sec_end[s.st_shndx] > s.st_value)
			e->syms[out].size = sec_end[s.st_shndx] - s.st_value;
		else if (s.st_size == 0)
			e->syms[out].size = 1;
		out++;
	}
	qsort(e->syms, out, sizeof *e->syms, cmp_sym);
	/*
	 * One symbol per address: the best-ranked, its version dropped. A
	 * label names only what no sized function holds.
	 */
	n = out;
	out = 0;
	for (size_t i = 0, end = 0; i < n; i++) {
		if (out > 0 && e->syms[out - 1].addr == e->syms[i].addr)
			continue;
		if (e->syms[i].type == STT_NOTYPE && e->syms[i].addr < end)
			continue;
		if (!e->syms[i].zero_size && e->syms[i].addr + e->syms[i].size > end)
			end = e->syms[i].addr + e->syms[i].size;
		e->syms[out++] = e->syms[i];
		if (unversioned_len(e->syms[i].name) != strlen(e->syms[i].name))
			namelen += unversioned_len(e->syms[i].name) + 1;
	}
	/* A label runs to the next symbol, as perf has it. */
	for (size_t i = 0; i + 1 < out; i++)
		if (e->syms[i].type == STT_NOTYPE && e->syms[i].addr + e->syms[i].size > e->syms[i + 1].addr)
			e->syms[i].size = e->syms[i + 1].addr - e->syms[i].addr;
	if (namelen) {
		e->symnames = zt_malloc(namelen);
		namelen = 0;
		for (size_t i = 0; i < out; i++) {
			size_t len = unversioned_len(e->syms[i].name);
			char *copy = e->symnames + namelen;

			if (len == strlen(e->syms[i].name))
				continue;
			memcpy(copy, e->syms[i].name, len);
			copy[len] = '\0';
			namelen += len + 1;
			e->syms[i].name = copy;
		}
	}
	/* A zero-size symbol was widened to its section; stop it at the next one. */
	for (size_t i = 0; i + 1 < out; i++)
		if (e->syms[i].addr + e->syms[i].size > e->syms[i + 1].addr &&
		    e->syms[i].zero_size)
			e->syms[i].size = e->syms[i + 1].addr - e->syms[i].addr;
	e->nsyms = out;
	/* Sized symbols may still nest (a local label typed as a function). */
	zt_ranges_link(&SYM_RANGES(e->syms, e->nsyms));
	return bad;
}

/* .gnu_debuglink: a file name, NUL, padding to 4, then a CRC32 (LE). */
static void read_debuglink(struct zt_elf *e)
{
	const struct zt_section *s = zt_elf_section(e, ".gnu_debuglink");
	const char *name;
	uint64_t n;

	if (!s || s->type == SHT_NOBITS || s->size < 5)
		return;
	name = (const char *)e->data + s->offset;
	if (!memchr(name, '\0', s->size))
		return;
	n = (strlen(name) + 4) & ~(uint64_t)3;
	if (!*name || n + 4 > s->size)
		return;
	memcpy(&e->debuglink_crc, e->data + s->offset + n, 4);
	e->debuglink = name;
}

struct slot {
	uint64_t got;
	const char *name;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int cmp_plt(const void *a, const void *b)
{
	const struct zt_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A PLT entry found: [addr, addr + size) jumps through GOT slot hit. */
static void add_plt(struct zt_elf *e, size_t *cap, size_t *namelen, uint64_t addr,
		    uint64_t size, const struct slot *hit)
{
	zt_grow(&e->plt, cap, e->nplt + 1, sizeof *e->plt);
	e->plt[e->nplt].addr = addr;
	e->plt[e->nplt].size = size;
	e->plt[e->nplt].name = hit->name;	/* gets "@plt" in read_plt */
	e->plt[e->nplt].bind = STB_LOCAL;
	e->plt[e->nplt].type = STT_FUNC;
	*namelen += strlen(hit->name) + 5;
	e->nplt++;
}

/* The slot at GOT address got, or NULL. */
static const struct slot *slot_at(const struct slot *slots, size_t nslots, uint64_t got)
{
	size_t k = zt_ranges_upto(slots, nslots, sizeof *slots, offsetof(struct slot, got), got);

	return k == 0 || slots[k - 1].got != got ? NULL : &slots[k - 1];
}

/*
 * x86-64: every entry of .plt, .plt.sec and .plt.got (16 bytes, or the
 * section's entsize) whose jmp *disp(%rip) reads a named slot.
 */
static void plt_x86_64(struct zt_elf *e, const struct slot *slots, size_t nslots,
		       size_t *cap, size_t *namelen)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };

	for (size_t p = 0; p < sizeof plts / sizeof plts[0]; p++) {
		const struct zt_section *s = zt_elf_section(e, plts[p]);
		uint64_t ent;

		if (!s || s->type != SHT_PROGBITS || !s->size)
			continue;
		ent = s->entsize >= 8 && s->entsize <= 32 ? s->entsize : 16;
		if (p == 0 && s->entsize < 16)
			ent = 16;	/* .plt's entsize is sometimes 8 */
		for (uint64_t off = 0; off + ent <= s->size; off += ent) {
			const unsigned char *b = e->data + s->offset + off;
			const struct slot *hit;
			int32_t disp;
			uint64_t j;

			for (j = 0; j + 6 <= ent; j++)
				if (b[j] == 0xff && b[j + 1] == 0x25)
					break;
			if (j + 6 > ent)
				continue;
			memcpy(&disp, b + j + 2, 4);
			hit = slot_at(slots, nslots, s->addr + off + j + 6 + (uint64_t)(int64_t)disp);
			if (hit)
				add_plt(e, cap, namelen, s->addr + off, ent, hit);
		}
	}
}

/* AArch64 instructions of a PLT entry (Arm ARM C6.2: ADRP, LDR immediate, BTI). */
#define A64_ADRP_MASK 0x9f000000u
#define A64_ADRP 0x90000000u
#define A64_LDR_X_MASK 0xffc00000u	/* LDR Xt, [Xn, #imm12 * 8] */
#define A64_LDR_X 0xf9400000u
#define A64_BTI_C 0xd503245fu
#define A64_X16 16u
#define A64_X17 17u

/*
 * AArch64: the linker's entries (binutils and lld alike) load their GOT
 * slot with "adrp x16, PAGE; ldr x17, [x16, #OFF]" and branch to x17, after
 * a "bti c" when built for BTI. Every such pair in .plt that reads a named
 * slot starts an entry (at its bti c, if any), which runs to the next one
 * or to the end of .plt; the header's pair reads GOT[2], which no
 * relocation names.
 */
static void plt_aarch64(struct zt_elf *e, const struct slot *slots, size_t nslots,
			size_t *cap, size_t *namelen)
{
	const struct zt_section *s = zt_elf_section(e, ".plt");
	size_t first = e->nplt;

	if (!s || s->type != SHT_PROGBITS || s->size < 8 || s->addr % 4)
		return;
	for (uint64_t off = 0; off + 8 <= s->size; off += 4) {
		uint32_t adrp, ldr, prev;
		uint64_t pc = s->addr + off, page, start;
		int64_t imm;
		const struct slot *hit;

		memcpy(&adrp, e->data + s->offset + off, 4);
		memcpy(&ldr, e->data + s->offset + off + 4, 4);
		if ((adrp & A64_ADRP_MASK) != A64_ADRP || (adrp & 0x1f) != A64_X16 ||
		    (ldr & A64_LDR_X_MASK) != A64_LDR_X || ((ldr >> 5) & 0x1f) != A64_X16 ||
		    (ldr & 0x1f) != A64_X17)
			continue;
		/* immhi (bits 23:5) and immlo (30:29): a signed count of 4 KiB pages. */
		imm = (int64_t)((((adrp >> 5) & 0x7ffff) << 2) | ((adrp >> 29) & 3));
		if (imm & (1 << 20))
			imm -= 1 << 21;
		page = (pc & ~(uint64_t)0xfff) + (uint64_t)(imm * 4096);
		hit = slot_at(slots, nslots, page + ((ldr >> 10) & 0xfff) * 8);
		if (!hit)
			continue;
		start = pc;
		if (off >= 4) {
			memcpy(&prev, e->data + s->offset + off - 4, 4);
			if (prev == A64_BTI_C)
				start -= 4;
		}
		add_plt(e, cap, namelen, start, s->addr + s->size - start, hit);
	}
	/* Found in address order: each ends where the next starts. */
	for (size_t i = first; i + 1 < e->nplt; i++)
		e->plt[i].size = e->plt[i + 1].addr - e->plt[i].addr;
}

/*
 * GOT slots named by the relocations against .dynsym (JUMP_SLOT, GLOB_DAT),
 * then every PLT entry that jumps through one of those slots, decoded as
 * the file's machine lays its entries out (x86-64, AArch64).
 */
static void read_plt(struct zt_elf *e, const struct zt_section *dynsym)
{
	struct slot *slots = NULL;
	size_t nslots = 0, cap = 0, pcap = 0, namelen = 0;
	uint32_t jump_slot, glob_dat;

	if (e->machine == EM_X86_64) {
		jump_slot = R_X86_64_JUMP_SLOT;
		glob_dat = R_X86_64_GLOB_DAT;
	} else if (e->machine == EM_AARCH64) {
		jump_slot = R_AARCH64_JUMP_SLOT;
		glob_dat = R_AARCH64_GLOB_DAT;
	} else {
		return;
	}
	if (!dynsym || dynsym->type != SHT_DYNSYM)
		return;
	for (size_t i = 0; i < e->nsections; i++) {
		const struct zt_section *r = &e->sections[i];
		const struct zt_section *str;

		if (r->type != SHT_RELA || r->entsize != sizeof(Elf64_Rela) ||
		    r->link >= e->nsections || &e->sections[r->link] != dynsym)
			continue;
		if (dynsym->link >= e->nsections ||
		    e->sections[dynsym->link].type != SHT_STRTAB)
			continue;
		str = &e->sections[dynsym->link];
		for (uint64_t k = 0; k + sizeof(Elf64_Rela) <= r->size; k += sizeof(Elf64_Rela)) {
			Elf64_Rela rel;
			Elf64_Sym sym;
			uint64_t si;
			const char *name;

			memcpy(&rel, e->data + r->offset + k, sizeof rel);
			if (ELF64_R_TYPE(rel.r_info) != jump_slot &&
			    ELF64_R_TYPE(rel.r_info) != glob_dat)
				continue;
			si = ELF64_R_SYM(rel.r_info);
			if (si == 0 || si >= dynsym->size / sizeof sym)
				continue;
			memcpy(&sym, e->data + dynsym->offset + si * sizeof sym, sizeof sym);
			name = str_at(e, str, sym.st_name);
			if (!name || !*name)
				continue;
			zt_grow(&slots, &cap, nslots + 1, sizeof *slots);
			slots[nslots].got = rel.r_offset;
			slots[nslots++].name = name;
		}
	}
	if (!nslots)
		return;
	qsort(slots, nslots, sizeof *slots, cmp_slot);
	if (e->machine == EM_X86_64)
		plt_x86_64(e, slots, nslots, &pcap, &namelen);
	else
		plt_aarch64(e, slots, nslots, &pcap, &namelen);
	free(slots);
	if (!e->nplt)
		return;
	e->pltnames = zt_malloc(namelen);
	namelen = 0;
	for (size_t i = 0; i < e->nplt; i++) {
		char *n = e->pltnames + namelen;

		namelen += (size_t)sprintf(n, "%s@plt", e->plt[i].name) + 1;
		e->plt[i].name = n;
	}
	qsort(e->plt, e->nplt, sizeof *e->plt, cmp_plt);
	zt_ranges_link(&SYM_RANGES(e->plt, e->nplt));
}

/* The ELF header: what kind of file this is. */
static int read_ehdr(struct zt_elf *e, Elf64_Ehdr *h, char *err, size_t errlen)
{
	if (e->size < EI_NIDENT || memcmp(e->data, ELFMAG, SELFMAG) != 0) {
		zt_errf(err, errlen, "not an ELF file");
		return -1;
	}
	if (e->data[EI_CLASS] != ELFCLASS64 || e->data[EI_DATA] != ELFDATA2LSB) {
		zt_errf(err, errlen, "not a 64-bit little-endian ELF file");
		return -1;
	}
	if (e->size < sizeof *h) {
		zt_errf(err, errlen, "truncated ELF header");
		return -1;
	}
	memcpy(h, e->data, sizeof *h);
	e->type = h->e_type;
	e->machine = h->e_machine;
	return 0;
}

/* The program headers: PT_LOADs, interpreter, dynamic, build-id note. */
static int read_phdrs(struct zt_elf *e, const Elf64_Ehdr *h, char *err, size_t errlen)
{
	if (!h->e_phnum)
		return 0;
	if (h->e_phentsize != sizeof(Elf64_Phdr) ||
	    !inside(e, h->e_phoff, (uint64_t)h->e_phnum * sizeof(Elf64_Phdr))) {
		zt_errf(err, errlen, "truncated or corrupt program headers");
		return -1;
	}
	e->loads = zt_calloc(h->e_phnum, sizeof *e->loads);
	for (unsigned i = 0; i < h->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, e->data + h->e_phoff + i * sizeof ph, sizeof ph);
		if (ph.p_type == PT_INTERP)
			e->has_interp = 1;
		else if (ph.p_type == PT_DYNAMIC)
			e->has_dynamic = 1;
		else if (ph.p_type == PT_NOTE && !e->buildid[0] &&
			 inside(e, ph.p_offset, ph.p_filesz))
			parse_notes(e, ph.p_offset, ph.p_filesz, ph.p_align);
		if (ph.p_type != PT_LOAD)
			continue;
		e->loads[e->nloads].offset = ph.p_offset;
		e->loads[e->nloads].vaddr = ph.p_vaddr;
		e->loads[e->nloads].filesz = ph.p_filesz;
		e->loads[e->nloads].memsz = ph.p_memsz;
		e->loads[e->nloads].flags = ph.p_flags;
		e->nloads++;
	}
	return 0;
}

/*
 * The section headers, named, and each section's end address in *sec_end
 * (for zero-size symbols). -1 with e->damage set when the headers are cut
 * off or corrupt: the file is then read without sections.
 */
static int read_shdrs(struct zt_elf *e, const Elf64_Ehdr *h, uint64_t **sec_end)
{
	uint64_t shnum = h->e_shnum, shstrndx = h->e_shstrndx;
	const struct zt_section *shstr = NULL;

	if (h->e_shoff) {
		Elf64_Shdr s0;

		if (h->e_shentsize != sizeof(Elf64_Shdr) || !inside(e, h->e_shoff, sizeof s0)) {
			e->damage = "truncated or corrupt section headers";
			return -1;
		}
		memcpy(&s0, e->data + h->e_shoff, sizeof s0);
		if (shnum == 0)
			shnum = s0.sh_size;	/* extended numbering */
		if (shstrndx == SHN_XINDEX)
			shstrndx = s0.sh_link;
		if (shnum > (e->size - h->e_shoff) / sizeof(Elf64_Shdr)) {
			e->damage = "truncated: section headers past end of file";
			return -1;
		}
	} else {
		shnum = 0;
	}
	e->sections = zt_calloc(shnum ? shnum : 1, sizeof *e->sections);
	*sec_end = zt_calloc(shnum ? shnum : 1, sizeof **sec_end);
	e->nsections = shnum;
	for (uint64_t i = 0; i < shnum; i++) {
		Elf64_Shdr s;

		memcpy(&s, e->data + h->e_shoff + i * sizeof s, sizeof s);
		e->sections[i].type = s.sh_type;
		e->sections[i].flags = s.sh_flags;
		e->sections[i].addr = s.sh_addr;
		e->sections[i].offset = s.sh_offset;
		e->sections[i].size = s.sh_size;
		e->sections[i].link = s.sh_link;
		e->sections[i].entsize = s.sh_entsize;
		e->sections[i].name = (const char *)(uintptr_t)s.sh_name;	/* fixed below */
		(*sec_end)[i] = s.sh_addr + s.sh_size;
		/* A section whose bytes are not in the file reads as empty. */
		if (s.sh_type != SHT_NOBITS && !inside(e, s.sh_offset, s.sh_size)) {
			e->sections[i].size = 0;
			e->sections[i].offset = 0;
			e->sections_cut++;
		}
	}
	if (shstrndx < shnum && e->sections[shstrndx].type == SHT_STRTAB)
		shstr = &e->sections[shstrndx];
	for (uint64_t i = 0; i < shnum; i++) {
		uint64_t off = (uint64_t)(uintptr_t)e->sections[i].name;
		const char *name = shstr ? str_at(e, shstr, off) : NULL;

		e->sections[i].name = name ? name : "";
	}
	return 0;
}

/*
 * The functions of tab (.symtab or .dynsym), checked against its
 * raw header (whose size and offset the section table keeps only when they
 * lie inside the file). A corrupt table is described in symproblem and
 * skipped, or read for the symbols whose names are valid. Returns whether
 * it gave any symbol.
 */
static int read_symtab(struct zt_elf *e, const Elf64_Ehdr *h, const struct zt_section *tab,
		       const uint64_t *sec_end)
{
	const char *what = tab->type == SHT_SYMTAB ? ".symtab" : ".dynsym";
	Elf64_Shdr raw, str;
	uint64_t link;
	size_t bad;

	memcpy(&raw, e->data + h->e_shoff + (uint64_t)(tab - e->sections) * sizeof raw,
	       sizeof raw);
	link = raw.sh_link;
	if (!inside(e, raw.sh_offset, raw.sh_size)) {
		sym_problem(e, "%s lies past the end of the file", what);
		return 0;
	}
	if (raw.sh_entsize != sizeof(Elf64_Sym)) {
		sym_problem(e, "%s has entries of %llu bytes, not %zu", what,
			    (unsigned long long)raw.sh_entsize, sizeof(Elf64_Sym));
		return 0;
	}
	if (link >= e->nsections || e->sections[link].type != SHT_STRTAB) {
		sym_problem(e, "%s links to section %llu, not a string table", what,
			    (unsigned long long)link);
		return 0;
	}
	memcpy(&str, e->data + h->e_shoff + link * sizeof str, sizeof str);
	if (!inside(e, str.sh_offset, str.sh_size)) {
		sym_problem(e, "the string table of %s lies past the end of the file", what);
		return 0;
	}
	if (tab->size < sizeof(Elf64_Sym))
		return 0;
	bad = read_symbols(e, tab, &e->sections[link], sec_end, e->nsections);
	if (bad)
		sym_problem(e, "%zu names in %s lie past the end of its string table", bad, what);
	e->symtab = tab->type == SHT_SYMTAB;
	if (e->nsyms > 0)
		return 1;
	free(e->syms);
	e->syms = NULL;
	return 0;
}

static int parse(const unsigned char *data, size_t size, struct zt_elf *e,
		 char *err, size_t errlen)
{
	Elf64_Ehdr h;
	const struct zt_section *symtab = NULL, *dynsym = NULL, *text;
	uint64_t *sec_end = NULL;

	e->data = data;
	e->size = size;
	if (read_ehdr(e, &h, err, errlen) < 0 || read_phdrs(e, &h, err, errlen) < 0)
		return -1;
	if (read_shdrs(e, &h, &sec_end) < 0)
		return 0;	/* damaged: program headers and build-id only */
	for (size_t i = 0; i < e->nsections; i++) {
		const struct zt_section *s = &e->sections[i];

		if (s->type == SHT_NOTE && !e->buildid[0] && s->size)
			parse_notes(e, s->offset, s->size, 4);
		if (s->type == SHT_SYMTAB && !symtab)
			symtab = s;
		else if (s->type == SHT_DYNSYM && !dynsym)
			dynsym = s;
	}
	read_debuglink(e);
	read_plt(e, dynsym);
	text = zt_elf_section(e, ".text");
	e->nobits_text = text && text->type == SHT_NOBITS;
	/* .symtab has every function; a stripped file keeps only .dynsym. */
	if (!(symtab && read_symtab(e, &h, symtab, sec_end)) && dynsym)
		read_symtab(e, &h, dynsym, sec_end);
	free(sec_end);
	return 0;
}

int zt_elf_parse(const unsigned char *data, size_t size, struct zt_elf *e,
		 char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	return parse(data, size, e, err, errlen);
}

/*
 * path with every "." and ".." removed by its text, ".." stopping at the
 * top, and no leading '/': what openat2 would find inside a root, on kernels
 * without it (which then still follow links out of the root).
 */
static char *clean_path(const char *path)
{
	char *out = zt_malloc(strlen(path) + 2);
	size_t n = 0;

	while (*path) {
		size_t len = strcspn(path, "/");

		if (len == 0 || (len == 1 && path[0] == '.')) {
			/* nothing */
		} else if (len == 2 && path[0] == '.' && path[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			if (n > 0)
				out[n++] = '/';
			memcpy(out + n, path, len);
			n += len;
		}
		path += len;
		if (*path == '/')
			path++;
	}
	if (n == 0)
		out[n++] = '.';
	out[n] = '\0';
	return out;
}

static int open_in_root(const char *root, const char *path, int flags)
{
	struct open_how how;
	int dfd, fd, saved;

	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)flags;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		char *clean = clean_path(path);

		fd = openat(dfd, clean, flags);
		free(clean);
	}
	saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

int zt_elf_open_file(const char *root, const char *path, char *err, size_t errlen)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	struct statfs sf;
	int fd;

	fd = root ? open_in_root(root, path, flags) : open(path, flags);
	if (fd < 0) {
		zt_errf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (fstatfs(fd, &sf) == 0 &&
	     (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC))) {
		close(fd);
		zt_errf(err, errlen, "not a regular file");
		return -1;
	}
	return fd;
}

int zt_elf_open(const char *path, struct zt_elf *e, char *err, size_t errlen)
{
	return zt_elf_open_in(NULL, path, e, err, errlen);
}

/*
 * Parses kept for the files opened again: each holds a file's parse (its
 * mapping and tables; path and root are each open's own), the opens that
 * share it, and when it was last used. Those no open uses are dropped,
 * least recently used first, beyond KEEP.
 */
enum { KEEP = 16 };

struct zt_elf_kept {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	struct zt_elf elf;
	size_t users;
	uint64_t used;
	struct zt_elf_kept *next;
};

static struct zt_elf_kept *kept;
static uint64_t kept_clock;

static int same_file(const struct zt_elf_kept *k, const struct stat *st)
{
	return k->dev == st->st_dev && k->ino == st->st_ino && k->size == st->st_size &&
	       k->mtime.tv_sec == st->st_mtim.tv_sec && k->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       k->ctime.tv_sec == st->st_ctim.tv_sec && k->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* e, opened, shares k's parse: its tables, with its own path and root. */
static void share(struct zt_elf *e, struct zt_elf_kept *k)
{
	char *path = e->path, *root = e->root;
	size_t rootlen = e->rootlen;

	*e = k->elf;
	e->path = path;
	e->root = root;
	e->rootlen = rootlen;
	e->kept = k;
	k->users++;
	k->used = ++kept_clock;
}

/* Free e's parse: its tables, and its mapping when it is e's own. */
static void drop_parse(struct zt_elf *e, int mapped)
{
	if (e->data && mapped)
		munmap((void *)e->data, e->size);
	free(e->loads);
	free(e->sections);
	free(e->syms);
	free(e->symnames);
	free(e->plt);
	free(e->pltnames);
}

/* Drop kept parses no open uses, least recently used first, to KEEP. */
static void trim(void)
{
	for (;;) {
		struct zt_elf_kept **at, **old = NULL, *k;
		size_t n = 0;

		for (at = &kept; *at; at = &(*at)->next) {
			n++;
			if (!(*at)->users && (!old || (*at)->used < (*old)->used))
				old = at;
		}
		if (n <= KEEP || !old)
			return;
		k = *old;
		*old = k->next;
		drop_parse(&k->elf, 1);
		free(k);
	}
}

/* Keep e's parse (a file of stat st) for the next opens; e shares it from now. */
static void keep(struct zt_elf *e, const struct stat *st)
{
	struct zt_elf_kept *k = zt_calloc(1, sizeof *k);

	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
	k->ctime = st->st_ctim;
	k->elf = *e;
	k->elf.path = k->elf.root = NULL;
	k->elf.rootlen = 0;
	k->next = kept;
	kept = k;
	share(e, k);
	trim();
}

int zt_elf_open_in(const char *root, const char *path, struct zt_elf *e, char *err,
		   size_t errlen)
{
	struct stat st;
	void *p;
	int fd;

	memset(e, 0, sizeof *e);
	if (root) {
		e->root = zt_strdup(root);
		e->rootlen = strlen(root);
		e->path = zt_malloc(e->rootlen + strlen(path) + 1);
		sprintf(e->path, "%s%s", root, path);
	} else {
		e->path = zt_strdup(path);
	}
	fd = zt_elf_open_file(root, path, err, errlen);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		zt_errf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		zt_errf(err, errlen, "empty file, not an ELF file");
		return -1;
	}
	for (struct zt_elf_kept *k = kept; k; k = k->next) {
		if (same_file(k, &st)) {
			close(fd);
			share(e, k);
			return 0;
		}
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		zt_errf(err, errlen, "cannot map: %s", strerror(errno));
		return -1;
	}
	if (parse(p, (size_t)st.st_size, e, err, errlen) < 0) {
		munmap(p, (size_t)st.st_size);
		e->data = NULL;
		return -1;
	}
	keep(e, &st);
	return 0;
}

void zt_elf_close(struct zt_elf *e)
{
	if (e->kept)
		e->kept->users--;
	else
		drop_parse(e, e->path != NULL);	/* zt_elf_parse's memory is not e's */
	free(e->path);
	free(e->root);
	memset(e, 0, sizeof *e);
	trim();
}

int zt_elf_offset_to_vaddr(const struct zt_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct zt_load *l = &e->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = l->vaddr + (off - l->offset);
			return 0;
		}
	}
	return -1;
}

const struct zt_sym *zt_elf_lookup(const struct zt_elf *e, uint64_t vaddr)
{
	size_t i = zt_ranges_holder(&SYM_RANGES(e->syms, e->nsyms), vaddr);

	return i ? &e->syms[i - 1] : NULL;
}

const struct zt_sym *zt_elf_lookup_plt(const struct zt_elf *e, uint64_t vaddr)
{
	size_t i = zt_ranges_holder(&SYM_RANGES(e->plt, e->nplt), vaddr);

	return i ? &e->plt[i - 1] : NULL;
}

const struct zt_section *zt_elf_section(const struct zt_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsections; i++)
		if (strcmp(e->sections[i].name, name) == 0)
			return &e->sections[i];
	return NULL;
}
