/*
 * strtab.c — open-addressing (linear probing) interning table.
 *
 * Keys live back to back in one growing arena, each followed by a NUL; an
 * entry records where its key starts, its length and its full hash, so a
 * probe compares hashes before bytes and a resize never rehashes keys.
 */
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t hash;
	size_t off;
	size_t len;
};

struct zt_strtab {
	uint32_t *slots;	/* id + 1, 0 for an empty slot */
	size_t nslots;		/* a power of two */
	struct entry *ent;
	size_t nent, capent;
	char *arena;
	size_t used, caparena;
};

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t zt_strtab_hash(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL);
	uint64_t w;

	while (len >= 16) {
		uint64_t a = load64(s) ^ 0xa0761d6478bd642fULL;
		uint64_t b = load64(s + 8) ^ h;
		unsigned __int128 m = (unsigned __int128)a * b;
		h = (uint64_t)m ^ (uint64_t)(m >> 64);
		s += 16;
		len -= 16;
	}
	if (len >= 8) {
		h = (h ^ load64(s)) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w ^ ((uint64_t)len << 56)) * 0xbf58476d1ce4e5b9ULL;
	return mix(h);
}

struct zt_strtab *zt_strtab_new(void)
{
	struct zt_strtab *t = zt_calloc(1, sizeof *t);

	t->nslots = 1024;
	t->slots = zt_calloc(t->nslots, sizeof *t->slots);
	return t;
}

void zt_strtab_free(struct zt_strtab *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->ent);
	free(t->arena);
	free(t);
}

static void grow(struct zt_strtab *t)
{
	size_t n = t->nslots * 2, mask = n - 1;
	uint32_t *s = zt_calloc(n, sizeof *s);

	for (size_t id = 0; id < t->nent; id++) {
		size_t i = t->ent[id].hash & mask;
		while (s[i])
			i = (i + 1) & mask;
		s[i] = (uint32_t)id + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
}

/* The slot holding the key, or the empty slot where it would go. */
static size_t probe(const struct zt_strtab *t, const void *key, size_t len,
		    uint64_t h)
{
	size_t mask = t->nslots - 1, i = h & mask;

	for (;;) {
		uint32_t v = t->slots[i];
		if (!v)
			return i;
		const struct entry *e = &t->ent[v - 1];
		if (e->hash == h && e->len == len &&
		    memcmp(t->arena + e->off, key, len) == 0)
			return i;
		i = (i + 1) & mask;
	}
}

uint32_t zt_strtab_intern(struct zt_strtab *t, const void *key, size_t len,
			  int *isnew)
{
	uint64_t h = zt_strtab_hash(key, len);
	size_t i = probe(t, key, len, h);
	struct entry *e;

	if (t->slots[i]) {
		if (isnew)
			*isnew = 0;
		return t->slots[i] - 1;
	}
	if (t->nent >= UINT32_MAX - 1)
		zt_die(ZT_EXIT_DATA, "out of memory: more than 2^32 distinct keys");
	zt_grow(&t->ent, &t->capent, t->nent + 1, sizeof *t->ent);
	zt_grow(&t->arena, &t->caparena, t->used + len + 1, 1);
	e = &t->ent[t->nent];
	e->hash = h;
	e->off = t->used;
	e->len = len;
	if (len)
		memcpy(t->arena + t->used, key, len);
	t->arena[t->used + len] = '\0';
	t->used += len + 1;
	t->slots[i] = (uint32_t)++t->nent;
	if (t->nent * 2 > t->nslots)	/* keep the load at most 1/2 */
		grow(t);
	if (isnew)
		*isnew = 1;
	return (uint32_t)t->nent - 1;
}

int64_t zt_strtab_find(const struct zt_strtab *t, const void *key, size_t len)
{
	size_t i = probe(t, key, len, zt_strtab_hash(key, len));

	return t->slots[i] ? (int64_t)t->slots[i] - 1 : -1;
}

const char *zt_strtab_key(const struct zt_strtab *t, uint32_t id, size_t *len)
{
	if (len)
		*len = t->ent[id].len;
	return t->arena + t->ent[id].off;
}

uint32_t zt_strtab_count(const struct zt_strtab *t)
{
	return (uint32_t)t->nent;
}
