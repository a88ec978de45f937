/*
 * fuzz-raw.c — libFuzzer target for the raw-dump parser (lib/raw.c), through
 * the line reader (lib/input.c) and the maps (lib/maps.c) and stack index
 * (lib/hash.c) it builds on.
 *
 * Each input is written to a memfd and read with zt_raw_read; a dump that
 * parses is read again with zt_raw_read_summary, which must agree. A dump that parses is then
 * walked: every sampled address (and address - 1, as the symbolizer looks it
 * up) is found in the maps, and the answer is checked against a plain scan;
 * the vDSO's image is whole or dropped with a warning.
 *
 * The reader runs with a line limit taken from the input's last byte (8 to
 * 263 bytes, zt_input_set_max_line), so that lines over the limit come
 * often, beside corrupt, truncated and concatenated gzip and bytes after
 * gzip data, each of which ends the input with zt_input_error. Each
 * input is first read line by line: plain input must come back as the same
 * bytes, every line within the limit, and a refused line must really be
 * longer. Every input must then come back from the parser with 0 or -1.
 */
#define FUZZ_NAME "fuzz-raw"
#include "fuzz.h"
#include "input.h"
#include "maps.h"
#include "raw.h"
#include "rawfmt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The line limit this input is read with: from its last byte. */
static size_t limit_of(const uint8_t *data, size_t size)
{
	return 8 + (size ? data[size - 1] : 0);
}

static int is_gzip(const uint8_t *data, size_t size)
{
	return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

/* The line reader alone, against the bytes it was given. */
static void lines(const uint8_t *data, size_t size)
{
	struct zt_input *in = fuzz_input(data, size);
	size_t max = limit_of(data, size), pos = 0, len;
	int gz = is_gzip(data, size);
	const char *err;
	char *l;

	if (!in)
		return;
	zt_input_set_max_line(in, max);
	while ((l = zt_input_line(in, &len))) {
		CHECK(len <= max);
		CHECK(l[len] == '\0');
		if (gz)
			continue;
		CHECK(pos + len <= size && memcmp(data + pos, l, len) == 0);
		pos += len;
		CHECK(pos == size || data[pos] == '\n');
		pos += pos < size;
	}
	err = zt_input_error(in);
	if (err) {
		CHECK(strncmp(err, "<fuzz>: ", 8) == 0);
		CHECK(strstr(err, "<fd:") == NULL);
		/* Refused as too long: no '\n' within the limit, really. */
		if (!gz && strstr(err, "longer than"))
			CHECK(!memchr(data + pos, '\n', size - pos < max + 1 ? size - pos : max + 1));
	} else if (!gz) {
		CHECK(pos == size);
	}
	CHECK(zt_input_line(in, &len) == NULL);
	zt_input_close(in);
}

/* The last mapping in sorted order that holds addr, by a plain scan. */
static const struct zt_map *scan(const struct zt_map *maps, size_t n, uint64_t addr)
{
	const struct zt_map *found = NULL;

	for (size_t i = 0; i < n && maps[i].start <= addr; i++)
		if (addr < maps[i].end)
			found = &maps[i];
	return found;
}

static void find(const struct zt_raw *d, uint64_t addr)
{
	const struct zt_map *m = zt_maps_find(d->maps, d->nmaps, addr);
	const struct zt_map *want = scan(d->maps, d->nmaps, addr);

	/* The last mapping that holds addr, however many overlap (ranges.h). */
	CHECK(m == want);
	if (m) {
		CHECK(m->start <= addr && addr < m->end);
		CHECK(m->path != NULL);
		(void)zt_maps_basename(m->path);
		if (zt_maps_is_file(m))
			CHECK(m->path[0] == '/');
	}
}

/* The last mapping of snapshot s, in sorted order, that holds addr. */
static const struct zt_map *scan_snap(const struct zt_raw *d, size_t s, uint64_t addr)
{
	const struct zt_map *found = NULL;

	for (size_t i = 0; i < d->nmaps && d->maps[i].start <= addr; i++)
		if (d->maps[i].snap == s && addr < d->maps[i].end)
			found = &d->maps[i];
	return found;
}

/*
 * zt_raw_map_at for a stack's gen, against the rule by hand: the last
 * timed snapshot at or before the samples, else the next one (v4).
 */
static void find_gen(const struct zt_raw *d, uint64_t addr, uint32_t gen)
{
	const struct zt_map *m = zt_raw_map_at(d, addr, gen), *want = NULL;

	if (gen == ZT_RAW_GEN_ANY || d->nbytime < 2) {
		CHECK(m == scan(d->maps, d->nmaps, addr));
		return;
	}
	CHECK(gen <= d->nbytime);
	if (gen > 0)
		want = scan_snap(d, d->bytime[gen - 1], addr);
	if (!want && gen < d->nbytime)
		want = scan_snap(d, d->bytime[gen], addr);
	CHECK(m == want);
}

/* The JIT symbol that holds addr, by a plain scan: the last in order. */
static void find_jit(const struct zt_raw *d, uint64_t addr)
{
	const struct zt_jitsym *j = zt_raw_jit_at(d, addr), *want = NULL;

	for (size_t i = 0; i < d->njit && d->jit[i].start <= addr; i++)
		if (addr < d->jit[i].end)
			want = &d->jit[i];
	CHECK(j == want);
	if (j)
		CHECK(j->name && j->name[0]);
}

static void walk(const struct zt_raw *d)
{
	uint64_t sum = 0, wsum = 0, bsum[3] = { 0 }, osum[3] = { 0 }, bwsum[3] = { 0 };
	unsigned __int128 all = 0, tsum;

	CHECK(d->version >= 1 && d->version <= ZT_RAW_VERSION_MAX);
	for (size_t i = 1; i < d->nbytime; i++)
		CHECK(d->snaps[d->bytime[i - 1]].ns <= d->snaps[d->bytime[i]].ns);
	for (size_t i = 0; i < d->njit; i++) {
		CHECK(d->jit[i].start < d->jit[i].end);
		find_jit(d, d->jit[i].start);
		find_jit(d, d->jit[i].end - 1);
		find_jit(d, d->jit[i].end);
	}
	CHECK(d->hz <= 10000);
	for (size_t i = 1; i < d->nmaps; i++)
		CHECK(d->maps[i - 1].start <= d->maps[i].start);
	for (size_t i = 0; i < d->nmaps; i++) {
		const struct zt_map *m = &d->maps[i];

		CHECK(m->start < m->end);
		find(d, m->start);
		find(d, m->end - 1);
		find(d, m->end);
		if (m->buildid)
			CHECK(strlen(m->buildid) <= 128);
	}
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct zt_stack *s = &d->stacks[i];

		CHECK(s->naddr > 0 && s->count > 0);
		CHECK(s->partial == 0 || (s->partial == 1 && d->version >= 3));
		CHECK(s->first + s->naddr <= d->naddr);
		CHECK(s->alloc >= ZT_ALLOC_NONE && s->alloc < ZT_ALLOC_KINDS);
		if (s->alloc) {
			/* v6: a bytes stack weighs its size a sample at least, an
			   objects stack one object; the kind's sums are the dump's. */
			int kind = (s->alloc - 1) / 2, objects = (s->alloc - 1) % 2;

			CHECK(d->version >= 6 && s->size >= 1 && s->wait == 0);
			CHECK(objects ? s->weight >= s->count : s->weight / s->size >= s->count);
			if (objects)
				osum[kind] += s->count;
			else
				bsum[kind] += s->count, bwsum[kind] += s->weight;
			continue;
		}
		CHECK(s->size == 0);
		sum += s->count;
		wsum += s->weight;
		/* v5: a weight of at least 1 ns per sample; a wait of 1 to 64 bytes. */
		CHECK(d->version >= 5 ? s->weight >= s->count : s->weight == 0);
		CHECK(s->wait == 0 || (d->version >= 5 && s->wait <= d->nwaits));
		if (s->wait) {
			size_t wl = strlen(zt_raw_wait(d, s));

			CHECK(wl >= 1 && wl <= 64);
		}
		(void)zt_raw_thread_name(d, s->tid);
		for (uint32_t j = 0; j < s->naddr; j++) {
			uint64_t a = d->addr[s->first + j];

			CHECK(d->exact[s->first + j] <= 1);
			find(d, a);
			find_gen(d, a, s->gen);
			find_jit(d, a);
			if (!d->exact[s->first + j] && a > 0)
				find(d, a - 1);
		}
	}
	CHECK(sum == d->nsamples);
	CHECK(wsum == d->weight);
	CHECK(d->version >= 5 || (d->nwaits == 0 && !d->wall));
	for (int k = 0; k < 3; k++) {
		CHECK(bsum[k] == d->alloc_lines[k] && osum[k] == d->alloc_lines[k]);
		CHECK(bwsum[k] == d->alloc_weighed[k]);
		CHECK(d->alloc_sized[k] <= d->alloc_weighed[k]);
		all += d->alloc_lines[k];
	}
	CHECK(d->version >= 6 || (!zt_raw_has_alloc(d) && !d->alloc_rate));
	/* Timed lines and the rest add up to the same samples (version 3);
	   an allocation line is two timed lines, its bytes' and objects'. */
	all += d->nsamples;
	tsum = d->nuntimed;
	for (size_t i = 0; i < d->ntimed; i++) {
		const struct zt_stack *s;

		CHECK(d->timed[i].stack < d->nstacks);
		s = &d->stacks[d->timed[i].stack];
		if (!s->alloc || (s->alloc - 1) % 2 == 0)
			tsum += d->timed[i].count;
		CHECK(d->timed[i].weight <= s->weight);
	}
	CHECK(d->ntimed == 0 || all > UINT64_MAX || tsum == all);
	for (size_t i = 0; i < d->nbuildids; i++)
		find(d, d->buildids[i].addr);
	/* The vDSO's image: whole (every byte read), or dropped with a warning
	   that names its place. */
	if (d->vdso) {
		unsigned sum8 = 0;

		CHECK(d->version >= 4 && !d->vdso_problem && d->vdso_where);
		CHECK(d->vdso_size >= 1 && d->vdso_size <= ZT_RAW_VDSO_MAX);
		for (size_t i = 0; i < d->vdso_size; i++)
			sum8 += d->vdso[i];
		(void)sum8;
	}
	if (d->vdso_problem)
		CHECK(strstr(d->vdso_problem, ZT_RAW_VDSO ": ") != NULL && !d->vdso);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_raw full, summary;
	struct zt_input *in;
	char err[256], err2[256];
	int rc, rc2;

	lines(data, size);
	memset(&full, 0, sizeof full);
	if (!(in = fuzz_input(data, size)))
		return 0;
	zt_input_set_max_line(in, limit_of(data, size));
	err[0] = '\0';
	rc = zt_raw_read(in, &full, err, sizeof err);
	zt_input_close(in);
	CHECK(rc == 0 || rc == -1);
	if (rc < 0)
		CHECK(err[0] != '\0');
	else
		walk(&full);

	/* Only a dump that parsed is read again: most inputs fail. */
	memset(&summary, 0, sizeof summary);
	if (rc == 0 && (in = fuzz_input(data, size))) {
		zt_input_set_max_line(in, limit_of(data, size));
		err2[0] = '\0';
		rc2 = zt_raw_read_summary(in, &summary, err2, sizeof err2);
		zt_input_close(in);
		CHECK(rc2 == 0);
		CHECK(summary.nsamples == full.nsamples);
		CHECK(summary.nstacks == 0);
		CHECK(summary.nmaps == full.nmaps);
		CHECK(summary.weight == full.weight && summary.nwaits == full.nwaits);
		CHECK(memcmp(summary.alloc_lines, full.alloc_lines, sizeof full.alloc_lines) == 0 &&
		      memcmp(summary.alloc_sized, full.alloc_sized, sizeof full.alloc_sized) == 0 &&
		      memcmp(summary.alloc_weighed, full.alloc_weighed,
			     sizeof full.alloc_weighed) == 0);
		CHECK(summary.alloc_rate == full.alloc_rate &&
		      summary.have_alloc_summary == full.have_alloc_summary);
		CHECK(summary.wall == full.wall);
		CHECK(summary.vdso_size == full.vdso_size && !summary.vdso == !full.vdso &&
		      !summary.vdso_problem == !full.vdso_problem);
		zt_raw_free(&summary);
	}
	zt_raw_free(&full);
	return 0;
}
