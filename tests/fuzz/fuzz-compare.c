/*
 * fuzz-compare.c — libFuzzer target for zt-diff --report's model
 * (lib/compare.c, lib/significance.c, lib/weight.c): the input is split into
 * runs at lines "--" (at most 8), the first half of them before and the rest
 * after, each read as zt-diff reads a folded file (a `# zt weight:` line,
 * counts up to 2^64 - 1, totals refused past it, periods divided out), then
 * compared and every row worked out and checked. Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-compare tests/fuzz/corpus-compare
 * The input's first byte picks the false discovery rate.
 */
#define FUZZ_NAME "fuzz-compare"
#include "fuzz.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "folded.h"
#include "weight.h"

#define MAXRUNS 8

static void check_test(const struct zt_compare *c, const struct zt_compare_test *t)
{
	for (int i = 0; i < 2; i++) {
		CHECK(t->k[i] <= c->samples[i]);
		CHECK(t->share[i] >= 0 && t->share[i] <= 1);
	}
	CHECK(t->p >= 0 && t->p <= 1);
	CHECK(t->phi >= 1);
	CHECK(!(t->lo > t->hi));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_weight w[MAXRUNS];
	int side[MAXRUNS];
	size_t runs = 1, i = 0, j = 0;
	struct zt_compare_runs *m;
	struct zt_compare *c;
	double q = 0.01 + 0.9 * (size ? data[0] : 0) / 255.0;
	int ok = 1;

	/* How many runs: one more than the "--" lines. */
	for (size_t k = 0; k + 1 < size; k++)
		if ((k == 0 || data[k - 1] == '\n') && data[k] == '-' && data[k + 1] == '-' &&
		    (k + 2 == size || data[k + 2] == '\n') && runs < MAXRUNS)
			runs++;
	if (runs < 2)
		return 0;
	for (size_t r = 0; r < runs; r++)
		side[r] = r >= runs / 2;
	memset(w, 0, sizeof w);
	m = zt_compare_runs_new(side, runs);
	while (i < size && ok) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i, sl;
		char *line = malloc(len ? len : 1);
		uint64_t count;

		memcpy(line, data + i, len);
		i += len + 1;
		if (len == 2 && line[0] == '-' && line[1] == '-' && j + 1 < runs) {
			j++;
		} else if (len && line[0] == '#') {
			ok = zt_weight_comment(&w[j], line, len) == NULL;
		} else if (!zt_folded_parse(line, len, &sl, &count)) {
			ok = zt_compare_runs_add(m, j, line, sl, count) == 0;
			zt_weight_count(&w[j], count);
		} else {
			ok = 0;
		}
		free(line);
	}
	for (size_t r = 0; r < runs && ok; r++) {
		uint64_t div, before = zt_compare_runs_samples(m, r);

		if (zt_weight_samples(&w[r], &div)) {
			ok = 0;
			break;
		}
		zt_compare_runs_divide(m, r, div);
		CHECK(zt_compare_runs_samples(m, r) == before / (div ? div : 1));
		ok = zt_compare_runs_samples(m, r) > 0;
	}
	if (ok && j + 1 == runs) {
		struct zt_compare_row row, prev;

		c = zt_compare(m, q);
		CHECK(c->rejections <= c->ntests);
		CHECK(c->ntests <= 2 * c->nrows);
		CHECK(c->level > 0 && c->level <= 1);
		CHECK(c->runs[0] + c->runs[1] == runs);
		for (size_t k = 0; k < c->nrows; k++) {
			zt_compare_row(c, k, &row);
			check_test(c, &row.self);
			check_test(c, &row.total);
			for (int s = 0; s < 2; s++)
				CHECK(row.self.k[s] <= row.total.k[s]);
			CHECK(row.significant == (row.self.rejected || row.total.rejected));
			/* The report's order: significant first, then the larger change. */
			if (k > 0) {
				CHECK(prev.significant >= row.significant);
				CHECK(prev.significant != row.significant ||
				      fabs(prev.change) >= fabs(row.change));
			}
			prev = row;
		}
		zt_compare_free(c);
	}
	zt_compare_runs_free(m);
	return 0;
}
