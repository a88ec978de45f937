/*
 * raw.c — reading raw dumps (formats/raw.md).
 *
 * A dump is line-oriented text: a magic line "zt-prof N", header keys, then
 * sections that each start with a line holding only their name. Version 2
 * ends with "end", so a dump cut short is told apart from a whole one.
 * Identical samples are merged as they are read, so memory grows with the
 * number of distinct stacks, not with the length of the run. Version 4
 * carries several snapshots of the maps, each with its time; a sample is
 * named from the snapshot of its time (zt_raw_map_at), so stacks are split
 * by snapshot once the whole dump is read. Version 5 (a wall-clock profile)
 * gives a sample line the ns each of its samples stands for ("^ns") and an
 * off-CPU sample its wait ("!futex"): the wait is part of the stack, the
 * weights are summed per stack. Version 6 adds allocation samples
 * ("$aSIZE" and the like, with their weight in bytes): each line counts
 * into a stack of bytes and one of objects of its kind and size.
 */
#include "raw.h"
#include "arch.h"
#include "escape.h"
#include "hex.h"
#include "input.h"
#include "ranges.h"
#include "rawfmt.h"
#include "strtab.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum section { S_HEADER, S_SAMPLES, S_MAPS, S_BUILDIDS, S_THREADS, S_SUMMARY, S_PERFMAP,
	       S_VDSO, S_END };

static const char *const section_names[] = {
	[S_SAMPLES] = ZT_RAW_SAMPLES, [S_MAPS] = ZT_RAW_MAPS, [S_BUILDIDS] = ZT_RAW_BUILDIDS,
	[S_THREADS] = ZT_RAW_THREADS, [S_SUMMARY] = ZT_RAW_SUMMARY, [S_PERFMAP] = ZT_RAW_PERFMAP,
	[S_VDSO] = ZT_RAW_VDSO, [S_END] = ZT_RAW_END,
};

struct reader {
	struct zt_raw *d;
	char *err;
	size_t errlen;
	const char *name;	/* the input's, for the place of a message */
	unsigned long lineno;
	enum section sec;
	int store;
	int snap;		/* the maps section being read, -1 before the first */		/* keep samples, or only count them */
	uint64_t *tmp;		/* addresses of the line being read */
	uint8_t *tmpx;
	size_t captmp, captmpx;
	const char *lineend;	/* of the line being read */
	uint64_t max_ns;	/* the latest sample time so far */
	/* Sample lines seen, by their text from the thread's first address
	   on: a line seen before is its stack again, without parsing. */
	struct seen *seen;
	size_t nseen, capseen;
	struct zt_hash_index seenix;
	char *seentext;
	size_t nseentext, capseentext;
	struct zt_strtab *waitix;	/* v5: the waits read, as d->waits' indices */
	/* The vdso section being read: 0 its "ADDR SIZE" line next, 1 its
	   bytes, 2 its lines ignored (a problem said, or a second section). */
	int vdso_state;
	size_t vdso_have;	/* its bytes read so far */
};

struct seen {
	uint32_t tid;
	size_t off, len;	/* in seentext */
	size_t stack;
};

/* A message about the line being read, place first (util.h's zt_err_at). */
static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zt_verr_at(r->err, r->errlen, r->name, r->lineno, fmt, ap);
	va_end(ap);
	return -1;
}

/* Next space-separated token of *s, NUL-terminated in place, or NULL. */
static char *token(char **s)
{
	char *p = *s, *start;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

/* A whole token as 1 to 16 hex digits. */
static int parse_hex(const char *t, uint64_t *v)
{
	const char *end = t + strlen(t);

	return zt_hex(t, end, v) == end ? 0 : -1;
}

/*
 * The digits from s up to end (a space, a tab or the NUL after them) as a
 * number; returns the first byte not parsed, or NULL when there is no
 * digit, another byte follows them, or the value may not fit 64 bits.
 */
static const char *dec_digits(const char *s, uint64_t *v)
{
	const char *end = s;

	/* The digits alone: not the rest of a long line. */
	while ((unsigned)(unsigned char)*end - '0' < 10)
		end++;
	end = zt_dec(s, end, v);

	if (!end || (*end && *end != ' ' && *end != '\t'))
		return NULL;
	return end;
}

static int parse_dec(const char *t, uint64_t *v)
{
	const char *end = dec_digits(t, v);

	return end && !*end ? 0 : -1;
}

/* The next word of *s as a number (parse_dec's), *s moved past it. */
static int dec_word(char **s, uint64_t *v)
{
	const char *end;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	if (!(end = dec_digits(*s, v)))
		return -1;
	*s += end - *s;
	return 0;
}

struct stack_key {
	uint32_t tid;
	uint32_t gen;
	uint32_t wait;
	int partial;
	int own;
	int alloc;
	uint64_t size;
	size_t n;
	const uint64_t *addr;
	const uint8_t *exact;
};

static int stack_eq(void *ctx, uint32_t i, const void *k)
{
	const struct zt_raw *d = ctx;
	const struct stack_key *key = k;
	const struct zt_stack *s = &d->stacks[i];

	return s->tid == key->tid && s->naddr == key->n && s->partial == key->partial &&
	       s->own == key->own && s->alloc == key->alloc && s->size == key->size &&
	       s->gen == key->gen && s->wait == key->wait &&
	       memcmp(&d->addr[s->first], key->addr, key->n * sizeof *key->addr) == 0 &&
	       memcmp(&d->exact[s->first], key->exact, key->n) == 0;
}

/* What a stack is besides its thread and addresses. */
struct stack_what {
	uint32_t gen;
	int partial;
	uint32_t wait;
	int own;
	int alloc;		/* enum zt_alloc_kind */
	uint64_t size;
};

/* A stack's what. */
static struct stack_what what_of(const struct zt_stack *s, uint32_t gen, int own)
{
	return (struct stack_what){ gen, s->partial, s->wait, own, s->alloc, s->size };
}

/* Count a stack in; returns its index among d->stacks. */
static size_t add_stack(struct zt_raw *d, uint32_t tid, struct stack_what w, uint64_t count,
			uint64_t weight, const uint64_t *addr, const uint8_t *exact, size_t n)
{
	struct stack_key key = { tid, w.gen, w.wait, w.partial, w.own, w.alloc, w.size,
				 n, addr, exact };
	uint64_t h = zt_hash(addr, n * sizeof *addr,
			     tid + ((uint64_t)w.partial << 32) + ((uint64_t)w.gen << 33) +
			     ((uint64_t)w.wait << 40) + ((uint64_t)w.own << 63) +
			     (uint64_t)w.alloc * 0x9e3779b97f4a7c15u + w.size * 0xff51afd7ed558ccdu);
	int64_t found;
	struct zt_stack *s;

	h = zt_hash(exact, n, h);
	found = zt_hash_index_find(&d->index, h, stack_eq, d, &key);
	if (found >= 0) {
		d->stacks[found].count += count;
		d->stacks[found].weight += weight;
		return (size_t)found;
	}
	size_t cap = d->capaddr;

	zt_grow(&d->addr, &d->capaddr, d->naddr + n, sizeof *d->addr);
	if (cap != d->capaddr || !d->exact)
		d->exact = zt_realloc(d->exact, d->capaddr);
	memcpy(&d->addr[d->naddr], addr, n * sizeof *addr);
	memcpy(&d->exact[d->naddr], exact, n);
	zt_grow(&d->stacks, &d->capstacks, d->nstacks + 1, sizeof *d->stacks);
	s = &d->stacks[d->nstacks];
	s->tid = tid;
	s->gen = w.gen;
	s->partial = w.partial;
	s->own = w.own;
	s->naddr = (uint32_t)n;
	s->first = d->naddr;
	s->count = count;
	s->wait = w.wait;
	s->weight = weight;
	s->alloc = w.alloc;
	s->size = w.size;
	d->naddr += n;
	zt_hash_index_add(&d->index, h, (uint32_t)d->nstacks);
	return d->nstacks++;
}

static int seen_eq(void *ctx, uint32_t i, const void *key)
{
	const struct reader *r = ctx;
	const struct seen *k = key, *e = &r->seen[i];

	return e->tid == k->tid && e->len == k->len &&
	       memcmp(r->seentext + e->off, r->lineend - k->len, k->len) == 0;
}

/*
 * The entry of a sample line whose text from words to the line's end, for
 * thread tid, was read before, or -1; *h is that text's hash either way.
 */
static int64_t seen_before(struct reader *r, uint32_t tid, const char *words, uint64_t *h)
{
	struct seen key = { .tid = tid, .len = (size_t)(r->lineend - words) };

	*h = zt_hash(words, key.len, tid);
	return zt_hash_index_find(&r->seenix, *h, seen_eq, r, &key);
}

static void remember(struct reader *r, uint32_t tid, const char *words, uint64_t h,
		     size_t stack)
{
	struct seen *e;
	size_t len = (size_t)(r->lineend - words);

	zt_grow(&r->seentext, &r->capseentext, r->nseentext + len, 1);
	memcpy(r->seentext + r->nseentext, words, len);
	zt_grow(&r->seen, &r->capseen, r->nseen + 1, sizeof *r->seen);
	e = &r->seen[r->nseen];
	e->tid = tid;
	e->off = r->nseentext;
	e->len = len;
	e->stack = stack;
	r->nseentext += len;
	zt_hash_index_add(&r->seenix, h, (uint32_t)r->nseen++);
}

/* The longest wait, decoded (formats/raw.md "Version 5"). */
#define WAIT_MAX 64

/* Whether c starts a v5 sample line's mark word ('@', '^', '!'; v6 '$'). */
static int is_mark(int c)
{
	return c == ZT_RAW_TIME_MARK || c == ZT_RAW_WEIGHT_MARK || c == ZT_RAW_WAIT_MARK ||
	       c == ZT_RAW_ALLOC_MARK;
}

static int mark_order(struct reader *r, char c)
{
	if (r->d->version >= ZT_RAW_VERSION_ALLOC)
		return fail(r, "sample: '%c' out of order (a sample line is 'tid count [@ns] "
			    "[^weight] [!wait | $kindSIZE] address...')", c);
	return fail(r, "sample: '%c' out of order (a sample line is 'tid count [@ns] [^weight] "
		    "[!wait] address...')", c);
}

/* The allocation kinds of a "$" word, by its letter: 0 "$a", 1 "$i", 2 "$p". */
static int alloc_letter(int c)
{
	return c == ZT_RAW_ALLOC_NEW ? 0 : c == ZT_RAW_ALLOC_INUSE ? 1 : c == ZT_RAW_ALLOC_PEAK ? 2 : -1;
}

/*
 * The "$kindSIZE" word at s (v6): *kind (0 "$a", 1 "$i", 2 "$p") and
 * *size. Returns the byte after it, or NULL after fail.
 */
static char *alloc_word(struct reader *r, char *s, int *kind, uint64_t *size)
{
	const char *end;
	char *p = s + 2;

	if ((*kind = alloc_letter((unsigned char)s[1])) < 0) {
		char *e = s + 1;

		while (*e && *e != ' ' && *e != '\t' && e < s + 21)
			e++;
		fail(r, "sample: allocation kind '%.*s' is not '%c', '%c' or '%c' (allocated, "
		     "live at the end, live at the peak)", (int)(e - s), s, ZT_RAW_ALLOC_NEW,
		     ZT_RAW_ALLOC_INUSE, ZT_RAW_ALLOC_PEAK);
		return NULL;
	}
	if (!(end = dec_digits(p, size))) {
		const char *t = p;

		while (*t >= '0' && *t <= '9')
			t++;
		fail(r, t > p && (!*t || *t == ' ' || *t == '\t') ?
			     "sample: allocation size past 2^63 bytes" :
			     "sample: allocation size is not a number");
		return NULL;
	}
	if (*size == 0) {
		fail(r, "sample: allocation size is zero");
		return NULL;
	}
	if (*size > (uint64_t)1 << 63) {
		fail(r, "sample: allocation size past 2^63 bytes");
		return NULL;
	}
	return p + (end - p);
}

uint64_t zt_raw_objects(uint64_t bytes, uint64_t size)
{
	uint64_t q = bytes / size, rem = bytes % size;

	/* Halves up; rem < size <= 2^63, so 2 rem fits. */
	return q + (2 * rem >= size);
}

int zt_raw_has_alloc(const struct zt_raw *d)
{
	return d->alloc_lines[0] || d->alloc_lines[1] || d->alloc_lines[2];
}

/*
 * Count an allocation line in: its kind's sums, and with store, its two
 * stacks (bytes and objects, made together, so the objects' is the next)
 * and timed lines. st is its bytes stack when the line was seen before,
 * else SIZE_MAX. Returns the bytes stack, or SIZE_MAX after fail.
 */
static size_t alloc_line(struct reader *r, uint32_t tid, int kind, uint64_t size,
			 uint64_t count, uint64_t weight, int partial, size_t n, size_t st,
			 int timed, uint64_t ns)
{
	struct zt_raw *d = r->d;
	uint64_t before, objects;

	if (d->alloc_lines[kind] > UINT64_MAX - count ||
	    d->alloc_weighed[kind] > UINT64_MAX - weight ||
	    count > UINT64_MAX / size || d->alloc_sized[kind] > UINT64_MAX - count * size) {
		fail(r, "sample: the allocation samples' sum passes 2^64 - 1 bytes");
		return SIZE_MAX;
	}
	d->alloc_lines[kind] += count;
	d->alloc_weighed[kind] += weight;
	d->alloc_sized[kind] += count * size;
	if (!r->store)
		return 0;
	if (st == SIZE_MAX) {
		struct stack_what w = { ZT_RAW_GEN_ANY, partial, 0, 0,
					ZT_ALLOC_SPACE + 2 * kind, size };

		st = add_stack(d, tid, w, 0, 0, r->tmp, r->tmpx, n);
		w.alloc++;
		add_stack(d, tid, w, 0, 0, r->tmp, r->tmpx, n);
	}
	/* The objects this line moves the stack's rounded total by. */
	before = d->stacks[st].weight;
	objects = zt_raw_objects(before + weight, size) - zt_raw_objects(before, size);
	d->stacks[st].count += count;
	d->stacks[st].weight += weight;
	d->stacks[st + 1].count += count;
	d->stacks[st + 1].weight += objects;
	if (timed) {
		zt_grow(&d->timed, &d->captimed, d->ntimed + 2, sizeof *d->timed);
		d->timed[d->ntimed++] = (struct zt_timed){ ns, st, count, weight };
		d->timed[d->ntimed++] = (struct zt_timed){ ns, st + 1, count, objects };
	}
	return st;
}

/*
 * The "!wait" word at s (v5): its text decoded, checked and interned into
 * *wait (1 + its index in d->waits). Returns the byte after it, or NULL
 * after fail.
 */
static char *wait_word(struct reader *r, char *s, uint32_t *wait)
{
	struct zt_raw *d = r->d;
	char buf[WAIT_MAX + 1];
	size_t n = 0;
	char *p = s + 1;
	uint32_t id;
	int isnew;

	for (; *p && *p != ' ' && *p != '\t'; p++) {
		int c = (unsigned char)*p;

		if (c == '\\') {
			if (p[1] < '0' || p[1] > '3' || p[2] < '0' || p[2] > '7' || p[3] < '0' ||
			    p[3] > '7' || (p[1] == '0' && p[2] == '0' && p[3] == '0')) {
				fail(r, "sample: wait: bad escape (a backslash wants three octal "
				     "digits, \\001 to \\377)");
				return NULL;
			}
			c = (p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0');
			p += 3;
		}
		if (n == WAIT_MAX) {
			fail(r, "sample: wait longer than " ZT_STR(WAIT_MAX) " bytes");
			return NULL;
		}
		buf[n++] = (char)c;
	}
	if (n == 0) {
		fail(r, "sample: empty wait after '%c'", ZT_RAW_WAIT_MARK);
		return NULL;
	}
	if (!r->waitix)
		r->waitix = zt_strtab_new();
	id = zt_strtab_intern(r->waitix, buf, n, &isnew);
	if (isnew) {
		char *w = zt_malloc(n + 1);

		memcpy(w, buf, n);
		w[n] = '\0';
		zt_grow(&d->waits, &d->capwaits, d->nwaits + 1, sizeof *d->waits);
		d->waits[d->nwaits++] = w;
	}
	*wait = id + 1;
	return p;
}

static int sample_line(struct reader *r, char *s)
{
	struct zt_raw *d = r->d;
	uint64_t tid = 0, count = 1, a, ns = 0, weight = 0, each = 0, size = 0;
	size_t n = 0, st;
	uint32_t wait = 0;
	int partial = 0, timed = 0, kind = -1, weighed = 0;
	char *after = NULL;
	int64_t hit;
	uint64_t h = 0;
	char *words = NULL;

	if (d->version >= 2) {
		if (dec_word(&s, &tid) || tid > UINT32_MAX)
			return fail(r, "sample: thread id is not a number");
		if (dec_word(&s, &count))
			return fail(r, "sample: count is not a number");
		if (count == 0)
			return fail(r, "sample: count is zero");
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (d->version >= 3 && *s == ZT_RAW_TIME_MARK) {
		const char *end = dec_digits(s + 1, &ns);

		if (!end) {
			const char *t = s + 1;

			while (*t >= '0' && *t <= '9')
				t++;
			return fail(r, t > s + 1 && (!*t || *t == ' ' || *t == '\t') ?
					       "sample: time past 2^64 - 1 ns" :
					       "sample: time is not a number");
		}
		/* A record's time is start-ns plus this: it must fit too. */
		if (ns > UINT64_MAX - d->start_ns)
			return fail(r, "sample: time past 2^64 - 1 ns after start-ns");
		if (ns > r->max_ns)
			r->max_ns = ns;
		s += end - s;
		timed = 1;
	}
	if (d->version >= 5) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ZT_RAW_TIME_MARK)
			return mark_order(r, *s);
		if (*s == ZT_RAW_WEIGHT_MARK) {
			const char *end = dec_digits(s + 1, &each);

			if (!end)
				return fail(r, "sample: weight is not a number of ns");
			if (each == 0)
				return fail(r, "sample: weight is zero");
			s += end - s;
			weighed = 1;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == ZT_RAW_TIME_MARK || *s == ZT_RAW_WEIGHT_MARK)
				return mark_order(r, *s);
		} else {
			/* A line without "^" weighs one period of the CPU timer. */
			each = 1000000000u / (d->hz ? d->hz : ZT_HZ_DEFAULT);
		}
		/* v6: an allocation's kind and size; the text from "$" on says
		   which stack, as the wait's does. */
		if (d->version >= ZT_RAW_VERSION_ALLOC && *s == ZT_RAW_ALLOC_MARK) {
			if (!weighed)
				return fail(r, "sample: an allocation sample ('%c') wants its weight "
					    "('%c', the bytes each sample stands for)",
					    ZT_RAW_ALLOC_MARK, ZT_RAW_WEIGHT_MARK);
			if (!(after = alloc_word(r, s, &kind, &size)))
				return -1;
			if (each < size)
				return fail(r, "sample: weight %llu below the allocation's size %llu "
					    "(a sample stands for its own bytes at least)",
					    (unsigned long long)each, (unsigned long long)size);
		}
		if (count > UINT64_MAX / each)
			return fail(r, kind >= 0 ? "sample: count times weight passes 2^64 - 1 bytes"
					: "sample: count times weight passes 2^64 - 1 ns");
		weight = count * each;
		if (kind < 0 && d->weight > UINT64_MAX - weight)
			return fail(r, "sample: the weights' sum passes 2^64 - 1 ns");
		if (kind < 0)
			d->weight += weight;
	}
	/* The wait is part of the stack: the text from it on says which. */
	if (r->store && (hit = seen_before(r, (uint32_t)tid, s, &h)) >= 0)
		goto counted;
	words = s;
	if (kind >= 0) {
		s = after;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ZT_RAW_WAIT_MARK)
			return fail(r, "sample: '%c' and '%c' never come together (an off-CPU "
				    "sample is no allocation)", ZT_RAW_WAIT_MARK, ZT_RAW_ALLOC_MARK);
		if (is_mark(*s))
			return mark_order(r, *s);
	} else if (d->version >= 5 && *s == ZT_RAW_WAIT_MARK) {
		if (!(s = wait_word(r, s, &wait)))
			return -1;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == ZT_RAW_ALLOC_MARK && d->version >= ZT_RAW_VERSION_ALLOC)
			return fail(r, "sample: '%c' and '%c' never come together (an off-CPU "
				    "sample is no allocation)", ZT_RAW_WAIT_MARK, ZT_RAW_ALLOC_MARK);
		if (is_mark(*s))
			return mark_order(r, *s);
	}
	/* The addresses, the bulk of a dump: one pass over each word. */
	for (;;) {
		char *w, *digits;
		int exact = n == 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		w = s;
		if (partial)
			return fail(r, "sample: '%c' is not the last word",
				    partial == ZT_STACK_DEPTH ? ZT_RAW_DEPTH_MARK : ZT_RAW_PARTIAL_MARK);
		if (w[0] == ZT_RAW_ALLOC_MARK && d->version < ZT_RAW_VERSION_ALLOC)
			return fail(r, "sample: '%c' (an allocation sample) in a version %d dump "
				    "(allocation samples are version %d)", ZT_RAW_ALLOC_MARK,
				    d->version, ZT_RAW_VERSION_ALLOC);
		if (d->version >= 5 && n == 0 && is_mark(w[0]))
			return mark_order(r, w[0]);
		if (d->version >= 3 && (w[0] == ZT_RAW_PARTIAL_MARK || w[0] == ZT_RAW_DEPTH_MARK) &&
		    (!w[1] || w[1] == ' ' || w[1] == '\t')) {
			partial = w[0] == ZT_RAW_DEPTH_MARK ? ZT_STACK_DEPTH : ZT_STACK_PARTIAL;
			s++;
			continue;
		}
		if (*w == ZT_RAW_EXACT_MARK) {
			exact = 1;
			w++;
		}
		if (!(digits = (char *)zt_hex(w, r->lineend, &a)) ||
		    (*digits && *digits != ' ' && *digits != '\t')) {
			s = w;
			while (*s && *s != ' ' && *s != '\t')
				s++;
			return fail(r, "sample: bad address '%.*s'",
				    (int)(s - w < 40 ? s - w : 40), w);
		}
		s = digits;
		if (n == r->captmp || n == r->captmpx) {
			zt_grow(&r->tmp, &r->captmp, n + 1, sizeof *r->tmp);
			zt_grow(&r->tmpx, &r->captmpx, n + 1, 1);
		}
		r->tmp[n] = a;
		r->tmpx[n] = (uint8_t)exact;
		n++;
	}
	if (n == 0)
		return fail(r, "sample has no addresses");
	hit = -1;
counted:
	if (kind >= 0) {
		/* Allocations are counted apart from the CPU samples. */
		if (!timed)
			d->nuntimed += d->nuntimed <= UINT64_MAX - count ? count : 0;
		st = alloc_line(r, (uint32_t)tid, kind, size, count, weight, partial, n,
				hit >= 0 ? r->seen[hit].stack : SIZE_MAX, timed, ns);
		if (st == SIZE_MAX)
			return -1;
		if (r->store && hit < 0)
			remember(r, (uint32_t)tid, words, h, st);
		return 0;
	}
	if (d->nsamples > UINT64_MAX - count)
		return fail(r, "sample: count overflows");
	d->nsamples += count;
	if (wait)
		d->nwaiting += count;
	if (!timed)
		d->nuntimed += count;
	if (r->store) {
		if (hit < 0) {
			struct stack_what w = { ZT_RAW_GEN_ANY, partial, wait, 0, 0, 0 };

			st = add_stack(d, (uint32_t)tid, w, count, weight, r->tmp, r->tmpx, n);
			remember(r, (uint32_t)tid, words, h, st);
		} else {
			st = r->seen[hit].stack;
			d->stacks[st].count += count;
			d->stacks[st].weight += weight;
		}
		if (timed) {
			zt_grow(&d->timed, &d->captimed, d->ntimed + 1, sizeof *d->timed);
			d->timed[d->ntimed].ns = ns;
			d->timed[d->ntimed].stack = st;
			d->timed[d->ntimed].count = count;
			d->timed[d->ntimed].weight = weight;
			d->ntimed++;
		}
	}
	return 0;
}

static int number_value(struct reader *r, const char *key, char *v, uint64_t *out)
{
	if (parse_dec(v, out))
		return fail(r, "%s is not a number", key);
	return 0;
}

/* A "label KEY VALUE" line: a key once, by the label rules (rawfmt.h). */
static int label_line(struct reader *r, struct zt_raw *d, const char *v)
{
	const char *sp = strchr(v, ' ');
	size_t kn = sp ? (size_t)(sp - v) : strlen(v);
	const char *val = sp ? sp + 1 : "";

	if (!zt_label_key_ok(v, kn))
		return fail(r, "label: '%.*s' is not a label key (1 to %d letters, digits, "
			    "'_', '.' or '-', a letter or '_' first)", (int)(kn > 80 ? 80 : kn), v,
			    ZT_LABEL_KEY_MAX);
	if (!zt_label_value_ok(val, strlen(val)))
		return fail(r, "label %.*s: the value is longer than %d bytes or holds a "
			    "control character or a backslash", (int)kn, v, ZT_LABEL_VALUE_MAX);
	for (size_t i = 0; i < d->nlabels; i++)
		if (strlen(d->labels[i].key) == kn && memcmp(d->labels[i].key, v, kn) == 0)
			return fail(r, "label %.*s: given twice", (int)kn, v);
	if (d->nlabels >= ZT_LABELS_MAX)
		return fail(r, "label: more than %d labels", ZT_LABELS_MAX);
	zt_grow(&d->labels, &d->caplabels, d->nlabels + 1, sizeof *d->labels);
	d->labels[d->nlabels].key = zt_strndup(v, kn);
	d->labels[d->nlabels++].value = zt_strdup(val);
	return 0;
}

/* A "key value" line of the header or the summary; unknown keys are ignored. */
static int key_line(struct reader *r, char *line)
{
	struct zt_raw *d = r->d;
	char *s = line, *key = token(&s), *v;
	uint64_t x;

	while (*s == ' ' || *s == '\t')
		s++;
	v = s;
	if (!key)
		return 0;
	if (strcmp(key, ZT_RAW_HZ) == 0) {
		if (number_value(r, key, v, &x))
			return -1;
		if (x > ZT_HZ_MAX)
			return fail(r, "hz %llu is out of range (0 to " ZT_STR(ZT_HZ_MAX) ")",
				    (unsigned long long)x);
		d->hz = (unsigned)x;
	} else if (strcmp(key, ZT_RAW_DROPPED) == 0 || strcmp(key, ZT_RAW_LOST) == 0) {
		char *rest = v, *num = token(&rest);

		if (!num || number_value(r, key, num, &d->lost))
			return num ? -1 : fail(r, "%s is not a number", key);
		while (*rest == ' ')
			rest++;
		free(d->lost_detail);
		d->lost_detail = *rest ? zt_strdup(rest) : NULL;
	} else if (strcmp(key, ZT_RAW_PID) == 0) {
		if (number_value(r, key, v, &d->pid))
			return -1;
		d->have_pid = 1;
	} else if (strcmp(key, ZT_RAW_EXE) == 0) {
		free(d->exe);
		d->exe = zt_strdup(v);
		zt_escape_decode(d->exe);
	} else if (strcmp(key, ZT_RAW_HOST) == 0) {
		if (!zt_label_value_ok(v, strlen(v)))
			return fail(r, "%s: not a host name (at most %d bytes, no control "
				    "character or backslash)", key, ZT_LABEL_VALUE_MAX);
		free(d->host);
		d->host = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_LABEL) == 0) {
		return label_line(r, d, v);
	} else if (strcmp(key, ZT_RAW_TIMER) == 0) {
		free(d->timer);
		d->timer = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_MAX_DEPTH) == 0) {
		return number_value(r, key, v, &d->max_depth);
	} else if (strcmp(key, ZT_RAW_RATE_CAP) == 0) {
		free(d->rate_cap);
		d->rate_cap = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_SIGNAL) == 0) {
		if (number_value(r, key, v, &x))
			return -1;
		if (x > 64)
			return fail(r, "signal %llu is out of range (1 to 64)", (unsigned long long)x);
		d->signo = (unsigned)x;
	} else if (strcmp(key, ZT_RAW_SIGNAL_TAKEN) == 0) {
		size_t had = d->signal_taken ? strlen(d->signal_taken) : 0;
		char *both = zt_malloc(had + strlen(v) + 3);

		if (had) {
			memcpy(both, d->signal_taken, had);
			memcpy(both + had, ", ", 2);
			had += 2;
		}
		strcpy(both + had, v);
		free(d->signal_taken);
		d->signal_taken = both;
	} else if (strcmp(key, ZT_RAW_PROGRAM_SIGPROF) == 0) {
		free(d->conflict);
		d->conflict = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_SECCOMP) == 0) {
		free(d->seccomp);
		d->seccomp = zt_strdup(v);
		zt_escape_decode(d->seccomp);
	} else if (strcmp(key, ZT_RAW_UNREACHED) == 0) {
		zt_grow(&d->unreached, &d->capunreached, d->nunreached + 1, sizeof *d->unreached);
		d->unreached[d->nunreached] = zt_strdup(v);
		zt_escape_decode(d->unreached[d->nunreached++]);
	} else if (strcmp(key, ZT_RAW_EXEC) == 0) {
		free(d->exec);
		d->exec = zt_strdup(v);
		zt_escape_decode(d->exec);
	} else if (strcmp(key, ZT_RAW_FINISHED) == 0) {
		free(d->finished);
		d->finished = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_FINISHED_BUFFERS) == 0) {
		d->finished_known = 1;
		return number_value(r, key, v, &d->finished_buffers);
	} else if (strcmp(key, ZT_RAW_FINISHED_UNKNOWN) == 0) {
		d->finished_known = 1;
		return number_value(r, key, v, &d->finished_unknown);
	} else if (strcmp(key, ZT_RAW_UNSAMPLED) == 0) {
		return number_value(r, key, v, &d->unsampled);
	} else if (strcmp(key, ZT_RAW_TRUNCATED) == 0) {
		return number_value(r, key, v, &d->truncated);
	} else if (strcmp(key, ZT_RAW_UNSAMPLED_CPU_NS) == 0) {
		return number_value(r, key, v, &d->unsampled_cpu_ns);
	} else if (strcmp(key, ZT_RAW_UNSAMPLED_BLOCKED_NS) == 0) {
		return number_value(r, key, v, &d->unsampled_blocked_ns);
	} else if (strcmp(key, ZT_RAW_SIGPROF_BLOCKED) == 0) {
		return number_value(r, key, v, &d->sigprof_blocked);
	} else if (strcmp(key, ZT_RAW_TIMERS_LOST) == 0) {
		return number_value(r, key, v, &d->timers_lost);
	} else if (strcmp(key, ZT_RAW_TIMER_FALLBACK) == 0) {
		return number_value(r, key, v, &d->timer_fallback);
	} else if (strcmp(key, ZT_RAW_DUMP_REOPENED) == 0) {
		return number_value(r, key, v, &d->dump_reopened);
	} else if (strcmp(key, ZT_RAW_WINDOWS) == 0) {
		d->have_windows = 1;
		return number_value(r, key, v, &d->windows);
	} else if (strcmp(key, ZT_RAW_WINDOW_NS) == 0) {
		return number_value(r, key, v, &d->window_ns);
	} else if (strcmp(key, ZT_RAW_SNAPSHOT) == 0) {
		return number_value(r, key, v, &d->snapshot);
	} else if (strcmp(key, ZT_RAW_SNAPSHOTS) == 0) {
		return number_value(r, key, v, &d->snapshots);
	} else if (strcmp(key, ZT_RAW_PARTIAL) == 0) {
		d->have_partial = 1;
		return number_value(r, key, v, &d->partial);
	} else if (strcmp(key, ZT_RAW_START_NS) == 0) {
		if (number_value(r, key, v, &d->start_ns) < 0)
			return -1;
		if (r->max_ns > UINT64_MAX - d->start_ns)
			return fail(r, "%s: a sample's time after it passes 2^64 - 1 ns", key);
		return 0;
	} else if (strcmp(key, ZT_RAW_ZT_CODE) == 0 || strcmp(key, ZT_RAW_ZT_HANDOVER) == 0) {
		int code = strcmp(key, ZT_RAW_ZT_CODE) == 0;
		char *dash = strchr(v, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		if (!dash || parse_hex(v, &lo) < 0 || parse_hex(dash + 1, &hi) < 0 || lo >= hi)
			return fail(r, "%s wants START-END, two hex addresses, START below END", key);
		if (code) {
			d->have_zt_code = 1;
			d->zt_code_lo = lo;
			d->zt_code_hi = hi;
		} else {
			d->have_zt_handover = 1;
			d->zt_handover_lo = lo;
			d->zt_handover_hi = hi;
		}
	} else if (strcmp(key, ZT_RAW_START_TIME_NS) == 0) {
		return number_value(r, key, v, &d->start_time_ns);
	} else if (strcmp(key, ZT_RAW_ARCH) == 0) {
		/* Addresses of another machine must never be read as this one's:
		 * an architecture zt does not know ends the dump. */
		int a = zt_arch_by_name(v);

		if (a < 0)
			return fail(r, "%s '%.40s' is not one zt reads (" ZT_ARCH_NAMES ")", key, v);
		d->arch = a;
	} else if (strcmp(key, ZT_RAW_UNWIND) == 0) {
		free(d->unwind);
		d->unwind = zt_strdup(v);
	} else if (strcmp(key, ZT_RAW_CPU_NS) == 0) {
		d->have_cpu = 1;
		return number_value(r, key, v, &d->cpu_ns);
	} else if (strcmp(key, ZT_RAW_CPU_USER_NS) == 0) {
		return number_value(r, key, v, &d->cpu_user_ns);
	} else if (strcmp(key, ZT_RAW_PERFMAP_LINES) == 0) {
		return number_value(r, key, v, &d->perfmap_lines);
	} else if (strcmp(key, ZT_RAW_PERFMAP_SKIPPED) == 0) {
		return number_value(r, key, v, &d->perfmap_skipped);
	} else if (strcmp(key, ZT_RAW_PERFMAP_TRUNCATED) == 0) {
		d->perfmap_truncated = 1;
	} else if (strcmp(key, ZT_RAW_PERFMAP_REFUSED) == 0) {
		d->perfmap_refused = 1;
	} else if (strcmp(key, ZT_RAW_CPU_SYS_NS) == 0) {
		return number_value(r, key, v, &d->cpu_sys_ns);
	} else if (strcmp(key, ZT_RAW_SAMPLED_USER_NS) == 0) {
		d->have_sampled |= 1;
		return number_value(r, key, v, &d->sampled_user_ns);
	} else if (strcmp(key, ZT_RAW_SAMPLED_SYS_NS) == 0) {
		d->have_sampled |= 2;
		return number_value(r, key, v, &d->sampled_sys_ns);
	} else if (strcmp(key, ZT_RAW_CPU_USER_START_NS) == 0) {
		return number_value(r, key, v, &d->cpu_user_start_ns);
	} else if (strcmp(key, ZT_RAW_CPU_SYS_START_NS) == 0) {
		return number_value(r, key, v, &d->cpu_sys_start_ns);
	} else if (strcmp(key, ZT_RAW_ZT_SETUP_NS) == 0) {
		return number_value(r, key, v, &d->zt_setup_ns);
	} else if (strcmp(key, ZT_RAW_ZT_EXIT_NS) == 0) {
		return number_value(r, key, v, &d->zt_exit_ns);
	} else if (strcmp(key, ZT_RAW_CPU_CHILDREN_NS) == 0) {
		d->have_cpu_children = 1;
		return number_value(r, key, v, &d->cpu_children_ns);
	} else if (strcmp(key, ZT_RAW_REAPED_UNRECORDED) == 0) {
		return number_value(r, key, v, &d->reaped_unrecorded);
	} else if (strcmp(key, ZT_RAW_REAPED) == 0) {
		char *p = v, *pid = token(&p), *ns;
		struct zt_raw_reaped e;

		while (*p == ' ' || *p == '\t')
			p++;
		ns = p;
		if (!pid || parse_dec(pid, &e.pid) || parse_dec(ns, &e.ns))
			return fail(r, "reaped is not 'PID NS'");
		zt_grow(&d->reaped, &d->capreaped, d->nreaped + 1, sizeof *d->reaped);
		d->reaped[d->nreaped++] = e;
	} else if (strcmp(key, ZT_RAW_PROFILE_CLOCK) == 0) {
		if (strcmp(v, ZT_RAW_PROFILE_WALL) == 0 && d->version < ZT_RAW_VERSION_WALL)
			return fail(r, "%s " ZT_RAW_PROFILE_WALL " needs version %d, not %d",
				    key, ZT_RAW_VERSION_WALL, d->version);
		else if (strcmp(v, ZT_RAW_PROFILE_WALL) == 0)
			d->wall = 1;
		else if (strcmp(v, ZT_RAW_PROFILE_CPU) == 0)
			d->wall = 0;
		else
			return fail(r, "%s wants '" ZT_RAW_PROFILE_CPU "' or '" ZT_RAW_PROFILE_WALL
				    "', not '%.20s'", key, v);
	} else if (strcmp(key, ZT_RAW_OFF_CPU_HZ) == 0) {
		if (number_value(r, key, v, &x))
			return -1;
		if (x < 1 || x > 1000)
			return fail(r, "%s %llu is out of range (1 to 1000)", key,
				    (unsigned long long)x);
		d->off_cpu_hz = (unsigned)x;
	} else if (strcmp(key, ZT_RAW_OFF_CPU_SAMPLES) == 0) {
		d->have_off_cpu = 1;
		return number_value(r, key, v, &d->off_cpu_samples);
	} else if (strcmp(key, ZT_RAW_OFF_CPU_REPEATED) == 0) {
		return number_value(r, key, v, &d->off_cpu_repeated);
	} else if (strcmp(key, ZT_RAW_OFF_CPU_TORN) == 0) {
		return number_value(r, key, v, &d->off_cpu_torn);
	} else if (strcmp(key, ZT_RAW_OFF_CPU_FOREIGN) == 0) {
		return number_value(r, key, v, &d->off_cpu_foreign);
	} else if (strcmp(key, ZT_RAW_OFF_CPU_BLIND) == 0) {
		return number_value(r, key, v, &d->off_cpu_blind);
	} else if (strcmp(key, ZT_RAW_SAMPLER_CPU_NS) == 0) {
		return number_value(r, key, v, &d->sampler_cpu_ns);
	} else if (strcmp(key, ZT_RAW_WALL_NS) == 0) {
		d->have_wall_ns = 1;
		return number_value(r, key, v, &d->wall_ns);
	} else if (strcmp(key, ZT_RAW_ALLOC_ALLOCATOR) == 0) {
		free(d->alloc_allocator);
		d->alloc_allocator = zt_strdup(v);
		zt_escape_decode(d->alloc_allocator);
	} else if (strcmp(key, ZT_RAW_ALLOC_RATE) == 0) {
		if (number_value(r, key, v, &x))
			return -1;
		if (x < 1 || x > ZT_ALLOC_RATE_MAX)
			return fail(r, "%s %llu is out of range (1 to 2^40 bytes)", key,
				    (unsigned long long)x);
		d->alloc_rate = x;
	} else {
		static const char *const keys[] = {
			ZT_RAW_ALLOC_CALLS, ZT_RAW_ALLOC_BYTES, ZT_RAW_ALLOC_SAMPLES,
			ZT_RAW_ALLOC_PEAK_BYTES, ZT_RAW_ALLOC_PEAK_NS, ZT_RAW_ALLOC_INUSE_BYTES,
			ZT_RAW_ALLOC_UNTRACKED, ZT_RAW_ALLOC_LOST,
		};
		uint64_t *const to[] = {
			&d->alloc_calls, &d->alloc_bytes, &d->alloc_samples, &d->alloc_peak_bytes,
			&d->alloc_peak_ns, &d->alloc_inuse_bytes, &d->alloc_untracked,
			&d->alloc_lost,
		};

		/* v6's summary keys: numbers, each said once. */
		if (strncmp(key, "alloc-", 6) != 0)
			return 0;
		for (unsigned i = 0; i < sizeof keys / sizeof *keys; i++)
			if (strcmp(key, keys[i]) == 0) {
				d->have_alloc_summary |= 1u << i;
				return number_value(r, key, v, to[i]);
			}
	}
	return 0;
}

/*
 * "= @ns", a v4 maps section's only line: the mappings of the earlier
 * snapshot read at ns, copied into this one.
 */
static int same_line(struct reader *r, const char *line)
{
	struct zt_raw *d = r->d;
	struct zt_snapshot *sn = &d->snaps[r->snap];
	uint64_t ns;
	size_t k;

	if (line[1] != ' ' || line[2] != ZT_RAW_TIME_MARK || parse_dec(line + 3, &ns))
		return fail(r, "maps: bad reference (expected '= @NS')");
	if (sn->n > 0 || sn->same)
		return fail(r, "maps: a section with '= @NS' holds nothing else");
	for (k = (size_t)r->snap; k > 0; k--)
		if (d->snaps[k - 1].timed && d->snaps[k - 1].ns == ns)
			break;
	if (k == 0)
		return fail(r, "maps: no earlier snapshot at @%llu", (unsigned long long)ns);
	sn->same = 1;
	for (size_t i = 0, n = d->snaps[k - 1].n, first = d->snaps[k - 1].first; i < n; i++) {
		struct zt_map m = d->maps[first + i];

		m.path = zt_strdup(m.path);
		m.seq = d->nmaps;
		m.snap = (uint32_t)r->snap;
		sn->n++;
		zt_grow(&d->maps, &d->capmaps, d->nmaps + 1, sizeof *d->maps);
		d->maps[d->nmaps++] = m;
	}
	return 0;
}

static int maps_line(struct reader *r, const char *line)
{
	struct zt_raw *d = r->d;
	struct zt_map m;
	char why[ZT_ERR_MAX];

	if (d->version >= 4 && line[0] == ZT_RAW_SAME_MARK)
		return same_line(r, line);
	if (d->snaps[r->snap].same)
		return fail(r, "maps: a section with '= @NS' holds nothing else");
	if (zt_maps_parse(line, &m, why, sizeof why) < 0)
		return fail(r, "%s", why);
	zt_escape_decode(m.path);
	m.seq = d->nmaps;
	m.snap = (uint32_t)r->snap;
	d->snaps[r->snap].n++;
	zt_grow(&d->maps, &d->capmaps, d->nmaps + 1, sizeof *d->maps);
	d->maps[d->nmaps++] = m;
	return 0;
}

static int buildid_line(struct reader *r, char *s)
{
	struct zt_raw *d = r->d;
	char *a = token(&s), *hex = token(&s);
	uint64_t addr, dummy, ns = 0;
	int timed = 0;
	size_t n;

	if (!a || parse_hex(a, &addr))
		return fail(r, "buildids: bad address");
	if (d->version >= 4 && hex && hex[0] == ZT_RAW_TIME_MARK) {
		if (parse_dec(hex + 1, &ns))
			return fail(r, "buildids: time is not a number");
		timed = 1;
		hex = token(&s);
	}
	if (!hex || (n = strlen(hex)) < 2 || n > 128 || n % 2)
		return fail(r, "buildids: bad build-id");
	/* 16 digits at a time: zt_hex stops at what fits in 64 bits. */
	for (size_t i = 0; i < n; i += 16) {
		const char *e = hex + (n - i < 16 ? n : i + 16);

		if (zt_hex(hex + i, e, &dummy) != e)
			return fail(r, "buildids: bad build-id");
	}
	while (*s == ' ')
		s++;
	zt_grow(&d->buildids, &d->capbuildids, d->nbuildids + 1, sizeof *d->buildids);
	d->buildids[d->nbuildids].addr = addr;
	d->buildids[d->nbuildids].ns = ns;
	d->buildids[d->nbuildids].timed = timed;
	d->buildids[d->nbuildids].hex = zt_strdup(hex);
	for (char *p = d->buildids[d->nbuildids].hex; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	d->buildids[d->nbuildids].path = zt_strdup(s);
	zt_escape_decode(d->buildids[d->nbuildids].path);
	d->nbuildids++;
	return 0;
}

static int thread_line(struct reader *r, char *s)
{
	struct zt_raw *d = r->d;
	char *t = token(&s);
	uint64_t tid;

	if (!t || parse_dec(t, &tid) || tid > UINT32_MAX)
		return fail(r, "threads: thread id is not a number");
	while (*s == ' ')
		s++;
	zt_grow(&d->threads, &d->capthreads, d->nthreads + 1, sizeof *d->threads);
	d->threads[d->nthreads].tid = (uint32_t)tid;
	d->threads[d->nthreads].name = zt_strdup(s);
	zt_escape_decode(d->threads[d->nthreads].name);
	d->nthreads++;
	return 0;
}

static int snapmap_holds(const void *p, uint64_t addr)
{
	const struct zt_snapmap *m = p;

	return addr >= m->start && addr < m->end;
}

#define SNAP_RANGES(s) ZT_RANGES((s)->sm, (s)->n, struct zt_snapmap, start, up, snapmap_holds)

/* Timed snapshots by time; equal times keep the dump's order. */
static int by_ns(const void *a, const void *b, void *ctx)
{
	const struct zt_raw *d = ctx;
	const struct zt_snapshot *x = &d->snaps[*(const size_t *)a];
	const struct zt_snapshot *y = &d->snaps[*(const size_t *)b];

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Each snapshot's mappings by start, and the timed snapshots by time. */
static void index_snapshots(struct zt_raw *d)
{
	size_t *fill = zt_calloc(d->nsnaps ? d->nsnaps : 1, sizeof *fill);

	for (size_t i = 0; i < d->nsnaps; i++)
		d->snaps[i].sm = zt_calloc(d->snaps[i].n ? d->snaps[i].n : 1,
					   sizeof *d->snaps[i].sm);
	for (size_t i = 0; i < d->nmaps; i++) {
		uint32_t s = d->maps[i].snap;
		struct zt_snapmap *sm = &d->snaps[s].sm[fill[s]++];

		sm->start = d->maps[i].start;
		sm->end = d->maps[i].end;
		sm->map = i;
	}
	free(fill);
	for (size_t i = 0; i < d->nsnaps; i++)
		zt_ranges_link(&SNAP_RANGES(&d->snaps[i]));
	d->bytime = zt_calloc(d->nsnaps ? d->nsnaps : 1, sizeof *d->bytime);
	for (size_t i = 0; i < d->nsnaps; i++)
		if (d->snaps[i].timed)
			d->bytime[d->nbytime++] = i;
	qsort_r(d->bytime, d->nbytime, sizeof *d->bytime, by_ns, d);
}

/*
 * The gen of a sample taken at ns: 1 + the position, among the timed
 * snapshots by time, of the last one read at or before ns; 0 before the
 * first. ZT_RAW_GEN_ANY when fewer than two snapshots have a time.
 */
static uint32_t gen_of(const struct zt_raw *d, uint64_t ns)
{
	size_t lo = 0, hi = d->nbytime;

	if (d->nbytime < 2)
		return ZT_RAW_GEN_ANY;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->snaps[d->bytime[mid]].ns <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* The mapping of snapshot s that holds addr, or NULL. */
static const struct zt_map *snap_find(const struct zt_raw *d, const struct zt_snapshot *s,
				      uint64_t addr)
{
	size_t i = zt_ranges_holder(&SNAP_RANGES(s), addr);

	return i ? &d->maps[s->sm[i - 1].map] : NULL;
}

const struct zt_map *zt_raw_map_at(const struct zt_raw *d, uint64_t addr, uint32_t gen)
{
	const struct zt_map *m = NULL;

	if (gen == ZT_RAW_GEN_ANY || d->nbytime < 2 || gen > d->nbytime)
		return zt_maps_find(d->maps, d->nmaps, addr);
	if (gen > 0)
		m = snap_find(d, &d->snaps[d->bytime[gen - 1]], addr);
	if (!m && gen < d->nbytime)
		m = snap_find(d, &d->snaps[d->bytime[gen]], addr);
	return m;
}

/*
 * Empty d's stacks, addresses and their index for add_stack to fill anew;
 * the caller has kept the old arrays (and frees them).
 */
static void stacks_restart(struct zt_raw *d)
{
	d->stacks = NULL;
	d->nstacks = d->capstacks = 0;
	d->addr = NULL;
	d->exact = NULL;
	d->naddr = d->capaddr = 0;
	zt_hash_index_free(&d->index);
	memset(&d->index, 0, sizeof d->index);
}

/*
 * Stacks by snapshot: the samples of a stack taken under different maps
 * become stacks of their own, so that each is named from its own maps.
 * Samples without a time keep ZT_RAW_GEN_ANY.
 */
static void split_by_gen(struct zt_raw *d)
{
	struct zt_stack *old = d->stacks;
	uint64_t *oaddr = d->addr;
	uint8_t *oexact = d->exact;
	size_t nold = d->nstacks;
	uint64_t *left, *leftw;
	uint32_t *lastgen;
	size_t *lastnew;	/* 1 + the stack, 0 for none yet */

	if (d->nbytime < 2)
		return;
	left = zt_calloc(nold ? nold : 1, sizeof *left);
	leftw = zt_calloc(nold ? nold : 1, sizeof *leftw);
	for (size_t i = 0; i < nold; i++) {
		left[i] = old[i].count;
		leftw[i] = old[i].weight;
	}
	for (size_t i = 0; i < d->ntimed; i++) {
		left[d->timed[i].stack] -= d->timed[i].count;
		leftw[d->timed[i].stack] -= d->timed[i].weight;
	}
	stacks_restart(d);
	/* A stack's samples come mostly under one snapshot after another: the
	   last (stack, gen) it went to is kept, and a sample under the same
	   gen is counted in without hashing its addresses again. */
	lastgen = zt_calloc(nold ? nold : 1, sizeof *lastgen);
	lastnew = zt_calloc(nold ? nold : 1, sizeof *lastnew);
	for (size_t i = 0; i < d->ntimed; i++) {
		size_t o = d->timed[i].stack;
		const struct zt_stack *s = &old[o];
		uint32_t gen = gen_of(d, d->timed[i].ns);

		if (lastnew[o] && lastgen[o] == gen) {
			struct zt_stack *n = &d->stacks[lastnew[o] - 1];

			n->count += d->timed[i].count;
			n->weight += d->timed[i].weight;
			d->timed[i].stack = lastnew[o] - 1;
			continue;
		}
		d->timed[i].stack = add_stack(d, s->tid, what_of(s, gen, 0), d->timed[i].count,
					      d->timed[i].weight, oaddr + s->first,
					      oexact + s->first, s->naddr);
		lastgen[o] = gen;
		lastnew[o] = d->timed[i].stack + 1;
	}
	free(lastgen);
	free(lastnew);
	for (size_t i = 0; i < nold; i++)
		if (left[i])
			add_stack(d, old[i].tid, what_of(&old[i], ZT_RAW_GEN_ANY, 0), left[i],
				  leftw[i], oaddr + old[i].first, oexact + old[i].first,
				  old[i].naddr);
	free(left);
	free(leftw);
	free(old);
	free(oaddr);
	free(oexact);
}

/*
 * The collector's own frames (formats/raw.md "zt-code"). Each frame of a
 * stack is the program's (P), the C library's or the loader's (R: what zt
 * itself calls, named below), zt's own (Z: in zt-code), or one of zt's
 * interposers or its start trampoline (H: in zt-handover), which hand over
 * to the real function or to the thread's start routine.
 */
enum own_class { OWN_P, OWN_R, OWN_Z, OWN_H };

/* Whether a mapped file is the C library, the loader, the vDSO, or a
   library zt's own code calls into (libz): the runtime under zt's work. */
static int runtime_path(const char *path)
{
	static const char *const prefixes[] = {
		"libc.so", "libc-", "ld-linux", "ld-2.", "ld.so", "ld-musl-", "libpthread.so",
		"libpthread-", "libdl.so", "libdl-", "librt.so", "librt-", "libz.so",
	};
	const char *base = zt_maps_basename(path);

	if (strcmp(path, "[vdso]") == 0 || strcmp(path, "[vsyscall]") == 0)
		return 1;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static enum own_class own_class(const struct zt_raw *d, uint64_t addr, int exact,
				uint32_t gen)
{
	uint64_t a = exact || addr == 0 ? addr : addr - 1;
	const struct zt_map *m;

	if (d->have_zt_handover && a >= d->zt_handover_lo && a < d->zt_handover_hi)
		return OWN_H;
	if (a >= d->zt_code_lo && a < d->zt_code_hi)
		return OWN_Z;
	m = zt_raw_map_at(d, a, gen);
	return m && runtime_path(m->path) ? OWN_R : OWN_P;
}

/*
 * Each stack's frames of zt's own, rewritten (formats/folded.md, "zt's
 * own work"). L is the leafmost frame of zt's (Z or H; the leaf itself,
 * an interposer running its own code, counts as Z):
 *   - none: the stack is as it was;
 *   - L is an interposer (H), or program code (P) lies leafward of it: zt
 *     only handed over (to the real function, to the thread's start
 *     routine, to the program's signal handler); zt's frames are dropped,
 *     the rest is the program's;
 *   - otherwise zt is doing its own work, perhaps inside libc or the
 *     loader: from L rootward over Z and R frames up to the first P or H
 *     frame, the rootmost Z frame C is the cut; C and every frame leafward
 *     of it become the one leaf "[zt]" (own), and zt's frames rootward of
 *     C are dropped.
 * Stacks that become alike are counted as one; the timed lines follow.
 */
static void own_frames(struct zt_raw *d)
{
	struct zt_stack *old = d->stacks;
	uint64_t *oaddr = d->addr;
	uint8_t *oexact = d->exact;
	size_t nold = d->nstacks, *newof, cap = 0;
	uint64_t *a = NULL;
	uint8_t *x = NULL;
	enum own_class *c = NULL;
	int touched = 0;

	if (!d->have_zt_code)
		return;
	for (size_t i = 0; i < nold && !touched; i++)
		for (size_t j = old[i].first; j < old[i].first + old[i].naddr && !touched; j++)
			touched = own_class(d, oaddr[j], oexact[j], old[i].gen) >= OWN_Z;
	if (!touched)
		return;
	newof = zt_calloc(nold ? nold : 1, sizeof *newof);
	stacks_restart(d);
	for (size_t i = 0; i < nold; i++) {
		const struct zt_stack *st = &old[i];
		const uint64_t *sa = oaddr + st->first;
		const uint8_t *sx = oexact + st->first;
		size_t n = st->naddr, L = n, from = 0, k = 0;
		int own = 0;

		if (n >= cap) {
			cap = n + 1;
			a = zt_realloc(a, cap * sizeof *a);
			x = zt_realloc(x, cap);
			c = zt_realloc(c, cap * sizeof *c);
		}
		for (size_t j = 0; j < n; j++) {
			c[j] = own_class(d, sa[j], sx[j], st->gen);
			if (j == 0 && c[j] == OWN_H)
				c[j] = OWN_Z;
			if (L == n && c[j] >= OWN_Z)
				L = j;
		}
		if (L < n && c[L] == OWN_Z) {
			size_t cut = L;

			own = 1;
			for (size_t j = 0; j < L; j++)
				if (c[j] == OWN_P)
					own = 0;
			for (size_t j = L + 1; own && j < n && c[j] != OWN_P && c[j] != OWN_H; j++)
				if (c[j] == OWN_Z)
					cut = j;
			if (own)
				from = cut + 1;
		}
		for (size_t j = from; j < n; j++)
			if (c[j] < OWN_Z) {
				a[k] = sa[j];
				x[k++] = sx[j];
			}
		newof[i] = add_stack(d, st->tid, what_of(st, st->gen, own), st->count,
				     st->weight, a, x, k);
		if (own && !st->alloc)
			d->own_samples += st->count;
	}
	for (size_t i = 0; i < d->ntimed; i++)
		d->timed[i].stack = newof[d->timed[i].stack];
	free(newof);
	free(a);
	free(x);
	free(c);
	free(old);
	free(oaddr);
	free(oexact);
}

/*
 * A perfmap line, "START SIZE NAME" as the collector rewrote the program's
 * /tmp/perf-PID.map: hex, hex (not 0), then the escaped name.
 */
static int perfmap_line(struct reader *r, char *s)
{
	struct zt_raw *d = r->d;
	char *a = token(&s), *n = token(&s);
	uint64_t start, size;
	struct zt_jitsym *j;

	if (!a || parse_hex(a, &start))
		return fail(r, "perfmap: bad start address");
	if (!n || parse_hex(n, &size) || size == 0)
		return fail(r, "perfmap: bad size");
	if (start + size < start)
		return fail(r, "perfmap: range past the end of the address space");
	while (*s == ' ')
		s++;
	if (!*s)
		return fail(r, "perfmap: no name");
	zt_grow(&d->jit, &d->capjit, d->njit + 1, sizeof *d->jit);
	j = &d->jit[d->njit];
	j->start = start;
	j->end = start + size;
	j->up = 0;
	j->seq = d->njit++;
	j->name = zt_strdup(s);
	zt_escape_decode(j->name);
	return 0;
}

static int jit_holds(const void *p, uint64_t addr)
{
	const struct zt_jitsym *j = p;

	return addr >= j->start && addr < j->end;
}

#define JIT_RANGES(d) ZT_RANGES((d)->jit, (d)->njit, struct zt_jitsym, start, up, jit_holds)

static int cmp_jit(const void *a, const void *b)
{
	const struct zt_jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const struct zt_jitsym *zt_raw_jit_at(const struct zt_raw *d, uint64_t addr)
{
	size_t i = zt_ranges_holder(&JIT_RANGES(d), addr);

	return i ? &d->jit[i - 1] : NULL;
}

/*
 * Give every mapping of an object the build-id recorded for it: the object
 * mapped at the build-id's address when it was seen (v4), or the last one
 * mapped there.
 */
static void attach_buildids(struct zt_raw *d)
{
	for (size_t i = 0; i < d->nbuildids; i++) {
		const struct zt_buildid *b = &d->buildids[i];
		const struct zt_map *m = zt_raw_map_at(d, b->addr, b->timed ?
						       gen_of(d, b->ns) : ZT_RAW_GEN_ANY);

		if (!m || !zt_maps_is_file(m))
			continue;
		for (size_t j = 0; j < d->nmaps; j++) {
			struct zt_map *o = &d->maps[j];

			if (o->inode == m->inode && strcmp(o->path, m->path) == 0 &&
			    !o->buildid)
				o->buildid = d->buildids[i].hex;
		}
	}
}

/*
 * The vdso section (formats/raw.md, "The vDSO"): "ADDR SIZE", then the
 * image's bytes in hex. A malformed one is no error: it is dropped with a
 * warning naming its line (vdso_problem), and the vDSO's frames stay
 * "[vdso]", as in a dump without it.
 */
#define VDSO_STAYS "; the vDSO's frames stay [vdso]"

static void vdso_warn(struct reader *r, unsigned long lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void vdso_warn(struct reader *r, unsigned long lineno, const char *fmt, ...)
{
	struct zt_raw *d = r->d;
	char buf[512];
	va_list ap;

	r->vdso_state = 2;
	free(d->vdso);
	d->vdso = NULL;
	d->vdso_size = 0;
	if (d->vdso_problem)
		return;
	va_start(ap, fmt);
	zt_verr_at(buf, sizeof buf, r->name, lineno, fmt, ap);
	va_end(ap);
	d->vdso_problem = zt_strdup(buf);
}

static void vdso_start(struct reader *r)
{
	struct zt_raw *d = r->d;
	char where[512];

	if (d->vdso || d->vdso_problem) {
		if (d->vdso)
			vdso_warn(r, r->lineno, ZT_RAW_VDSO ": a second section (a dump has one)"
				  VDSO_STAYS);
		r->vdso_state = 2;
		return;
	}
	d->vdso_line = r->lineno;
	zt_err_at(where, sizeof where, r->name, r->lineno, "%s", ZT_RAW_VDSO);
	d->vdso_where = zt_strdup(where);
	r->vdso_state = 0;
	r->vdso_have = 0;
}

static void vdso_line(struct reader *r, char *s)
{
	struct zt_raw *d = r->d;
	const char *end = r->lineend;
	uint64_t addr, size;
	char *a, *n;

	if (r->vdso_state == 2)
		return;
	if (r->vdso_state == 0) {
		a = token(&s);
		n = token(&s);
		if (!a || parse_hex(a, &addr) || !n || parse_hex(n, &size) || token(&s)) {
			vdso_warn(r, r->lineno, ZT_RAW_VDSO ": bad first line (want 'ADDR SIZE' "
				  "in hex)" VDSO_STAYS);
		} else if (size == 0 || size > ZT_RAW_VDSO_MAX) {
			vdso_warn(r, r->lineno, ZT_RAW_VDSO ": size %#llx is not 1 to %#x bytes"
				  VDSO_STAYS, (unsigned long long)size, ZT_RAW_VDSO_MAX);
		} else {
			d->vdso = zt_malloc((size_t)size);
			d->vdso_size = (size_t)size;
			d->vdso_addr = addr;
			r->vdso_state = 1;
		}
		return;
	}
	if ((end - s) % 2) {
		vdso_warn(r, r->lineno, ZT_RAW_VDSO ": an odd number of hex digits" VDSO_STAYS);
		return;
	}
	if ((size_t)(end - s) / 2 > d->vdso_size - r->vdso_have) {
		vdso_warn(r, r->lineno, ZT_RAW_VDSO ": more bytes than the %zu declared" VDSO_STAYS,
			  d->vdso_size);
		return;
	}
	for (; s < end; s += 2) {
		uint64_t v;

		if (zt_hex(s, s + 2, &v) != s + 2) {
			vdso_warn(r, r->lineno, ZT_RAW_VDSO ": bad hex byte '%.2s'" VDSO_STAYS, s);
			return;
		}
		d->vdso[r->vdso_have++] = (unsigned char)v;
	}
}

/* The vdso section ends (another starts, or the dump): is its image whole? */
static void vdso_end(struct reader *r)
{
	if (r->vdso_state == 0)
		vdso_warn(r, r->d->vdso_line, ZT_RAW_VDSO ": no 'ADDR SIZE' line" VDSO_STAYS);
	else if (r->vdso_state == 1 && r->vdso_have < r->d->vdso_size)
		vdso_warn(r, r->d->vdso_line, ZT_RAW_VDSO ": cut short: %zu of its %zu bytes"
			  VDSO_STAYS, r->vdso_have, r->d->vdso_size);
	r->vdso_state = 2;
}

/* Line 1: the magic line and its version. */
static int magic_line(struct reader *r, const char *line)
{
	static const char magic[] = ZT_RAW_MAGIC " ";
	const char *v = line + sizeof magic - 1;

	if (strncmp(line, magic, sizeof magic - 1) != 0)
		return fail(r, "not a zt raw dump (expected '" ZT_RAW_MAGIC " 1' to '"
			    ZT_STR(ZT_RAW_VERSION_MAX) "')");
	if (v[0] < '1' || v[0] > '0' + ZT_RAW_VERSION_MAX || v[1])
		return fail(r, "raw dump version '%.20s' is not one this tool reads (1 to "
			    ZT_STR(ZT_RAW_VERSION_MAX) ")", v);
	r->d->version = v[0] - '0';
	return 0;
}

/* The section a line starts, or S_HEADER when it starts none. */
static enum section section_of(const struct reader *r, const char *line)
{
	/* Every section's name starts with a letter, every sample line with
	   a digit: most lines need no comparison. */
	if (*line >= '0' && *line <= '9')
		return S_HEADER;
	for (int i = S_SAMPLES; i <= S_END; i++)
		if (strcmp(line, section_names[i]) == 0 &&
		    ((i != S_PERFMAP && i != S_VDSO) || r->d->version >= 4))
			return (enum section)i;
	/* v4: "maps @NS", a snapshot with its time. */
	if (r->d->version >= 4 && strncmp(line, ZT_RAW_MAPS " ", sizeof ZT_RAW_MAPS) == 0 &&
	    line[sizeof ZT_RAW_MAPS] == ZT_RAW_TIME_MARK)
		return S_MAPS;
	return S_HEADER;
}

/* A maps section starts: a new snapshot, with the time its line gives. */
static int start_snapshot(struct reader *r, const char *line)
{
	struct zt_raw *d = r->d;
	struct zt_snapshot *sn;
	uint64_t ns = 0;
	const char *t = line + sizeof ZT_RAW_MAPS;	/* after "maps " */
	int timed = line[sizeof ZT_RAW_MAPS - 1] == ' ';

	if (timed && parse_dec(t + 1, &ns))
		return fail(r, "maps: time is not a number");
	if (d->nsnaps >= UINT32_MAX - 1)
		return fail(r, "too many maps sections");
	zt_grow(&d->snaps, &d->capsnaps, d->nsnaps + 1, sizeof *d->snaps);
	sn = &d->snaps[d->nsnaps];
	memset(sn, 0, sizeof *sn);
	sn->ns = ns;
	sn->timed = timed;
	sn->first = d->nmaps;
	r->snap = (int)d->nsnaps++;
	return 0;
}

/* A line inside the current section. */
static int content_line(struct reader *r, char *line)
{
	switch (r->sec) {
	case S_HEADER:
	case S_SUMMARY:
		return key_line(r, line);
	case S_SAMPLES:
		return sample_line(r, line);
	case S_MAPS:
		return maps_line(r, line);
	case S_BUILDIDS:
		return buildid_line(r, line);
	case S_THREADS:
		return thread_line(r, line);
	case S_PERFMAP:
		return perfmap_line(r, line);
	case S_VDSO:
		vdso_line(r, line);
		return 0;
	case S_END:
		break;
	}
	return 0;
}

/* One line of the dump, whatever it is. */
static int dump_line(struct reader *r, char *line, size_t len)
{
	enum section next;

	r->lineend = line + len;
	if (memchr(line, '\0', len))
		return fail(r, "binary data, not a zt raw dump");
	if (len > 0 && line[len - 1] == '\r')
		return fail(r, "CRLF line ending (a raw dump uses \\n)");
	if (r->lineno == 1)
		return magic_line(r, line);
	if (r->sec == S_END)
		return fail(r, "data after '" ZT_RAW_END "'");
	if (len == 0)
		return 0;
	next = section_of(r, line);
	if (next == S_HEADER)
		return content_line(r, line);
	if (r->d->version == 1 && next != S_SAMPLES && next != S_MAPS)
		return fail(r, "section '%s' is not part of version 1", line);
	if (r->sec == S_VDSO)
		vdso_end(r);
	r->sec = next;
	if (next == S_PERFMAP)
		r->d->have_perfmap = 1;
	if (next == S_VDSO)
		vdso_start(r);
	return next == S_MAPS ? start_snapshot(r, line) : 0;
}

/* After the last line: was the input whole, and the dump? */
static int dump_end(struct reader *r, struct zt_input *in)
{
	struct zt_raw *d = r->d;

	if (zt_input_error(in)) {
		zt_errf(r->err, r->errlen, "%s", zt_input_error(in));
		return -1;
	}
	r->lineno = zt_input_lineno(in);
	if (r->lineno == 0) {
		/* As the tools have always said it: no place on stdin. */
		if (strcmp(r->name, "<stdin>") == 0)
			zt_errf(r->err, r->errlen, "empty input, not a zt raw dump");
		else
			zt_err_at(r->err, r->errlen, r->name, 0, "empty input, not a zt raw dump");
		return -1;
	}
	if (d->version >= 2 && r->sec != S_END)
		return fail(r, "truncated dump: it ends without an '" ZT_RAW_END "' line "
			    "(was the program killed, or the file cut short?)");
	d->complete = r->sec == S_END;
	if (r->sec == S_VDSO)
		vdso_end(r);
	zt_maps_sort(d->maps, d->nmaps);
	index_snapshots(d);
	if (d->njit) {
		qsort(d->jit, d->njit, sizeof *d->jit, cmp_jit);
		zt_ranges_link(&JIT_RANGES(d));
	}
	attach_buildids(d);
	if (r->store) {
		split_by_gen(d);
		own_frames(d);
	}
	return 0;
}

static int read_dump(struct zt_input *in, struct zt_raw *d, char *err,
		     size_t errlen, int store)
{
	struct reader r = { .d = d, .err = err, .errlen = errlen, .store = store,
			    .name = zt_input_name(in), .sec = S_HEADER, .snap = -1 };
	char *line;
	size_t len;
	int rc = 0;

	while (rc == 0 && (line = zt_input_line(in, &len))) {
		r.lineno = zt_input_lineno(in);
		rc = dump_line(&r, line, len);
	}
	if (rc != 0 && zt_input_unended(in)) {
		size_t n = strlen(err);

		/* What was wrong with a line cut short is its cut. */
		snprintf(err + n, errlen - n, " (the dump ends inside this line: truncated)");
	}
	if (rc == 0)
		rc = dump_end(&r, in);
	free(r.tmp);
	free(r.tmpx);
	free(r.seen);
	free(r.seentext);
	zt_hash_index_free(&r.seenix);
	if (r.waitix)
		zt_strtab_free(r.waitix);
	return rc;
}

int zt_raw_read(struct zt_input *in, struct zt_raw *d, char *err, size_t errlen)
{
	return read_dump(in, d, err, errlen, 1);
}

int zt_raw_read_summary(struct zt_input *in, struct zt_raw *d, char *err,
			size_t errlen)
{
	return read_dump(in, d, err, errlen, 0);
}

int zt_raw_load(const char *path, struct zt_raw *d, char *err, size_t errlen)
{
	struct zt_input *in = zt_input_open(path, err, errlen);
	int rc;

	if (!in)
		return -1;
	rc = zt_raw_read(in, d, err, errlen);
	zt_input_close(in);
	return rc;
}

void zt_raw_free(struct zt_raw *d)
{
	for (size_t i = 0; i < d->nmaps; i++)
		free(d->maps[i].path);
	for (size_t i = 0; i < d->nbuildids; i++) {
		free(d->buildids[i].hex);
		free(d->buildids[i].path);
	}
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->threads[i].name);
	for (size_t i = 0; i < d->nsnaps; i++)
		free(d->snaps[i].sm);
	free(d->snaps);
	free(d->bytime);
	for (size_t i = 0; i < d->njit; i++)
		free(d->jit[i].name);
	free(d->jit);
	free(d->vdso);
	free(d->vdso_problem);
	free(d->vdso_where);
	free(d->maps);
	free(d->buildids);
	free(d->threads);
	free(d->stacks);
	free(d->addr);
	free(d->exact);
	free(d->timed);
	free(d->timer);
	free(d->unwind);
	free(d->rate_cap);
	free(d->exe);
	free(d->host);
	for (size_t i = 0; i < d->nlabels; i++) {
		free(d->labels[i].key);
		free(d->labels[i].value);
	}
	free(d->labels);
	free(d->lost_detail);
	free(d->conflict);
	free(d->signal_taken);
	free(d->exec);
	free(d->finished);
	free(d->seccomp);
	free(d->alloc_allocator);
	for (size_t i = 0; i < d->nunreached; i++)
		free(d->unreached[i]);
	for (size_t i = 0; i < d->nwaits; i++)
		free(d->waits[i]);
	free(d->waits);
	free(d->unreached);
	free(d->reaped);
	zt_hash_index_free(&d->index);
	memset(d, 0, sizeof *d);
}

const char *zt_raw_wait(const struct zt_raw *d, const struct zt_stack *st)
{
	return st->wait && st->wait <= d->nwaits ? d->waits[st->wait - 1] : NULL;
}

const char *zt_raw_thread_name(const struct zt_raw *d, uint32_t tid)
{
	/* The last name recorded wins: a thread may rename itself. */
	for (size_t i = d->nthreads; i > 0; i--)
		if (d->threads[i - 1].tid == tid)
			return d->threads[i - 1].name;
	return NULL;
}
