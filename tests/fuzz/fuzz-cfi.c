/*
 * fuzz-cfi.c — libFuzzer target for the CFI compiler (collect/cfi.c).
 *
 * The input is a 4-byte little-endian offset of .eh_frame_hdr, then the
 * image: the bytes zt_cfi_build reads as a loaded object's read-only
 * segment, placed at run-time address IMAGE_ADDR (the offset is taken modulo
 * the image's length). Seeds (corpus-cfi/) are .eh_frame_hdr and .eh_frame
 * cut from real objects, so the walk starts deep.
 *
 * A table that is built is checked: rows strictly sorted, inside [lo, hi),
 * the last one a NONE row at hi, every kind and rbp rule a known one, the
 * stats consistent. zt_cfi_row_at is asked about every row's first and last
 * pc, the pcs around lo and hi, and pseudo-random pcs, and each answer is
 * checked against the rows (the random ones by a plain scan); zt_cfi_find
 * is asked the same through a set of one table. Then a lazy table is made of
 * the same image (its code said to be the 128 KiB around it) and asked about
 * every search-table entry's pc and its neighbours and pseudo-random pcs,
 * each twice: a row of a known kind, the same again from the cache. A
 * failed check calls abort().
 */
#define FUZZ_NAME "fuzz-cfi"
#include "fuzz.h"
#include "cfi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IMAGE_ADDR = 0x10000000 };

#define REQUIRE(x) do { if (!(x)) { \
	fprintf(stderr, "fuzz-cfi: check failed: %s (line %d)\n", #x, __LINE__); \
	abort(); } } while (0)

/* The row for pc by a plain scan, or NULL. */
static const struct zt_cfi_row *scan(const struct zt_cfi_table *t, uintptr_t pc)
{
	const struct zt_cfi_row *r = NULL;

	if (pc < t->lo || pc >= t->hi)
		return NULL;
	for (uint32_t i = 0; i < t->nrows && t->rows[i].start <= pc - t->lo; i++)
		r = &t->rows[i];
	return r && r->kind != ZT_CFA_NONE ? r : NULL;
}

static void ask(const struct zt_cfi_table *t, const struct zt_cfi_set *set, uintptr_t pc)
{
	const struct zt_cfi_row *r = zt_cfi_row_at(t, pc);

	REQUIRE(r == scan(t, pc));
	REQUIRE(zt_cfi_find(set, pc) == (pc >= t->lo && pc < t->hi ? t : NULL));
}

static void check(const struct zt_cfi_table *t, const struct zt_cfi_stats *st,
		  const struct zt_cfi_image *img)
{
	struct zt_cfi_set *one = malloc(sizeof *one + sizeof one->t[0]);
	uint64_t x = t->nrows * 0x9e3779b97f4a7c15ull;
	uint32_t bad = 0;

	REQUIRE(one);
	one->n = 1;
	one->size = 0;
	one->t[0] = (struct zt_cfi_table *)t;
	REQUIRE(t->nrows >= 2 && t->lo < t->hi && t->hi - t->lo <= UINT32_MAX);
	REQUIRE(t->key == img->hdr && st->fdes > 0);
	REQUIRE(t->size >= sizeof *t + t->nrows * sizeof *t->rows);
	REQUIRE(t->rows[t->nrows - 1].kind == ZT_CFA_NONE);
	REQUIRE(t->rows[t->nrows - 1].start == t->hi - t->lo);
	for (uint32_t i = 0; i < t->nrows; i++) {
		const struct zt_cfi_row *r = &t->rows[i];

		REQUIRE(r->kind <= ZT_CFA_X && r->fp <= ZT_REG_LOST && r->x <= ZT_REG_LOST);
		REQUIRE(i == 0 || r->start > t->rows[i - 1].start);
		if (i > 0)	/* equal neighbours are merged */
			REQUIRE(memcmp(&r->cfa_off, &t->rows[i - 1].cfa_off,
				       sizeof *r - sizeof r->start) != 0);
		if (r->kind == ZT_CFA_BAD)
			bad++;
		if (r->kind == ZT_CFA_PLT)
			REQUIRE(r->arg >= 0 && r->arg < 32 && r->fp != ZT_REG_SAVED);
		/* Each row's first pc, and the last pc of the one before it. */
		REQUIRE(zt_cfi_row_at(t, t->lo + r->start) ==
			(r->kind == ZT_CFA_NONE || i == t->nrows - 1 ? NULL : r));
		REQUIRE(zt_cfi_row_at(t, t->lo + r->start - 1) ==
			(i == 0 || r[-1].kind == ZT_CFA_NONE ? NULL : r - 1));
	}
	REQUIRE(bad <= st->bad_rows);
	ask(t, one, t->lo - 1);
	ask(t, one, t->hi);
	ask(t, one, t->hi - 1);
	ask(t, one, 0);
	ask(t, one, UINTPTR_MAX);
	for (int i = 0; i < 64; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ask(t, one, t->lo + (x >> 33) % (t->hi - t->lo + 2));
	}
	free(one);
}

/* The lazy table's answer at pc, twice: a known kind, the second from the cache. */
static void ask_lazy(const struct zt_cfi_table *t, uintptr_t pc)
{
	struct zt_cfi_row a, b;
	int have = zt_cfi_lookup(t, pc, 1, &a);

	REQUIRE(zt_cfi_lookup(t, pc, 0, &b) == have);
	if (!have)
		return;
	REQUIRE(a.kind != ZT_CFA_NONE && a.kind <= ZT_CFA_X && a.fp <= ZT_REG_LOST &&
		a.x <= ZT_REG_LOST);
	REQUIRE(memcmp(&a.cfa_off, &b.cfa_off, sizeof a - sizeof a.start) == 0);
}

static void check_lazy(const struct zt_cfi_image *img)
{
	struct zt_cfi_image code = *img;
	struct zt_cfi_table *t;
	uint64_t x = img->len * 0x9e3779b97f4a7c15ull, rejected = 0;

	code.ntext = 1;
	code.text[0].lo = IMAGE_ADDR - 0x10000;
	code.text[0].hi = IMAGE_ADDR + 0x10000;
	if (!(t = zt_cfi_lazy(&code, 1)))
		return;
	t->nrejected = &rejected;
	REQUIRE(t->lazy && t->lo == code.text[0].lo && t->hi == code.text[0].hi);
	for (uint32_t i = 0; i < t->nfdes && i < 256; i++) {
		int32_t v;

		memcpy(&v, t->search + 8 * (size_t)i, sizeof v);
		ask_lazy(t, img->hdr + (uintptr_t)(intptr_t)v);
		ask_lazy(t, img->hdr + (uintptr_t)(intptr_t)v + 1);
		ask_lazy(t, img->hdr + (uintptr_t)(intptr_t)v - 1);
	}
	for (int i = 0; i < 64; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ask_lazy(t, t->lo + (x >> 33) % (t->hi - t->lo + 2));
	}
	zt_cfi_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_cfi_image img;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	unsigned char *copy;
	uint32_t off;

	if (size < 5)
		return 0;
	off = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	      (uint32_t)data[3] << 24;
	size -= 4;
	/* An exact-size copy, so that ASan sees any read past the image. */
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 4, size);
	img.ntext = 0;
	img.mem = copy;
	img.len = size;
	img.addr = IMAGE_ADDR;
	img.hdr = IMAGE_ADDR + off % size;
	t = zt_cfi_build(&img, &st);
	if (t) {
		check(t, &st, &img);
		zt_cfi_free(t);
	}
	check_lazy(&img);
	free(copy);
	return 0;
}
