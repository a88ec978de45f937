/*
 * patchfde — copy an ELF file, with the .eh_frame FDE of the function at
 * ADDR claiming LEN bytes instead of its own size: a corrupt unwind table
 * for the collector's tests (samples/libfdelib.so, tests/0168).
 *
 *   patchfde IN OUT ADDR LEN     (ADDR and LEN in hex)
 *
 * Only FDEs of a "zR" CIE with pc-relative 4-byte pointers (what gcc and
 * ld write on x86-64) are understood.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *buf;
static size_t size;

static void die(const char *what)
{
	fprintf(stderr, "patchfde: %s\n", what);
	exit(1);
}

static uint32_t get32(size_t at)
{
	uint32_t v;

	if (at + 4 > size)
		die("record past the end of the file");
	memcpy(&v, buf + at, 4);
	return v;
}

/* Whether the CIE at off is "zR" with encoding pcrel|sdata4 (0x1b). */
static int cie_ok(size_t off)
{
	const char *aug = (const char *)buf + off + 9;
	size_t p = off + 9 + strlen(aug) + 1;

	if (strcmp(aug, "zR") != 0)
		return 0;
	while (buf[p++] & 0x80)	/* code alignment */
		;
	while (buf[p++] & 0x80)	/* data alignment */
		;
	p++;			/* return address column (version 1) */
	p++;			/* augmentation length */
	return buf[p] == 0x1b;
}

int main(int argc, char **argv)
{
	FILE *f;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *names, *eh_frame = NULL;
	unsigned long addr, len;
	long n;
	int patched = 0;

	if (argc != 5)
		die("usage: patchfde IN OUT ADDR LEN");
	addr = strtoul(argv[3], NULL, 16);
	len = strtoul(argv[4], NULL, 16);
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 64)
		die("cannot read IN");
	size = (size_t)n;
	buf = malloc(size);
	rewind(f);
	if (!buf || fread(buf, 1, size, f) != size)
		die("cannot read IN");
	fclose(f);
	eh = (const Elf64_Ehdr *)buf;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff + (size_t)eh->e_shnum *
	    sizeof *sh > size || eh->e_shstrndx >= eh->e_shnum)
		die("not a 64-bit ELF file with sections");
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	for (int i = 0; i < eh->e_shnum; i++)
		if (names->sh_offset + sh[i].sh_name < size &&
		    strcmp((const char *)buf + names->sh_offset + sh[i].sh_name, ".eh_frame") == 0)
			eh_frame = &sh[i];
	if (!eh_frame || eh_frame->sh_offset + eh_frame->sh_size > size)
		die("no .eh_frame");
	for (size_t p = eh_frame->sh_offset; p + 8 <= eh_frame->sh_offset + eh_frame->sh_size;) {
		uint32_t rlen = get32(p), id = get32(p + 4);

		if (rlen == 0 || rlen == 0xffffffff)
			break;
		if (id != 0 && cie_ok(p + 4 - id)) {
			size_t field = p + 8;
			int32_t rel = (int32_t)get32(field);
			unsigned long begin = eh_frame->sh_addr + (field - eh_frame->sh_offset) +
					      (unsigned long)(long)rel;

			if (begin == addr) {
				uint32_t v = (uint32_t)len;

				memcpy(buf + field + 4, &v, 4);
				patched++;
			}
		}
		p += 4 + (size_t)rlen;
	}
	if (patched != 1)
		die("no FDE (or more than one) starts at ADDR");
	if (!(f = fopen(argv[2], "wb")) || fwrite(buf, 1, size, f) != size || fclose(f) != 0)
		die("cannot write OUT");
	return 0;
}
