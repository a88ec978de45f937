/*
 * test-filter.c — lib/filter.c (focus, ignore, hide) and what a profile
 * does with it: kept samples, hidden frames' samples to their callers,
 * caller -> callee edges counted once per stack.
 */
#include "unit.h"
#include "filter.h"
#include "profile.h"
#include <stdlib.h>

static int64_t id(struct zt_profile *p, const char *name)
{
	return zt_profile_find(p, name, strlen(name));
}

UNIT_TEST(filter_focus_ignore_hide_on_one_stack)
{
	struct zt_profile *p = zt_profile_new();
	struct zt_filter *f = zt_filter_new(zt_profile_name_fn, p);
	uint32_t ids[3], aux[3] = { 10, 11, 12 };
	char err[128];

	ids[0] = zt_profile_key(p, "leaf", 4);
	ids[1] = zt_profile_key(p, "mid", 3);
	ids[2] = zt_profile_key(p, "main", 4);
	CHECK(!zt_filter_active(f));
	CHECK(zt_filter_set(f, ZT_FOCUS, "(", err, sizeof err) < 0 && err[0]);
	CHECK(zt_filter_set(f, ZT_FOCUS, "^mi", err, sizeof err) == 0);
	CHECK(zt_filter_active(f));
	CHECK(zt_filter_stack(f, ids, aux, 3) == 3);
	CHECK(zt_filter_stack(f, ids, aux, 1) == -1);	/* leaf alone: no mid */
	CHECK(zt_filter_set(f, ZT_HIDE, "^mid$", err, sizeof err) == 0);
	CHECK(zt_filter_stack(f, ids, aux, 3) == 2);
	CHECK(ids[1] == (uint32_t)id(p, "main") && aux[0] == 10 && aux[1] == 12);
	/* ignore wins over focus */
	CHECK(zt_filter_set(f, ZT_IGNORE, "main", err, sizeof err) == 0);
	CHECK(zt_filter_stack(f, ids, NULL, 2) == -1);
	zt_filter_free(f);
	zt_profile_free(p);
}

UNIT_TEST(profile_with_filter_and_edges)
{
	struct zt_profile *p = zt_profile_new();
	struct zt_filter *f = zt_filter_new(zt_profile_name_fn, p);
	struct zt_edge *e;
	char err[128];
	size_t n;

	CHECK(zt_filter_set(f, ZT_IGNORE, "^skip$", err, sizeof err) == 0);
	CHECK(zt_filter_set(f, ZT_HIDE, "^wrap$", err, sizeof err) == 0);
	zt_profile_set_filter(p, f);
	zt_profile_track_edges(p);
	zt_profile_add_folded(p, "main;wrap;a", 11, 5);
	zt_profile_add_folded(p, "main;a;a;b", 10, 2);	/* recursion: a->a is no edge */
	zt_profile_add_folded(p, "main;skip;a", 11, 4);
	/* Every frame hidden but the root, the command, which filters never
	   match (as records have it apart): the sample counts in it. */
	zt_profile_add_folded(p, "main;wrap", 9, 1);
	CHECK_EQ_U(zt_profile_samples(p), 12);
	CHECK_EQ_U(zt_profile_kept(p), 8);
	CHECK_EQ_U(zt_profile_self(p, (uint32_t)id(p, "a")), 5);
	CHECK_EQ_U(zt_profile_total(p, (uint32_t)id(p, "a")), 7);
	CHECK_EQ_U(zt_profile_total(p, (uint32_t)id(p, "wrap")), 0);
	CHECK_EQ_U(zt_profile_self(p, (uint32_t)id(p, "main")), 1);
	e = zt_profile_edges(p, (uint32_t)id(p, "a"), 1, &n);
	CHECK(n == 1 && e[0].caller == (uint32_t)id(p, "main") && e[0].count == 7);
	free(e);
	e = zt_profile_edges(p, (uint32_t)id(p, "a"), 0, &n);
	CHECK(n == 1 && e[0].callee == (uint32_t)id(p, "b") && e[0].count == 2);
	free(e);
	zt_profile_divide(p, 1);
	zt_filter_free(f);
	zt_profile_free(p);
}

UNIT_TEST(profile_sorted_by_cum)
{
	struct zt_profile *p = zt_profile_new();
	uint32_t *ids, n;

	zt_profile_add_folded(p, "main;a", 6, 3);
	zt_profile_add_folded(p, "main;b", 6, 1);
	ids = zt_profile_sorted_by(p, &n, 1);
	CHECK(n == 3 && ids[0] == (uint32_t)id(p, "main") && ids[1] == (uint32_t)id(p, "a"));
	free(ids);
	ids = zt_profile_sorted_by(p, &n, 0);
	CHECK(n == 3 && ids[0] == (uint32_t)id(p, "a") && ids[2] == (uint32_t)id(p, "main"));
	free(ids);
	zt_profile_free(p);
}
