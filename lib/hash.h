/*
 * hash.h — a 64-bit hash of bytes, and an open-addressing index that maps
 * hashes to caller-owned entries (by number), for tables whose keys the
 * caller stores itself: stacks, addresses, file names.
 */
#ifndef ZT_HASH_H
#define ZT_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * A 64-bit hash of n bytes, which may hold any value; seed chains hashes
 * (hash a second key with the first's hash as its seed). Deterministic
 * across runs and machines.
 */
uint64_t zt_hash(const void *p, size_t n, uint64_t seed);
/* A 64-bit number mixed so that every bit of it moves every bit of the result. */
uint64_t zt_hash_u64(uint64_t v);

/*
 * The index holds entry numbers; the caller keeps the entries and says, with
 * eq, whether entry number i has the key being looked up. The index grows
 * itself. Owns only its slot array.
 */
struct zt_hash_slot {
	uint32_t entry;		/* entry + 1, 0 when empty */
	uint32_t hash;		/* the low 32 bits of its hash */
};

struct zt_hash_index {
	struct zt_hash_slot *slot;	/* a probe reads one cache line */
	size_t cap;		/* a power of two, at most 2^32 */
	size_t used;
};

typedef int (*zt_hash_eq_fn)(void *ctx, uint32_t entry, const void *key);

/* The entry whose key equals key, or -1. */
int64_t zt_hash_index_find(const struct zt_hash_index *ix, uint64_t hash, zt_hash_eq_fn eq,
			   void *ctx, const void *key);
/*
 * Record that entry has the given hash; the caller checked it is new.
 * entry must be below 2^32 - 2: beyond, it exits as the allocators do when
 * memory runs out (no table in zt gets near it before memory does).
 */
void zt_hash_index_add(struct zt_hash_index *ix, uint64_t hash, uint32_t entry);
/*
 * Room for n more entries without growing on the way (each growth puts
 * every entry again, into new memory): for a table whose size is known.
 */
void zt_hash_index_reserve(struct zt_hash_index *ix, size_t n);
void zt_hash_index_free(struct zt_hash_index *ix);

#endif
