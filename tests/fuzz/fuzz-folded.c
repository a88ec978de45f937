/*
 * fuzz-folded.c — libFuzzer target for the folded-stack reader behind
 * zt-stat and zt-diff (lib/folded.c, lib/profile.c, the -s address
 * stripping of lib/foldedsort.c), with weight declarations (lib/weight.c),
 * a filter (lib/filter.c) and caller edges. Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-folded tests/fuzz/corpus-folded
 * Each line is copied to a buffer of its exact size, so AddressSanitizer
 * sees any read past its end.
 */
#define FUZZ_NAME "fuzz-folded"
#include "fuzz.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "foldedsort.h"
#include "profile.h"
#include "weight.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_profile *p = zt_profile_new();
	struct zt_filter *f = zt_filter_new(zt_profile_name_fn, p);
	struct zt_weight w = { 0 };
	size_t i = 0, ne;
	uint32_t n;
	uint32_t *ids;
	uint64_t div;
	char err[128];

	zt_filter_set(f, ZT_IGNORE, "^z", err, sizeof err);
	zt_filter_set(f, ZT_HIDE, "^h|;", err, sizeof err);
	zt_profile_set_filter(p, f);
	zt_profile_track_edges(p);

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = malloc(len ? len : 1);
		char *stripped;
		size_t sl, k;
		uint64_t count;

		memcpy(line, data + i, len);
		if (len && line[0] == '#')
			zt_weight_comment(&w, line, len);
		else if (!zt_folded_parse(line, len, &sl, &count)) {
			zt_weight_count(&w, count);
			stripped = malloc(sl * 2 + 8);
			k = zt_foldedsort_strip_hex(line, sl, stripped);
			if (k > sl * 2 + 8)
				abort();
			if (zt_profile_samples(p) <= UINT64_MAX - count)
				zt_profile_add_folded(p, stripped, k, count);
			free(stripped);
		}
		free(line);
		i += len + 1;
	}
	if (!zt_weight_samples(&w, &div) && div > 1)
		zt_profile_divide(p, div);
	if (zt_profile_kept(p) > zt_profile_samples(p))
		abort();
	ids = zt_profile_sorted_by(p, &n, size & 1);
	for (uint32_t j = 0; j < n; j++) {
		struct zt_edge *e;

		if (zt_profile_self(p, ids[j]) > zt_profile_total(p, ids[j]))
			abort();
		e = zt_profile_edges(p, ids[j], 1, &ne);
		for (size_t k = 0; k < ne; k++)
			if (e[k].count > zt_profile_total(p, ids[j]))
				abort();
		free(e);
	}
	free(ids);
	zt_filter_free(f);
	zt_profile_free(p);
	return 0;
}
