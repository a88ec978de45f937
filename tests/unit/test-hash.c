/*
 * test-hash.c — hash.c: the hash depends on every byte, the length and the
 * seed; the entry index finds every entry across growth and shared hashes.
 */
#include "unit.h"
#include "hash.h"

UNIT_TEST(hash_depends_on_every_byte_the_length_and_the_seed)
{
	char a[200], b[200];
	int bad = 0;

	CHECK(zt_hash("abcdefghijklmnopq", 17, 0) != zt_hash("abcdefghijklmnopr", 17, 0));
	CHECK(zt_hash("abc", 3, 0) != zt_hash("abc\0", 4, 0));
	CHECK(zt_hash("abc", 3, 0) == zt_hash("abc", 3, 0));
	CHECK(zt_hash("", 0, 0) != zt_hash("", 0, 1));
	CHECK(zt_hash("abc", 3, 1) != zt_hash("abc", 3, 2));
	/* Each byte of every length up to 200, in each of the four stages (64-byte
	   lanes, 16-byte steps, 8 bytes, the tail). */
	memset(a, 'x', sizeof a);
	for (size_t n = 1; n <= sizeof a; n++)
		for (size_t i = 0; i < n; i++) {
			memcpy(b, a, n);
			b[i] ^= 1;
			bad += zt_hash(a, n, 7) == zt_hash(b, n, 7);
		}
	CHECK_EQ_U(bad, 0);
	CHECK(zt_hash_u64(1) != zt_hash_u64(2));
}

static int u32_eq(void *ctx, uint32_t entry, const void *key)
{
	const uint32_t *v = ctx;

	return v[entry] == *(const uint32_t *)key;
}

UNIT_TEST(index_finds_entries_across_growth_and_equal_hashes)
{
	static uint32_t v[5000];
	struct zt_hash_index ix = { 0 };
	uint32_t missing = 123456789;
	int bad = 0;

	for (uint32_t i = 0; i < 5000; i++) {
		v[i] = i * 7919;
		/* Every tenth entry shares one hash: found by eq, not the hash. */
		zt_hash_index_add(&ix, i % 10 ? zt_hash_u64(v[i]) : 42, i);
	}
	for (uint32_t i = 0; i < 5000; i++)
		bad += zt_hash_index_find(&ix, i % 10 ? zt_hash_u64(v[i]) : 42, u32_eq, v,
					  &v[i]) != i;
	CHECK_EQ_U(bad, 0);
	CHECK(zt_hash_index_find(&ix, zt_hash_u64(missing), u32_eq, v, &missing) == -1);
	CHECK(zt_hash_index_find(&ix, 42, u32_eq, v, &missing) == -1);
	zt_hash_index_free(&ix);
	CHECK(zt_hash_index_find(&ix, 42, u32_eq, v, &missing) == -1);	/* empty */
}
