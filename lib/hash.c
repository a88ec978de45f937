/*
 * hash.c — hashing and the entry index. The hash is a simple 64-bit
 * multiply-and-rotate over 8-byte words (in the spirit of wyhash/FxHash):
 * fast on short keys, good enough spread for hash tables, not for security.
 */
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

uint64_t zt_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0xff51afd7ed558ccdull), v;

	while (n >= 8) {
		memcpy(&v, s, 8);
		h = mix(h, v);
		s += 8;
		n -= 8;
	}
	v = 0;
	memcpy(&v, s, n);
	h = mix(h, v ^ 0xc4ceb9fe1a85ec53ull);
	return zt_hash_u64(h);
}

uint64_t zt_hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	v ^= v >> 33;
	return v;
}

int64_t zt_index_find(const struct zt_index *ix, uint64_t hash, zt_eq_fn eq,
		      void *ctx, const void *key)
{
	size_t mask, i;

	if (!ix->cap)
		return -1;
	mask = ix->cap - 1;
	for (i = hash & mask; ix->slot[i]; i = (i + 1) & mask)
		if (ix->hash[i] == hash && eq(ctx, ix->slot[i] - 1, key))
			return ix->slot[i] - 1;
	return -1;
}

static void put(struct zt_index *ix, uint64_t hash, uint32_t entry)
{
	size_t mask = ix->cap - 1, i;

	for (i = hash & mask; ix->slot[i]; i = (i + 1) & mask)
		;
	ix->slot[i] = entry + 1;
	ix->hash[i] = hash;
}

void zt_index_add(struct zt_index *ix, uint64_t hash, uint32_t entry)
{
	if ((ix->used + 1) * 4 >= ix->cap * 3) {
		struct zt_index old = *ix;

		ix->cap = old.cap ? old.cap * 2 : 64;
		ix->slot = zt_calloc(ix->cap, sizeof *ix->slot);
		ix->hash = zt_malloc(ix->cap * sizeof *ix->hash);
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i])
				put(ix, old.hash[i], old.slot[i] - 1);
		free(old.slot);
		free(old.hash);
	}
	put(ix, hash, entry);
	ix->used++;
}

void zt_index_free(struct zt_index *ix)
{
	free(ix->slot);
	free(ix->hash);
	memset(ix, 0, sizeof *ix);
}
