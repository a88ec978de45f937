/*
 * cfidump — print the unwind rows collect/cfi.c compiles from an ELF
 * file's .eh_frame, one line per row, at link-time addresses.
 */
#include "cfi.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kinds[] = { "none", "rsp", "rbp", "plt", "signal", "end", "bad", "rbx" };

static int fail(const char *path, const char *what)
{
	fprintf(stderr, "cfidump: '%s': %s\n", path, what);
	return 1;
}

int main(int argc, char **argv)
{
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph, *frame = NULL, *load = NULL;
	struct zt_cfi_image img;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	struct stat sb;
	const unsigned char *m;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: cfidump FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &sb) < 0)
		return fail(argv[1], "cannot open");
	if ((size_t)sb.st_size < sizeof *eh)
		return fail(argv[1], "not an ELF file");
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return fail(argv[1], "cannot map");
	close(fd);
	eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof *ph || eh->e_phoff > (uint64_t)sb.st_size ||
	    eh->e_phnum > ((uint64_t)sb.st_size - eh->e_phoff) / sizeof *ph)
		return fail(argv[1], "not a 64-bit ELF file");
	ph = (const Elf64_Phdr *)(m + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			frame = &ph[i];
	if (!frame)
		return fail(argv[1], "no PT_GNU_EH_FRAME");
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr <= frame->p_vaddr &&
		    frame->p_vaddr - ph[i].p_vaddr < ph[i].p_filesz)
			load = &ph[i];
	if (!load || load->p_offset > (uint64_t)sb.st_size ||
	    load->p_filesz > (uint64_t)sb.st_size - load->p_offset)
		return fail(argv[1], "no PT_LOAD holds .eh_frame_hdr");
	img.ntext = 0;
	for (int i = 0; i < eh->e_phnum && img.ntext < ZT_CFI_MAX_TEXT; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			img.text[img.ntext].lo = ph[i].p_vaddr;
			img.text[img.ntext].hi = ph[i].p_vaddr + ph[i].p_memsz;
			img.ntext++;
		}
	img.mem = m + load->p_offset;
	img.len = load->p_filesz;
	img.addr = load->p_vaddr;
	img.hdr = frame->p_vaddr;
	t = zt_cfi_build(&img, &st);
	printf("# fdes %u skipped %u bad_rows %u rows %u\n", st.fdes, st.skipped, st.bad_rows,
	       t ? t->nrows : 0);
	for (uint32_t i = 0; t && i < t->nrows; i++) {
		const struct zt_cfi_row *r = &t->rows[i];

		printf("%016lx %s", (unsigned long)(t->lo + r->start), kinds[r->kind]);
		if (r->kind == ZT_CFA_SP || r->kind == ZT_CFA_FP || r->kind == ZT_CFA_PLT ||
		    r->kind == ZT_CFA_X)
			printf("%+d", r->cfa_off);
		if (r->kind == ZT_CFA_PLT)
			printf(" plt>=%d", r->arg);
		if (r->kind == ZT_CFA_SP || r->kind == ZT_CFA_FP || r->kind == ZT_CFA_PLT ||
		    r->kind == ZT_CFA_X)
			printf(" rbp=%s", r->fp == ZT_REG_SAME ? "same" :
			       r->fp == ZT_REG_LOST ? "lost" : "c");
		if (r->fp == ZT_REG_SAVED && r->kind != ZT_CFA_PLT)
			printf("%+d", r->arg);
		putchar('\n');
	}
	zt_cfi_free(t);
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail("<stdout>", "write error");
	return 0;
}
