/*
 * critbit.c — the crit-bit trees behind critbit.h. An inner node names the
 * first bit where the keys below it differ (a byte and, in otherbits, every
 * bit of that byte but the one); a find follows those bits of the text
 * from the root to a leaf, and compares that leaf's key with the text once.
 *
 * Why the leaf is the right one: the keys below a node agree before its
 * bit and differ at it, so for a stored key K below it, some other key
 * there first differs from K at that byte; the keys being prefix-free and
 * without NULs, that byte lies inside K. A text that starts with K has K's
 * byte there and takes K's way at every node down to K's leaf.
 */
#include "critbit.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A reference: a node's number, or a leaf's value with LEAF set; EMPTY
   is no tree. */
#define LEAF ((uint32_t)1 << 31)
#define EMPTY UINT32_MAX

struct zt_critbit_node {
	uint32_t child[2];	/* a node, or a leaf */
	uint32_t byte;
	uint8_t otherbits;	/* ~ the bit that tells the children apart */
};

/* The byte at i of a text of n bytes, NUL past its end. */
static inline unsigned at(const char *s, size_t n, size_t i)
{
	return i < n ? (unsigned char)s[i] : 0;
}

/* Which child a byte c takes at a node: 1 when it has the node's bit. */
static inline int direction(const struct zt_critbit_node *q, unsigned c)
{
	return (int)((1 + (q->otherbits | c)) >> 8);
}

void zt_critbit_init(struct zt_critbit *t, size_t ntree)
{
	memset(t, 0, sizeof *t);
	t->ntree = ntree ? ntree : 1;
	t->root = zt_malloc(t->ntree * sizeof *t->root);
	for (size_t i = 0; i < t->ntree; i++)
		t->root[i] = EMPTY;
}

/* The leaf a text of n bytes leads to from ref, a tree's root. */
static uint32_t walk(const struct zt_critbit *t, uint32_t ref, const char *s, size_t n)
{
	while (!(ref & LEAF)) {
		const struct zt_critbit_node *q = &t->node[ref];

		ref = q->child[direction(q, at(s, n, q->byte))];
	}
	return ref & ~LEAF;
}

int64_t zt_critbit_find(const struct zt_critbit *t, size_t tree, const char *text, size_t n,
			zt_critbit_key_fn key_fn, void *ctx)
{
	uint32_t v;
	const char *key;
	size_t len;

	if (t->root[tree] == EMPTY)
		return -1;
	v = walk(t, t->root[tree], text, n);
	key = key_fn(ctx, v, &len);
	return len <= n && memcmp(key, text, len) == 0 ? (int64_t)v : -1;
}

int64_t zt_critbit_add(struct zt_critbit *t, size_t tree, const char *key, size_t len,
		       uint32_t value, zt_critbit_key_fn key_fn, void *ctx)
{
	const char *other;
	size_t olen, byte, most;
	unsigned diff, c;
	uint32_t v, *where, fresh;
	struct zt_critbit_node *q;
	int dir;

	if (value >= LEAF - 1 || t->nnode >= LEAF - 1)
		zt_out_of_memory("more than 2^31 - 2 keys in a crit-bit index");
	if (t->root[tree] == EMPTY) {
		t->root[tree] = value | LEAF;
		t->count++;
		return -1;
	}
	/* The stored key nearest to the new one, and the first bit where
	   they differ. */
	v = walk(t, t->root[tree], key, len);
	other = key_fn(ctx, v, &olen);
	most = len > olen ? len : olen;
	for (byte = 0; byte < most; byte++)
		if (at(key, len, byte) != at(other, olen, byte))
			break;
	if (byte == most)
		return v;
	if (byte > UINT32_MAX)
		zt_out_of_memory("a key of more than 4 GiB in a crit-bit index");
	diff = at(key, len, byte) ^ at(other, olen, byte);
	/* Keep only the highest bit that differs. */
	diff |= diff >> 1;
	diff |= diff >> 2;
	diff |= diff >> 4;
	diff = (diff & ~(diff >> 1)) ^ 255;
	c = at(other, olen, byte);

	zt_grow(&t->node, &t->capnode, t->nnode + 1, sizeof *t->node);
	fresh = (uint32_t)t->nnode++;
	q = &t->node[fresh];
	q->byte = (uint32_t)byte;
	q->otherbits = (uint8_t)diff;
	dir = direction(q, c);

	/* Down to the first node that looks at a later bit: the new node
	   goes above it, or above the leaf reached. */
	where = &t->root[tree];
	while (!(*where & LEAF)) {
		struct zt_critbit_node *p = &t->node[*where];

		if (p->byte > byte || (p->byte == byte && p->otherbits > (uint8_t)diff))
			break;
		where = &p->child[direction(p, at(key, len, p->byte))];
	}
	q->child[dir] = *where;
	q->child[1 - dir] = value | LEAF;
	*where = fresh;
	t->count++;
	return -1;
}

void zt_critbit_free(struct zt_critbit *t)
{
	free(t->node);
	free(t->root);
	memset(t, 0, sizeof *t);
}
