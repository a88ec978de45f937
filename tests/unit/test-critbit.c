/*
 * test-critbit.c — critbit.c: the stored key a text starts with is found
 * whatever follows it, and only by its bytes; against a brute-force search
 * on keys that share long prefixes.
 */
#include "unit.h"
#include "critbit.h"

#include <stdlib.h>

#define NKEYS 600

static char *keys[NKEYS];
static size_t lens[NKEYS];

static const char *key_of(void *ctx, uint32_t v, size_t *len)
{
	(void)ctx;
	*len = lens[v];
	return keys[v];
}

static unsigned long seed = 12345;

static unsigned rnd(unsigned n)
{
	seed = seed * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(seed >> 33) % n;
}

/*
 * Keys as records' frame lines: lines of 'a' and 'b', each ending in '\n',
 * the key in a blank line; no blank line inside, so none starts another.
 * Most begin with some lines of an earlier key, so that many share long
 * prefixes and differ, at one byte, in different bits ('a'/'b', a letter
 * or the line's end).
 */
static void make_key(int i)
{
	size_t n = 0;
	unsigned lines = 0, more = rnd(12);

	keys[i] = malloc(24 * 21 + 1);
	if (i > 0 && rnd(4)) {
		/* Up to 8 lines of an earlier key, never its blank line. */
		const char *from = keys[rnd((unsigned)i)];
		unsigned keep = rnd(9);

		for (size_t k = 0; from[k] != '\n' && lines < keep; k++) {
			while (from[k] != '\n')
				keys[i][n++] = from[k++];
			keys[i][n++] = '\n';
			lines++;
		}
	}
	for (unsigned l = 0; l < more; l++) {
		unsigned w = 1 + rnd(20);
		for (unsigned k = 0; k < w; k++)
			keys[i][n++] = "ab"[rnd(2)];
		keys[i][n++] = '\n';
	}
	keys[i][n++] = '\n';
	lens[i] = n;
}

/* The key the n bytes of s start with, by looking at every key. */
static int64_t brute(const char *s, size_t n, int nkeys)
{
	for (int i = 0; i < nkeys; i++)
		if (lens[i] <= n && memcmp(keys[i], s, lens[i]) == 0)
			return i;
	return -1;
}

/* The tree of a key or a text, in an index of ntree: by its first byte. */
static size_t tree_of(const char *s, size_t n, size_t ntree)
{
	return n ? (unsigned char)s[0] % ntree : 0;
}

/* Keys into an index of ntree trees, then found or not as brute() says. */
static void check(size_t ntree)
{
	struct zt_critbit t;
	char text[1024];
	int nkeys = 0, bad = 0, dups = 0, found = 0;

	seed = 12345;
	zt_critbit_init(&t, ntree);
	CHECK(zt_critbit_find(&t, 0, "x\n\n", 3, key_of, NULL) == -1);	/* empty */
	for (int i = 0; i < NKEYS; i++) {
		int64_t had;

		make_key(nkeys);
		had = zt_critbit_add(&t, tree_of(keys[nkeys], lens[nkeys], ntree), keys[nkeys],
				     lens[nkeys], (uint32_t)nkeys, key_of, NULL);
		if (had >= 0) {
			/* Equal to a key stored before: that one's value. */
			bad += had != brute(keys[nkeys], lens[nkeys], nkeys) ||
			       lens[had] != lens[nkeys];
			free(keys[nkeys]);
			dups++;
			continue;
		}
		bad += brute(keys[nkeys], lens[nkeys], nkeys) != -1;
		nkeys++;
	}
	CHECK_EQ_U(bad, 0);
	CHECK(dups > 0);		/* the empty key, at least */
	CHECK(nkeys > 300);
	CHECK_EQ_U(t.count, (unsigned)nkeys);
	for (int i = 0; i < nkeys; i++) {
		size_t n = lens[i], k = tree_of(keys[i], n, ntree);

		/* The key, then what follows it: another record's header. */
		memcpy(text, keys[i], n);
		memcpy(text + n, "ab 1/1 2.5: 1 ev:\n\taa\n", 22);
		bad += zt_critbit_find(&t, k, text, n + 22, key_of, NULL) != i;
		bad += zt_critbit_find(&t, k, text, n, key_of, NULL) != i;
		/* Not all there yet: not found. */
		bad += zt_critbit_find(&t, k, text, n - 1, key_of, NULL) != -1;
		/* One byte changed: found only if it is another key. */
		text[rnd((unsigned)n)] ^= 3;
		bad += zt_critbit_find(&t, tree_of(text, n, ntree), text, n + 22, key_of, NULL) !=
		       brute(text, n + 22, nkeys);
	}
	CHECK_EQ_U(bad, 0);
	/* Random texts: the same answer as looking at every key. */
	for (int r = 0; r < 20000; r++) {
		size_t n = rnd(120);
		int64_t want, got;

		for (size_t k = 0; k < n; k++)
			text[k] = (char)"ab\n"[rnd(k % 7 ? 2 : 3)];
		want = brute(text, n, nkeys);
		got = zt_critbit_find(&t, tree_of(text, n, ntree), text, n, key_of, NULL);
		bad += want != got;
		found += got >= 0;
	}
	CHECK_EQ_U(bad, 0);
	CHECK(found > 100);
	zt_critbit_free(&t);
	for (int i = 0; i < nkeys; i++)
		free(keys[i]);
}

UNIT_TEST(critbit_finds_the_key_a_text_starts_with_and_only_it)
{
	check(1);
}

UNIT_TEST(critbit_trees_of_one_index_keep_their_own_keys)
{
	check(8);
}
