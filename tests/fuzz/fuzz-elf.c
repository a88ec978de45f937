/*
 * fuzz-elf.c — libFuzzer target for the ELF reader (lib/elfread.c).
 *
 * The input is parsed in place with zt_elf_parse (the bytes are not owned, so
 * zt_elf_close frees the tables and never munmaps). A file that parses is
 * then queried: zt_elf_lookup and zt_elf_lookup_plt around every symbol, PLT
 * entry and load segment and at a few fixed addresses, zt_elf_offset_to_vaddr
 * at the edges of every segment, zt_elf_section for ".text" and for every
 * section's own name, and across the PLT sections. The answers are checked
 * against what the tables say, and against a plain scan for the last entry
 * that holds the address. Its FDEs are read (lib/ehframe.c, through
 * .eh_frame_hdr or .eh_frame) and looked up around each one's edges, checked
 * the same way.
 */
#define FUZZ_NAME "fuzz-elf"
#include "fuzz.h"
#include "ehframe.h"
#include "elfread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct zt_elf *cur;

/* Whether a name the reader returned points into the file (or is ""). */
static void check_name(const char *name)
{
	const char *base = (const char *)cur->data;

	CHECK(name != NULL);
	if (*name == '\0')
		return;
	CHECK(name >= base && name < base + cur->size);
	CHECK(memchr(name, '\0', (size_t)(base + cur->size - name)) != NULL);
}

/* A symbol's name: in the file, or a copy without its version in symnames. */
static void check_sym_name(const char *name)
{
	const char *base = (const char *)cur->data;

	CHECK(name != NULL);
	if (name >= base && name < base + cur->size) {
		check_name(name);
		return;
	}
	CHECK(cur->symnames != NULL && name >= cur->symnames);
	CHECK(*name != '\0' && strchr(name, '@') == NULL);
}

static const struct zt_ehframe *fdes;

/* The last FDE that holds vaddr, by a plain scan. */
static const struct zt_fde *scan_fde(uint64_t vaddr)
{
	const struct zt_fde *found = NULL;

	for (size_t i = 0; i < fdes->n && fdes->fdes[i].start <= vaddr; i++)
		if (vaddr - fdes->fdes[i].start < fdes->fdes[i].size)
			found = &fdes->fdes[i];
	return found;
}

static void lookup_fde(uint64_t vaddr)
{
	const struct zt_fde *f = zt_ehframe_lookup(fdes, vaddr);

	CHECK(f == scan_fde(vaddr));
	if (f)
		CHECK(f->start <= vaddr && vaddr - f->start < f->size);
}

/* What the lookups must find: the last entry of t[0..n) that holds vaddr. */
static const struct zt_sym *scan(const struct zt_sym *t, size_t n, uint64_t vaddr)
{
	const struct zt_sym *found = NULL;

	for (size_t i = 0; i < n && t[i].addr <= vaddr; i++)
		if (vaddr - t[i].addr < t[i].size)
			found = &t[i];
	return found;
}

static void lookup(uint64_t vaddr)
{
	const struct zt_sym *s = zt_elf_lookup(cur, vaddr);

	CHECK(s == scan(cur->syms, cur->nsyms, vaddr));
	if (!s)
		return;
	CHECK(s >= cur->syms && s < cur->syms + cur->nsyms);
	CHECK(s->addr <= vaddr && vaddr - s->addr < s->size);
	check_sym_name(s->name);
}

static void lookup_plt(uint64_t vaddr)
{
	const struct zt_sym *s = zt_elf_lookup_plt(cur, vaddr);

	CHECK(s == scan(cur->plt, cur->nplt, vaddr));
	if (!s)
		return;
	CHECK(s >= cur->plt && s < cur->plt + cur->nplt);
	CHECK(s->addr <= vaddr && vaddr - s->addr < s->size);
	CHECK(s->name != NULL && strlen(s->name) >= 4);
	CHECK(strcmp(s->name + strlen(s->name) - 4, "@plt") == 0);
}

static void offset(uint64_t off)
{
	uint64_t vaddr = 0;

	if (zt_elf_offset_to_vaddr(cur, off, &vaddr) == 0)
		lookup(vaddr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = {
		0, 1, 0x1000, 0x400000, 0x401000, UINT64_MAX / 2, UINT64_MAX - 1,
		UINT64_MAX,
	};
	struct zt_elf e;
	char err[256];
	const struct zt_section *text;

	memset(&e, 0, sizeof e);
	err[0] = '\0';
	if (zt_elf_parse(data, size, &e, err, sizeof err) < 0) {
		CHECK(err[0] != '\0');
		CHECK(e.path == NULL);
		zt_elf_close(&e);
		return 0;
	}
	cur = &e;
	CHECK(e.path == NULL && e.data == data && e.size == size);
	CHECK(strlen(e.buildid) <= 128 && strlen(e.buildid) % 2 == 0);
	/* A symbol table problem is a message, never a crash: a whole string. */
	CHECK(memchr(e.symproblem, '\0', sizeof e.symproblem) != NULL);
	if (e.symproblem[0])
		CHECK(strstr(e.symproblem, ".symtab") || strstr(e.symproblem, ".dynsym"));

	for (size_t i = 0; i < e.nsyms; i++) {
		const struct zt_sym *s = &e.syms[i];

		CHECK(s->size > 0);
		if (i > 0)
			CHECK(e.syms[i - 1].addr < s->addr);
		check_sym_name(s->name);
		lookup(s->addr);
		lookup(s->addr - 1);
		lookup(s->addr + s->size / 2);
		lookup(s->addr + s->size - 1);
		lookup(s->addr + s->size);
	}
	for (size_t i = 0; i < e.nplt; i++) {
		const struct zt_sym *s = &e.plt[i];

		if (i > 0)
			CHECK(e.plt[i - 1].addr <= s->addr);
		lookup_plt(s->addr);
		lookup_plt(s->addr - 1);
		lookup_plt(s->addr + s->size - 1);
		lookup_plt(s->addr + s->size);
	}
	if (e.debuglink)
		check_name(e.debuglink);
	for (size_t i = 0; i < e.nloads; i++) {
		const struct zt_load *l = &e.loads[i];

		offset(l->offset);
		offset(l->offset + l->filesz / 2);
		offset(l->offset + l->filesz - 1);
		offset(l->offset + l->filesz);
		lookup(l->vaddr);
		lookup(l->vaddr + l->memsz - 1);
	}
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		lookup(fixed[i]);
		lookup_plt(fixed[i]);
		offset(fixed[i]);
	}
	for (size_t i = 0; i < e.nsections; i++) {
		const struct zt_section *s = &e.sections[i], *found;

		check_name(s->name);
		found = zt_elf_section(&e, s->name);
		CHECK(found != NULL && strcmp(found->name, s->name) == 0);
		CHECK(found <= s);	/* the first section of that name */
		if (strncmp(s->name, ".plt", 4) == 0)
			for (uint64_t k = 0; k <= 16; k++)
				lookup_plt(s->addr + s->size / 16 * k);
	}
	text = zt_elf_section(&e, ".text");
	if (text) {
		CHECK(strcmp(text->name, ".text") == 0);
		for (uint64_t k = 0; k <= 16; k++)
			lookup(text->addr + text->size / 16 * k);
	}
	{
		struct zt_ehframe t;

		zt_ehframe_read(&e, &t);
		fdes = &t;
		CHECK(memchr(t.problem, '\0', sizeof t.problem) != NULL);
		CHECK(!t.problem[0] || !t.from_hdr);
		for (size_t i = 0; i < t.n; i++) {
			const struct zt_fde *f = &t.fdes[i];

			CHECK(f->size > 0 && f->start > 0);
			if (i > 0)
				CHECK(t.fdes[i - 1].start <= f->start);
			lookup_fde(f->start);
			lookup_fde(f->start - 1);
			lookup_fde(f->start + f->size - 1);
			lookup_fde(f->start + f->size);
		}
		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			lookup_fde(fixed[i]);
		zt_ehframe_free(&t);
		fdes = NULL;
	}
	zt_elf_close(&e);
	cur = NULL;
	return 0;
}
