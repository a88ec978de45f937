/*
 * strtab.c — interning over the entry index (hash.c).
 *
 * Keys live back to back in one growing arena, each followed by a NUL; an
 * entry records where its key starts and its length. The index keeps each
 * entry's full hash, so a probe compares hashes before bytes and a resize
 * never rehashes keys.
 */
#include "strtab.h"
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	size_t off;
	size_t len;
};

struct zt_strtab {
	struct zt_hash_index ix;
	struct entry *ent;
	size_t nent, capent;
	char *arena;
	size_t used, caparena;
};

struct key {
	const void *p;
	size_t len;
};

static int key_eq(void *ctx, uint32_t id, const void *k)
{
	const struct zt_strtab *t = ctx;
	const struct key *key = k;
	const struct entry *e = &t->ent[id];

	return e->len == key->len && memcmp(t->arena + e->off, key->p, key->len) == 0;
}

struct zt_strtab *zt_strtab_new(void)
{
	return zt_calloc(1, sizeof(struct zt_strtab));
}

void zt_strtab_free(struct zt_strtab *t)
{
	if (!t)
		return;
	zt_hash_index_free(&t->ix);
	free(t->ent);
	free(t->arena);
	free(t);
}

uint32_t zt_strtab_intern(struct zt_strtab *t, const void *key, size_t len,
			  int *isnew)
{
	struct key k = { key, len };
	uint64_t h = zt_hash(key, len, 0);
	int64_t id = zt_hash_index_find(&t->ix, h, key_eq, t, &k);
	struct entry *e;

	if (isnew)
		*isnew = id < 0;
	if (id >= 0)
		return (uint32_t)id;
	zt_hash_index_add(&t->ix, h, (uint32_t)t->nent);
	zt_grow(&t->ent, &t->capent, t->nent + 1, sizeof *t->ent);
	zt_grow(&t->arena, &t->caparena, t->used + len + 1, 1);
	e = &t->ent[t->nent];
	e->off = t->used;
	e->len = len;
	if (len)
		memcpy(t->arena + t->used, key, len);
	t->arena[t->used + len] = '\0';
	t->used += len + 1;
	return (uint32_t)t->nent++;
}

int64_t zt_strtab_find(const struct zt_strtab *t, const void *key, size_t len)
{
	struct key k = { key, len };

	return zt_hash_index_find(&t->ix, zt_hash(key, len, 0), key_eq, (void *)t, &k);
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
