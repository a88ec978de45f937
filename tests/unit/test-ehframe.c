/*
 * test-ehframe.c — FDE ranges (lib/ehframe.c) against readelf's: every FDE
 * of Debian's stripped liblzma and of libc, read through .eh_frame_hdr, is
 * one that `readelf --debug-dump=frames` lists with the same range, and a
 * copy whose .eh_frame_hdr is corrupt (unsorted, an entry outside
 * .eh_frame, a bad version) says so and gives the same FDEs by walking
 * .eh_frame.
 */
#include "unit.h"
#include "ehframe.h"
#include "elfread.h"

#include <inttypes.h>
#include <stdlib.h>

/* readelf's FDE ranges of path (size 0 ones dropped), sorted; their count. */
static size_t readelf_fdes(const char *path, struct zt_fde **out)
{
	char cmd[512], line[512];
	size_t n = 0, cap = 0;
	FILE *p;

	*out = NULL;
	snprintf(cmd, sizeof cmd,
		 "readelf --debug-dump=frames %s 2>/dev/null | sed -n 's/.* FDE .* pc=\\([0-9a-f]*\\)\\.\\.\\([0-9a-f]*\\)$/\\1 \\2/p' | sort",
		 path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof line, p)) {
		uint64_t lo, hi;

		if (sscanf(line, "%" SCNx64 " %" SCNx64, &lo, &hi) != 2 || hi <= lo)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			*out = realloc(*out, cap * sizeof **out);
		}
		(*out)[n].start = lo;
		(*out)[n].size = hi - lo;
		n++;
	}
	if (p)
		pclose(p);
	return n;
}

/* Every FDE of t is one of readelf's (a sorted list of hex strings sorts
 * as numbers only at one width: compare as sets). */
static int same_fdes(const struct zt_ehframe *t, const struct zt_fde *want, size_t nwant)
{
	if (t->n != nwant)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		int found = 0;

		for (size_t k = 0; k < nwant && !found; k++)
			found = want[k].start == t->fdes[i].start && want[k].size == t->fdes[i].size;
		if (!found)
			return 0;
	}
	return 1;
}

/* The file offset of e's section name, or 0. */
static uint64_t section_offset(const struct zt_elf *e, const char *name)
{
	const struct zt_section *s = zt_elf_section(e, name);

	return s ? s->offset : 0;
}

static void check_file(const char *path)
{
	struct zt_elf e, c;
	struct zt_ehframe t, w;
	struct zt_fde *want;
	size_t nwant = readelf_fdes(path, &want);
	char err[256];
	unsigned char *copy;
	uint64_t hdr;
	int32_t v;

	CHECK(nwant > 100);
	CHECK(zt_elf_open(path, &e, err, sizeof err) == 0);
	zt_ehframe_read(&e, &t);
	CHECK(t.from_hdr);
	CHECK_STR(t.problem, "");
	CHECK(same_fdes(&t, want, nwant));
	/* Each FDE holds its own start and last byte. */
	for (size_t i = 0; i < t.n; i++) {
		CHECK(zt_ehframe_lookup(&t, t.fdes[i].start) == &t.fdes[i]);
		CHECK(zt_ehframe_lookup(&t, t.fdes[i].start + t.fdes[i].size - 1) == &t.fdes[i]);
	}
	hdr = section_offset(&e, ".eh_frame_hdr");
	CHECK(hdr != 0);
	copy = malloc(e.size);
	/* Table entries 0 and 1 swapped: unsorted. */
	memcpy(copy, e.data, e.size);
	memcpy(copy + hdr + 12, e.data + hdr + 20, 8);
	memcpy(copy + hdr + 20, e.data + hdr + 12, 8);
	CHECK(zt_elf_parse(copy, e.size, &c, err, sizeof err) == 0);
	zt_ehframe_read(&c, &w);
	CHECK(!w.from_hdr);
	CHECK_STR(w.problem, "its table is not sorted (entry 1)");
	CHECK(same_fdes(&w, want, nwant));
	zt_ehframe_free(&w);
	zt_elf_close(&c);
	/* Entry 2's FDE pointer far outside .eh_frame. */
	memcpy(copy, e.data, e.size);
	v = 0x7fff0000;
	memcpy(copy + hdr + 12 + 2 * 8 + 4, &v, 4);
	CHECK(zt_elf_parse(copy, e.size, &c, err, sizeof err) == 0);
	zt_ehframe_read(&c, &w);
	CHECK_STR(w.problem, "entry 2 points outside .eh_frame");
	CHECK(same_fdes(&w, want, nwant));
	zt_ehframe_free(&w);
	zt_elf_close(&c);
	/* A version the reader does not know. */
	memcpy(copy, e.data, e.size);
	copy[hdr] = 2;
	CHECK(zt_elf_parse(copy, e.size, &c, err, sizeof err) == 0);
	zt_ehframe_read(&c, &w);
	CHECK_STR(w.problem, "version is not 1");
	CHECK(same_fdes(&w, want, nwant));
	zt_ehframe_free(&w);
	zt_elf_close(&c);
	free(copy);
	zt_ehframe_free(&t);
	zt_elf_close(&e);
	free(want);
}

UNIT_TEST(ehframe_fdes_agree_with_readelf_through_the_header_or_not)
{
	check_file("/usr/lib/x86_64-linux-gnu/liblzma.so.5");
	check_file("/usr/lib/x86_64-linux-gnu/libc.so.6");
}
