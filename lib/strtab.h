/*
 * strtab.h — a hash table that interns byte strings as dense ids.
 *
 * The filters fold millions of frames into a few thousand distinct names and
 * stacks; this table stores each distinct key once and hands out ids
 * 0, 1, 2, ... in order of first appearance, so that callers can keep
 * per-key data in plain arrays indexed by id. Memory grows with the number
 * of distinct keys, never with the number of lookups. Built on hash.h's
 * index and hash; more than 2^32 - 2 keys exit as out of memory.
 */
#ifndef ZT_STRTAB_H
#define ZT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct zt_strtab;

/* A new, empty table. The caller owns it and frees it with zt_strtab_free. */
struct zt_strtab *zt_strtab_new(void);
void zt_strtab_free(struct zt_strtab *t);

/*
 * The id of the key of len bytes, adding a copy of it when it is new (then
 * *isnew, when not NULL, is set to 1, else 0). Keys may hold any bytes.
 */
uint32_t zt_strtab_intern(struct zt_strtab *t, const void *key, size_t len,
			  int *isnew);

/* The id of the key, or -1 when it is not in the table. */
int64_t zt_strtab_find(const struct zt_strtab *t, const void *key, size_t len);

/*
 * The stored key of an id, NUL-terminated (a NUL is added after the len
 * bytes). Owned by the table; valid until the next zt_strtab_intern.
 */
const char *zt_strtab_key(const struct zt_strtab *t, uint32_t id, size_t *len);

/* Number of distinct keys, which is also the next id. */
uint32_t zt_strtab_count(const struct zt_strtab *t);

#endif
