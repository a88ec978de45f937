/*
 * critbit.h — an index of prefix-free byte strings that finds, in a text
 * whose length it does not know yet, the one stored key that starts it.
 *
 * perfscript.c reads a record's frame lines and asks whether they repeat a
 * record seen before; where they end is not known until its blank line is
 * found. A hash needs that end first (one pass to find it, one to hash,
 * one to compare); this index needs none: it looks at the bytes where the
 * stored keys first differ (crit-bit trees: a few bytes, whatever the
 * keys' lengths), which leads to the one key that may start the text, then
 * compares that key's bytes. A key is found only by comparing all of it,
 * so no answer depends on anything but the bytes.
 *
 * The index is a forest: the caller picks the tree a key goes into (by a
 * hash of its first bytes, say) and looks for it in the same tree, so that
 * each tree stays small. Its trees share one pool of nodes.
 *
 * The keys of a tree must be prefix-free (none starts another, as records
 * that each end at their first blank line), hold no NUL (bytes past a
 * key's end count as NUL), and be kept by the caller, who hands them to
 * the index through key_fn. The index owns only its nodes and roots.
 */
#ifndef ZT_CRITBIT_H
#define ZT_CRITBIT_H

#include <stddef.h>
#include <stdint.h>

/* The stored key of value, and its length. */
typedef const char *(*zt_critbit_key_fn)(void *ctx, uint32_t value, size_t *len);

struct zt_critbit {
	struct zt_critbit_node *node;
	size_t nnode, capnode;
	uint32_t *root;		/* per tree: a node, a leaf, or empty */
	size_t ntree;
	size_t count;		/* keys stored */
};

/* An index of ntree empty trees (at least 1); freed with zt_critbit_free. */
void zt_critbit_init(struct zt_critbit *t, size_t ntree);
void zt_critbit_free(struct zt_critbit *t);

/*
 * The value of the key in tree (below ntree) that the n bytes of text
 * start with, or -1: key_fn's key compared byte for byte.
 */
int64_t zt_critbit_find(const struct zt_critbit *t, size_t tree, const char *text, size_t n,
			zt_critbit_key_fn key_fn, void *ctx);

/*
 * Store value (below 2^31 - 1) in tree for the key of len bytes, which
 * key_fn(ctx, value) must give from now on. Returns -1 when it was added,
 * or the value already stored there for an equal key (then nothing is
 * added). A key that starts another of its tree or holds a NUL is the
 * caller's error: finds may then miss.
 */
int64_t zt_critbit_add(struct zt_critbit *t, size_t tree, const char *key, size_t len,
		       uint32_t value, zt_critbit_key_fn key_fn, void *ctx);

#endif
