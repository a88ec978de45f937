/*
 * cfidump — print the unwind rows collect/cfi.c compiles from an ELF
 * file's .eh_frame, one line per row, at link-time addresses.
 *
 * cfidump --lazy FILE instead checks a lazy table (zt_cfi_lookup, which
 * interprets one FDE per pc) against the compiled rows at each row's first
 * and last pc and one in the middle, and prints "lazy checked N differ M
 * cached M" and the first differences; it fails when any differ or the
 * file has no search table.
 *
 * cfidump --replay FILE times lookups for tests/bench/cfi-start.sh: stdin
 * has one sampled stack a line, the link-time pcs of its frames in FILE
 * (return addresses less one), as hex. It prints "samples N lookups N
 * misses N compiled-ns N lazy-ns N": the misses a lazy table with an empty
 * cache met, and the thread CPU time of all the lookups, in the order
 * given, from the compiled rows (the least of 5 passes) and from a lazy
 * table that starts empty (the least of 5, each with a new table).
 */
#include "cfi.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kinds[] = { "none", "rsp", "rbp", "plt", "signal", "end", "bad", "rbx" };

static int fail(const char *path, const char *what)
{
	fprintf(stderr, "cfidump: '%s': %s\n", path, what);
	return 1;
}

static int same(const struct zt_cfi_row *a, const struct zt_cfi_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->arg == b->arg &&
	       a->fp == b->fp && a->x == b->x && a->x_off == b->x_off;
}

/* One pc, looked up twice in the lazy table (the second from its cache). */
static int check(const struct zt_cfi_table *t, const struct zt_cfi_table *lazy, uintptr_t pc,
		 unsigned long *differ, unsigned long *cached)
{
	const struct zt_cfi_row *want = zt_cfi_row_at(t, pc);
	struct zt_cfi_row got, again;
	int have = zt_cfi_lookup(lazy, pc, 1, &got);

	if (zt_cfi_lookup(lazy, pc, 0, &again) == have && (!have || same(&got, &again)))
		++*cached;
	if (have == (want != NULL) && (!have || same(&got, want)))
		return 1;
	if (++*differ <= 10)
		printf("differ at %016lx: compiled %d %+d, lazy %d %+d\n", (unsigned long)pc,
		       want ? want->kind : -1, want ? want->cfa_off : 0, have ? got.kind : -1,
		       have ? got.cfa_off : 0);
	return 0;
}

static int64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int replay(const char *path, const struct zt_cfi_image *img, const struct zt_cfi_table *t)
{
	uintptr_t *pc = NULL;
	size_t n = 0, cap = 0, samples = 0, misses = 0;
	int64_t best[2] = { INT64_MAX, INT64_MAX };
	char line[65536];
	volatile int sink = 0;

	if (!t)
		return fail(path, "no CFI");
	while (fgets(line, sizeof line, stdin)) {
		char *p = line, *e;

		samples++;
		for (;;) {
			unsigned long v = strtoul(p, &e, 16);

			if (e == p)
				break;
			if (n == cap && !(pc = realloc(pc, (cap = cap ? 2 * cap : 4096) * sizeof *pc)))
				return fail(path, "out of memory");
			pc[n++] = v;
			p = e;
		}
	}
	for (int pass = 0; pass < 5; pass++) {
		struct zt_cfi_table *lazy = zt_cfi_lazy(img, 1);
		struct zt_cfi_row row;
		int64_t t0;

		if (!lazy)
			return fail(path, "no search table in .eh_frame_hdr");
		t0 = thread_ns();
		for (size_t i = 0; i < n; i++)
			sink += zt_cfi_row_at(t, pc[i]) != NULL;
		if (thread_ns() - t0 < best[0])
			best[0] = thread_ns() - t0;
		t0 = thread_ns();
		for (size_t i = 0; i < n; i++)
			sink += zt_cfi_lookup(lazy, pc[i], 1, &row);
		if (thread_ns() - t0 < best[1])
			best[1] = thread_ns() - t0;
		zt_cfi_free(lazy);
	}
	{
		struct zt_cfi_table *lazy = zt_cfi_lazy(img, 1);
		struct zt_cfi_row row;

		for (size_t i = 0; i < n; i++)
			if (!zt_cfi_lookup(lazy, pc[i], 0, &row) &&
			    (zt_cfi_lookup(lazy, pc[i], 1, &row), 1))
				misses++;
		zt_cfi_free(lazy);
	}
	printf("samples %zu lookups %zu misses %zu compiled-ns %lld lazy-ns %lld\n", samples, n,
	       misses, (long long)best[0], (long long)best[1]);
	free(pc);
	return 0;
}

static int check_lazy(const char *path, const struct zt_cfi_image *img, const struct zt_cfi_table *t)
{
	struct zt_cfi_table *lazy = zt_cfi_lazy(img, 1);
	unsigned long n = 0, differ = 0, cached = 0;

	if (!lazy)
		return fail(path, "no search table in .eh_frame_hdr");
	for (uint32_t i = 0; t && i < t->nrows; i++) {
		uintptr_t a = t->lo + t->rows[i].start;
		uintptr_t b = i + 1 < t->nrows ? t->lo + t->rows[i + 1].start : t->hi;

		n += 3;
		check(t, lazy, a, &differ, &cached);
		check(t, lazy, a + (b - a) / 2, &differ, &cached);
		check(t, lazy, b - 1, &differ, &cached);
	}
	printf("lazy checked %lu differ %lu cached %lu\n", n, differ, cached);
	zt_cfi_free(lazy);
	return differ != 0 || n == 0;
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

	int lazy = argc == 3 && strcmp(argv[1], "--lazy") == 0;
	int replaying = argc == 3 && strcmp(argv[1], "--replay") == 0;

	if (lazy || replaying) {
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: cfidump [--lazy | --replay] FILE\n");
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
	if (lazy || replaying) {
		int rc = lazy ? check_lazy(argv[1], &img, t) : replay(argv[1], &img, t);

		zt_cfi_free(t);
		return rc;
	}
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
