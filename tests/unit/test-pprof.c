/*
 * test-pprof.c — lib/pprof.c's merge of several inputs' profiles, as
 * pprof's own merge does: what is the same is one entry, values added.
 */
#include "unit.h"
#include "pprof.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t s(struct zt_pprof *p, const char *v)
{
	return zt_strtab_intern(p->strtab, v, strlen(v), NULL);
}

/* A profile of folded stacks: stacks[i] counted counts[i] times. */
static struct zt_pprof *folded(const char *const *stacks, const uint64_t *counts, size_t n)
{
	struct zt_pprof_folded *f = zt_pprof_folded_new("the same note");

	for (size_t i = 0; i < n; i++)
		zt_pprof_folded_add(f, stacks[i], strlen(stacks[i]), counts[i]);
	return zt_pprof_folded_end(f, 1);
}

/*
 * One process's profile: the library build-id loaded at start, one sample
 * of value v at start + 0x10 in function f.
 */
static struct zt_pprof *process(uint64_t start, const char *buildid, int64_t v)
{
	struct zt_pprof *p = zt_calloc(1, sizeof *p);

	p->strtab = zt_strtab_new();
	s(p, "");
	p->sample_type[0][0] = s(p, "samples");
	p->sample_type[0][1] = s(p, "count");
	p->nsample_types = 1;
	p->mappings = zt_calloc(1, sizeof *p->mappings);
	p->mappings[0] = (struct zt_pprof_mapping){ .id = 1, .start = start,
		.limit = start + 0x2345, .file = s(p, "/lib/libx.so"), .build_id = s(p, buildid),
		.has_functions = 1 };
	p->nmappings = 1;
	zt_grow(&p->functions, &p->capfunctions, 1, sizeof *p->functions);
	p->functions[p->nfunctions++] = (struct zt_pprof_function){ .id = 1, .name = s(p, "f") };
	zt_grow(&p->lines, &p->caplines, 1, sizeof *p->lines);
	p->lines[p->nlines++] = (struct zt_pprof_line){ .function_id = 1, .line = 7 };
	zt_grow(&p->locations, &p->caplocations, 1, sizeof *p->locations);
	p->locations[p->nlocations++] = (struct zt_pprof_location){ .id = 1, .mapping_id = 1,
		.address = start + 0x10, .nlines = 1 };
	zt_grow(&p->locids, &p->caplocids, 1, sizeof *p->locids);
	p->locids[p->nlocids++] = 1;
	zt_grow(&p->samples, &p->capsamples, 1, sizeof *p->samples);
	p->samples[p->nsamples++] = (struct zt_pprof_sample){ .nlocs = 1, .value = { v, 0 },
		.tid = 1, .thread = s(p, "main") };
	return p;
}

UNIT_TEST(pprof_merge_folded_profiles_keeps_each_stack_once)
{
	const char *a[] = { "m;a", "m;b" }, *b[] = { "m;a", "m;c" };
	struct zt_pprof *p = folded(a, (uint64_t[]){ 3, 2 }, 2);
	struct zt_pprof *q = folded(b, (uint64_t[]){ 4, 1 }, 2);
	char why[128];

	CHECK(zt_pprof_merge(p, q, why, sizeof why) == NULL);
	/* m, a, b, c: one function and one location each; m;a one sample of 7. */
	CHECK_EQ_U(p->nfunctions, 4);
	CHECK_EQ_U(p->nlocations, 4);
	CHECK_EQ_U(p->nsamples, 3);
	CHECK(p->samples[0].value[0] == 7 && p->samples[1].value[0] == 2 &&
	      p->samples[2].value[0] == 1);
	CHECK_EQ_U(p->ncomments, 1);
	/* Again: nothing new, the values doubled where q has them. */
	CHECK(zt_pprof_merge(p, q, why, sizeof why) == NULL);
	CHECK_EQ_U(p->nsamples, 3);
	CHECK(p->samples[0].value[0] == 11 && p->samples[2].value[0] == 2);
	zt_pprof_free(p);
	zt_pprof_free(q);
}

UNIT_TEST(pprof_merge_moves_a_library_loaded_elsewhere_into_the_first_mapping)
{
	struct zt_pprof *p = process(0x7f0000000000, "abcd", 5);
	struct zt_pprof *q = process(0x7f1234560000, "abcd", 6);
	struct zt_pprof *r = process(0x7f1234560000, "ef01", 1);
	char why[128];

	CHECK(zt_pprof_merge(p, q, why, sizeof why) == NULL);
	CHECK_EQ_U(p->nmappings, 1);
	CHECK_EQ_U(p->nlocations, 1);
	CHECK_EQ_U(p->nsamples, 1);
	CHECK(p->samples[0].value[0] == 11);
	/* Another build-id of the same file is another mapping, its own place. */
	CHECK(zt_pprof_merge(p, r, why, sizeof why) == NULL);
	CHECK_EQ_U(p->nmappings, 2);
	CHECK_EQ_U(p->nlocations, 2);
	CHECK_EQ_U(p->nsamples, 2);
	CHECK(p->locations[1].mapping_id == 2 && p->locations[1].address == 0x7f1234560010);
	zt_pprof_free(p);
	zt_pprof_free(q);
	zt_pprof_free(r);
}

UNIT_TEST(pprof_merge_saturates_a_sum_past_int64)
{
	struct zt_pprof *p = process(0x1000, "abcd", INT64_MAX - 1);
	struct zt_pprof *q = process(0x1000, "abcd", 5);
	char why[128];

	CHECK(zt_pprof_merge(p, q, why, sizeof why) == NULL);
	CHECK(p->samples[0].value[0] == INT64_MAX);
	CHECK_EQ_U(p->saturated, 1);
	zt_pprof_free(p);
	zt_pprof_free(q);
}
