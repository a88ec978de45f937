/*
 * test-strtab.c — the interning table: dense ids, lookups, growth, keys with
 * any bytes (what it stands on, hash.c, is test-hash.c's).
 */
#include "unit.h"
#include "strtab.h"

#include <stdio.h>

UNIT_TEST(strtab_interns_keys_as_dense_ids)
{
	struct zt_strtab *t = zt_strtab_new();
	int isnew;

	CHECK_EQ_U(zt_strtab_intern(t, "main", 4, &isnew), 0);
	CHECK(isnew);
	CHECK_EQ_U(zt_strtab_intern(t, "work", 4, &isnew), 1);
	CHECK_EQ_U(zt_strtab_intern(t, "main", 4, &isnew), 0);
	CHECK(!isnew);
	CHECK_EQ_U(zt_strtab_count(t), 2);
	CHECK_STR(zt_strtab_key(t, 1, NULL), "work");
	CHECK(zt_strtab_find(t, "nope", 4) == -1);
	CHECK(zt_strtab_find(t, "work", 4) == 1);
	zt_strtab_free(t);
}

UNIT_TEST(strtab_keeps_every_key_across_growth)
{
	struct zt_strtab *t = zt_strtab_new();
	char b[32];
	int bad = 0;

	for (int i = 0; i < 100000; i++) {
		int n = snprintf(b, sizeof b, "frame%d", i);
		if (zt_strtab_intern(t, b, (size_t)n, NULL) != (uint32_t)i)
			bad++;
	}
	for (int i = 0; i < 100000; i += 777) {
		int n = snprintf(b, sizeof b, "frame%d", i);
		if (zt_strtab_find(t, b, (size_t)n) != i)
			bad++;
	}
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(zt_strtab_count(t), 100000);
	zt_strtab_free(t);
}

UNIT_TEST(strtab_keys_may_hold_nul_bytes_and_be_empty)
{
	struct zt_strtab *t = zt_strtab_new();
	size_t n;

	CHECK_EQ_U(zt_strtab_intern(t, "a\0b", 3, NULL), 0);
	CHECK_EQ_U(zt_strtab_intern(t, "a\0c", 3, NULL), 1);
	CHECK_EQ_U(zt_strtab_intern(t, "", 0, NULL), 2);
	CHECK(zt_strtab_key(t, 1, &n)[2] == 'c');
	CHECK_EQ_U(n, 3);
	zt_strtab_free(t);
}
