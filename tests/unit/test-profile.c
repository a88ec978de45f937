/*
 * test-profile.c — per-key counts (lib/profile.c), the -s address
 * stripping (lib/foldedsort.c), `# zt` facts (lib/factlines.c) and JSON strings
 * (lib/json.c).
 */
#include "unit.h"
#include "foldedsort.h"
#include "json.h"
#include "profile.h"
#include "factlines.h"

#include <stdlib.h>

static uint64_t self_of(struct zt_profile *p, const char *name)
{
	int64_t id = zt_profile_find(p, name, strlen(name));
	return id < 0 ? 999 : zt_profile_self(p, (uint32_t)id);
}

static uint64_t total_of(struct zt_profile *p, const char *name)
{
	int64_t id = zt_profile_find(p, name, strlen(name));
	return id < 0 ? 999 : zt_profile_total(p, (uint32_t)id);
}

UNIT_TEST(profile_counts_self_at_the_leaf_and_total_once_per_stack)
{
	struct zt_profile *p = zt_profile_new();
	const char *a = "main;f;g;f;g;f", *b = "main;h";
	uint32_t n, *ids;

	zt_profile_add_folded(p, a, strlen(a), 5);
	zt_profile_add_folded(p, b, strlen(b), 2);
	CHECK_EQ_U(zt_profile_samples(p), 7);
	CHECK_EQ_U(self_of(p, "f"), 5);
	CHECK_EQ_U(total_of(p, "f"), 5);
	CHECK_EQ_U(total_of(p, "g"), 5);
	CHECK_EQ_U(self_of(p, "g"), 0);
	CHECK_EQ_U(total_of(p, "main"), 7);
	ids = zt_profile_sorted_by(p, &n, 0);
	CHECK_EQ_U(n, 4);
	CHECK_STR(zt_profile_name(p, ids[0], NULL), "f");
	CHECK_STR(zt_profile_name(p, ids[1], NULL), "h");
	CHECK_STR(zt_profile_name(p, ids[2], NULL), "main");
	free(ids);
	zt_profile_free(p);
}

UNIT_TEST(strip_hex_replaces_every_address)
{
	char out[64];
	const char *s = "a;0x7f12ab;b0x;0xZ;0XFF;x0x1f";
	size_t n = zt_foldedsort_strip_hex(s, strlen(s), out);

	out[n] = '\0';
	CHECK_STR(out, "a;0x...;b0x;0xZ;0XFF;x0x...");
}

UNIT_TEST(facts_read_zt_comment_lines)
{
	struct zt_facts f = { 0 };
	const char *lines[] = { "# zt hz 997", "# zt timer perf-task-clock",
		"# zt lost 3 buffer-full", "# zt cpu-ns 8034000000", "# zt rate-cap kernel-tick",
		"# zt future-key 1", "# not ours", "# zt hz 100" };

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		CHECK(zt_factlines_line(&f, lines[i], strlen(lines[i])) == NULL);
	CHECK_EQ_U(f.hz, 997);
	CHECK_STR(f.timer, "perf-task-clock");
	CHECK(f.have_lost);
	CHECK_EQ_U(f.lost, 3);
	CHECK_STR(f.lost_reason, "buffer-full");
	CHECK_EQ_U(f.cpu_ns, 8034000000ULL);
	CHECK_STR(f.rate_cap, "kernel-tick");
	CHECK_STR(zt_factlines_line(&f, "# zt hz x", 9), "'# zt hz' wants a number");
}

UNIT_TEST(json_strings_are_escaped)
{
	char buf[128] = { 0 };
	FILE *f = fmemopen(buf, sizeof buf - 1, "w");

	zt_json_string(f, "a\"b\\c\nd\001", 8);
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
}
