/*
 * hash.c — the one hash function and the one hash table (the entry index;
 * strtab.c interns strings over it). The hash folds 16 bytes at a time
 * with a 128-bit multiply, in the spirit of wyhash: fast on the short names
 * and the stacks of ids the filters hash, good enough spread for tables
 * (zt_hash_u64 is murmur3's finalizer), not for security.
 */
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* wyhash's mum: the two halves of a 128-bit product, folded. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 m = (unsigned __int128)a * b;

	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

static const uint64_t lane_key[4] = {
	0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 0x8ebc6af09c88c6e3ull,
	0x589965cc75374cc3ull,
};

uint64_t zt_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0x100000001b3ull) ^ seed;
	uint64_t w;

	/* A long key (a record of frame lines): four independent lanes, so
	   that the multiplies overlap, then folded into one. */
	if (n >= 64) {
		uint64_t l0 = h, l1 = h ^ lane_key[1], l2 = h ^ lane_key[2], l3 = h ^ lane_key[3];

		while (n >= 64) {
			l0 = mum(load64(s) ^ lane_key[0], load64(s + 8) ^ l0);
			l1 = mum(load64(s + 16) ^ lane_key[1], load64(s + 24) ^ l1);
			l2 = mum(load64(s + 32) ^ lane_key[2], load64(s + 40) ^ l2);
			l3 = mum(load64(s + 48) ^ lane_key[3], load64(s + 56) ^ l3);
			s += 64;
			n -= 64;
		}
		h = mum(l0 ^ lane_key[0], l1) ^ mum(l2 ^ lane_key[1], l3);
	}
	/* 16 bytes a step, folded by one 64x64->128 multiply (wyhash's mum). */
	while (n >= 16) {
		uint64_t a = load64(s) ^ 0xa0761d6478bd642full;
		uint64_t b = load64(s + 8) ^ h;
		unsigned __int128 m = (unsigned __int128)a * b;

		h = (uint64_t)m ^ (uint64_t)(m >> 64);
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		h = (h ^ load64(s)) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w ^ ((uint64_t)n << 56)) * 0xbf58476d1ce4e5b9ull;
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

int64_t zt_hash_index_find(const struct zt_hash_index *ix, uint64_t hash, zt_hash_eq_fn eq,
			   void *ctx, const void *key)
{
	size_t mask, i;

	if (!ix->cap)
		return -1;
	mask = ix->cap - 1;
	for (i = hash & mask; ix->slot[i].entry; i = (i + 1) & mask)
		if (ix->slot[i].hash == (uint32_t)hash && eq(ctx, ix->slot[i].entry - 1, key))
			return ix->slot[i].entry - 1;
	return -1;
}

/* A slot's place comes from the low bits of the hash, which it keeps. */
static void put(struct zt_hash_index *ix, uint32_t hash, uint32_t entry)
{
	size_t mask = ix->cap - 1, i;

	for (i = hash & mask; ix->slot[i].entry; i = (i + 1) & mask)
		;
	ix->slot[i].entry = entry + 1;
	ix->slot[i].hash = hash;
}

/* The index over cap slots, its entries put again. */
static void rehash(struct zt_hash_index *ix, size_t cap)
{
	struct zt_hash_index old = *ix;

	if (cap > ((size_t)1 << 32))
		zt_out_of_memory("a hash index of more than 2^32 slots");
	ix->cap = cap;
	ix->slot = zt_calloc(ix->cap, sizeof *ix->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].entry)
			put(ix, old.slot[i].hash, old.slot[i].entry - 1);
	free(old.slot);
}

void zt_hash_index_add(struct zt_hash_index *ix, uint64_t hash, uint32_t entry)
{
	/* A slot holds entry + 1 in 32 bits, 0 being empty. */
	if (entry >= UINT32_MAX - 1)
		zt_out_of_memory("more than 2^32 distinct keys");
	if ((ix->used + 1) * 4 >= ix->cap * 3)
		rehash(ix, ix->cap ? ix->cap * 2 : 64);
	put(ix, (uint32_t)hash, entry);
	ix->used++;
}

void zt_hash_index_reserve(struct zt_hash_index *ix, size_t n)
{
	size_t cap = ix->cap ? ix->cap : 64;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	while ((ix->used + n + 1) * 4 >= cap * 3)
		cap *= 2;
	if (cap != ix->cap)
		rehash(ix, cap);
}

void zt_hash_index_free(struct zt_hash_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof *ix);
}
