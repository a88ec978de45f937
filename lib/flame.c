/*
 * flame.c — folded stacks to a flame graph SVG, laid out as flamegraph.pl
 * lays it out (FlameGraph's current version), with a script of zt's own.
 *
 * The lines are kept whole and sorted by their bytes; walking them in that
 * order, a frame starts where a line's stack first differs from the
 * previous line's and ends where a later line's first differs from it. So
 * two siblings of the same name that the sort does not bring together (a
 * stack "a;f-g" sorts between "a;f" and "a;f;h") are two frames, exactly as
 * in flamegraph.pl. The numbers are printed as it prints them (x and width
 * to 0.1 px, the width from the rounded ends), so the same input gives the
 * same boxes.
 */
#include "flame.h"
#include "folded.h"
#include "hash.h"
#include "util.h"
#include "waitframes.h"

#include <stdlib.h>
#include <string.h>

/* flamegraph.pl's fixed geometry: frame height, font, paddings. */
#define FRAMEH	16
#define FONTSZ	12
#define FONTW	0.59
#define XPAD	10
#define YPAD1	(FONTSZ * 3)		/* above: the title */
#define YPAD2	(FONTSZ * 2 + 10)	/* below: details, matched share */

struct line {
	size_t off;		/* in the arena */
	size_t len, stacklen;
	uint64_t before, count;
	int offcpu;		/* a wall-clock profile's off-CPU stack */
};

struct zt_flame {
	char *arena;
	size_t used, cap;
	char *item;		/* zt_flame_item's line for stacks in memory */
	size_t itemcap;
	struct line *lines;
	size_t n, ncap;
	struct zt_hash_index ix;	/* lines by stack and offcpu: each stack once */
	uint64_t total;
	int diff;		/* -1 until the first line */
	int wall;		/* -1 until the first input: a wall-clock profile */
	int input_wall;		/* the current input's */
	int alloc;		/* -1 until the first input: ZT_WEIGHT_BYTES, _OBJECTS or 0 */
	enum zt_flame_clock clock;
};

/*
 * A line's after - before: a size and a sign, so that every pair of 64-bit
 * counts has one (after - before as an int64 wraps at 2^63, and negating
 * -2^63 is undefined).
 */
struct delta {
	uint64_t size;
	int negative;
};

static struct delta delta_of(uint64_t before, uint64_t after)
{
	return after >= before ? (struct delta){ after - before, 0 }
			       : (struct delta){ before - after, 1 };
}

/*
 * a + b, with the sign of the larger; past 2^64 - 1 (only counts before
 * can add up so far: a file's counts after fit in its total) it saturates.
 */
static struct delta delta_add(struct delta a, struct delta b)
{
	if (a.negative == b.negative)
		return (struct delta){ a.size > UINT64_MAX - b.size ? UINT64_MAX : a.size + b.size,
				       a.negative };
	if (a.size >= b.size)
		return (struct delta){ a.size - b.size, a.size == b.size ? 0 : a.negative };
	return (struct delta){ b.size - a.size, b.negative };
}

/* The delta as drawn: the other way round with --negate. */
static double delta_value(struct delta d, int negate)
{
	double v = (double)d.size;

	if (d.size == 0)
		return 0;	/* never -0, which would print as "-0.00%" */
	return d.negative != (negate != 0) ? -v : v;
}

struct frame {			/* one box */
	const char *name;
	size_t len;
	uint32_t depth;
	int hasdelta;
	uint64_t stime, etime;
	struct delta delta;
	uint64_t on;		/* of its width, the on-CPU stacks' */
};

struct open {			/* a frame of the current path, not yet ended */
	const char *name;
	size_t len;
	uint64_t stime;
	struct delta delta;
	uint64_t on;
};

void zt_flame_defaults(struct zt_flame_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 1200;
	o->minwidth = 0.1;
}

struct zt_flame *zt_flame_new(void)
{
	struct zt_flame *f = zt_calloc(1, sizeof *f);

	f->diff = -1;
	f->wall = -1;
	f->alloc = -1;
	return f;
}

void zt_flame_free(struct zt_flame *f)
{
	if (!f)
		return;
	free(f->arena);
	free(f->item);
	free(f->lines);
	zt_hash_index_free(&f->ix);
	free(f);
}

const char *zt_flame_set_wall(struct zt_flame *f, int wall)
{
	if (f->wall >= 0 && f->wall != wall)
		return wall ? "a wall-clock profile ('# zt weight: ns'), but the first input is not "
			      "one: they cannot be drawn in one graph"
			    : "not a wall-clock profile, but the first input is one ('# zt weight: "
			      "ns'): they cannot be drawn in one graph";
	f->wall = f->input_wall = wall;
	return NULL;
}

const char *zt_flame_set_alloc(struct zt_flame *f, int alloc)
{
	if (f->alloc >= 0 && f->alloc != alloc) {
		static char why[160];

		snprintf(why, sizeof why, "%s, but the first input %s: they cannot be drawn in "
			 "one graph", alloc ? zt_weight_alloc_unit(alloc) : "not in bytes or objects",
			 f->alloc ? (f->alloc == ZT_WEIGHT_BYTES ? "is in bytes" : "is in objects")
				  : "is not an allocation profile");
		return why;
	}
	f->alloc = alloc;
	return NULL;
}

void zt_flame_set_clock(struct zt_flame *f, enum zt_flame_clock clock)
{
	f->clock = clock;
}

int zt_flame_differential(const struct zt_flame *f)
{
	return f->diff == 1;
}

/* The key of a line in the index: its stack, and whether it is off-CPU. */
struct line_key {
	const char *arena, *stack;
	size_t stacklen;
	int offcpu;
};

static int line_eq(void *ctx, uint32_t i, const void *key)
{
	const struct line *l = &((const struct zt_flame *)ctx)->lines[i];
	const struct line_key *k = key;

	return l->stacklen == k->stacklen && l->offcpu == k->offcpu &&
	       memcmp(k->arena + l->off, k->stack, k->stacklen) == 0;
}

const char *zt_flame_add(struct zt_flame *f, const char *line, size_t len,
			 size_t stacklen, int differential, uint64_t before,
			 uint64_t count)
{
	struct line *l;
	struct line_key key;
	uint64_t h;
	int64_t at;
	int off = 0;

	if (f->input_wall) {
		const char *leaf = line + stacklen;

		while (leaf > line && leaf[-1] != ';')
			leaf--;
		off = zt_waitframes_state(leaf, (size_t)(line + stacklen - leaf)) !=
		      ZT_STATE_ON_CPU;
		if ((f->clock == ZT_FLAME_CLOCK_CPU && off) ||
		    (f->clock == ZT_FLAME_CLOCK_OFF && !off))
			return NULL;
	}
	if (f->diff < 0)
		f->diff = differential;
	else if (f->diff != differential)
		return differential ?
		       "two counts, but the first line has one (a differential line in a folded file)" :
		       "one count, but the first line has two (a folded line in a differential file)";
	if (f->total > UINT64_MAX - count)
		return "total count does not fit in 64 bits";
	f->total += count;
	/* A stack seen before (another input's, or a line again) adds its
	   counts to it, as flow() would merge the two adjacent lines: memory
	   is the distinct stacks', however many inputs. */
	key = (struct line_key){ f->arena, line, stacklen, off };
	h = zt_hash(line, stacklen, (uint64_t)off);
	at = zt_hash_index_find(&f->ix, h, line_eq, f, &key);
	if (at >= 0 && f->lines[at].before <= UINT64_MAX - before) {
		f->lines[at].count += count;
		f->lines[at].before += before;
		return NULL;
	}
	zt_grow(&f->arena, &f->cap, f->used + len, 1);
	memcpy(f->arena + f->used, line, len);
	zt_grow(&f->lines, &f->ncap, f->n + 1, sizeof *f->lines);
	l = &f->lines[f->n++];
	l->off = f->used;
	l->len = len;
	l->stacklen = stacklen;
	l->before = before;
	l->count = count;
	l->offcpu = off;
	f->used += len;
	if (at < 0)
		zt_hash_index_add(&f->ix, h, (uint32_t)(f->n - 1));
	return NULL;
}

const char *zt_flame_item(struct zt_flame *f, const struct zt_folded_item *it,
			  const char **line, size_t *len, size_t *stacklen, int *differential,
			  uint64_t *before)
{
	const char *problem;

	*line = it->stack;
	*len = it->linelen;
	if (!it->linelen) {
		/* Stacks in memory: the line zt-fold would write of it, the
		   key of flamegraph.pl's sort (see byline). */
		zt_grow(&f->item, &f->itemcap, it->stacklen + 24, 1);
		memcpy(f->item, it->stack, it->stacklen);
		*len = it->stacklen + (size_t)snprintf(f->item + it->stacklen, 24, " %llu",
						       (unsigned long long)it->count);
		*line = f->item;
	}
	*stacklen = it->stacklen;
	*differential = 0;
	*before = 0;
	problem = zt_folded_diff_before(it->stack, it->stacklen, stacklen, before);
	if (problem && zt_flame_differential(f) && strcmp(problem, "missing count") != 0)
		return problem;
	if (problem) {
		*stacklen = it->stacklen;
		*before = 0;
		return NULL;
	}
	*differential = 1;
	return NULL;
}

/* --- layout ------------------------------------------------------------ */

static int byline(const void *a, const void *b, void *arena)
{
	const struct line *x = a, *y = b;
	const char *text = arena;

	return zt_folded_cmp(text + x->off, x->len, text + y->off, y->len);
}

static int byplace(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->stime > y->stime) - (x->stime < y->stime);
}

struct layout {
	struct frame *fr;
	size_t n, cap;
	struct open *path;	/* path[0] is the root, "all" */
	size_t depth, pcap;	/* frames on the path */
	struct open *next;	/* the frames of the line being merged */
	size_t ncap;
};

static void end_frames(struct layout *L, size_t from, uint64_t now, int diff)
{
	while (L->depth > from) {
		struct open *o = &L->path[--L->depth];
		struct frame *fr;

		zt_grow(&L->fr, &L->cap, L->n + 1, sizeof *L->fr);
		fr = &L->fr[L->n++];
		fr->name = o->name;
		fr->len = o->len;
		fr->depth = (uint32_t)L->depth;
		fr->stime = o->stime;
		fr->etime = now;
		fr->delta = o->delta;
		fr->on = o->on;
		fr->hasdelta = diff;
	}
}

/*
 * Split a stack as Perl's split(";") does (trailing empty fields dropped),
 * after the root, into L->next; returns the number of frames with the root.
 */
static size_t split(struct layout *L, const char *s, size_t n)
{
	size_t k = 1, start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != ';')
			continue;
		zt_grow(&L->next, &L->ncap, k + 1, sizeof *L->next);
		L->next[k].name = s + start;
		L->next[k].len = i - start;
		k++;
		start = i + 1;
	}
	while (k > 1 && L->next[k - 1].len == 0)
		k--;
	return k;
}

/* flamegraph.pl's flow(): merge each sorted line into the current path. */
static void lay_out(struct zt_flame *f, struct layout *L)
{
	uint64_t now = 0;

	qsort_r(f->lines, f->n, sizeof *f->lines, byline, f->arena);
	zt_grow(&L->next, &L->ncap, 1, sizeof *L->next);
	L->next[0].name = "";
	L->next[0].len = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct line *l = &f->lines[i];
		size_t k = split(L, f->arena + l->off, l->stacklen), same = 0;
		struct delta d = delta_of(l->before, l->count);

		while (same < L->depth && same < k &&
		       L->path[same].len == L->next[same].len &&
		       memcmp(L->path[same].name, L->next[same].name, L->next[same].len) == 0)
			same++;
		end_frames(L, same, now, f->diff);
		zt_grow(&L->path, &L->pcap, k, sizeof *L->path);
		for (size_t j = same; j < k; j++) {
			L->path[j] = L->next[j];
			L->path[j].stime = now;
			L->path[j].delta = j == k - 1 ? d : (struct delta){ 0, 0 };
			L->path[j].on = 0;
		}
		if (!l->offcpu)
			for (size_t j = 0; j < k; j++)
				L->path[j].on += l->count;
		/* A stack that is on the path already (the same stack again:
		 * two differential files, or stacks whose roots were renamed
		 * to one) adds its change, where flamegraph.pl keeps the first. */
		if (same == k)
			L->path[k - 1].delta = delta_add(L->path[k - 1].delta, d);
		L->depth = k;
		now += l->count;
	}
	end_frames(L, 0, now, f->diff);
}

/* --- writing ------------------------------------------------------------ */

/* The next character of s[0 .. n) at *i: its code point, or -1 if invalid. */
static long utf8_next(const char *s, size_t n, size_t *i)
{
	const unsigned char *p = (const unsigned char *)s + *i;
	size_t left = n - *i, len;
	unsigned long c;

	if (p[0] < 0x80) {
		(*i)++;
		return p[0];
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		goto bad;
	if (left < len)
		goto bad;
	for (size_t k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			goto bad;
		c = c << 6 | (p[k] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		goto bad;
	*i += len;
	return (long)c;
bad:
	(*i)++;
	return -1;
}

static size_t nchars(const char *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		utf8_next(s, n, &i);
		k++;
	}
	return k;
}

/*
 * Write s as XML text: & < > and (quote) " escaped; bytes that are not
 * UTF-8, and control characters XML cannot hold, become U+FFFD.
 */
static void put_xml(FILE *out, const char *s, size_t n, int quote)
{
	size_t i = 0, run = 0;	/* s[run .. i) is written as it is */

	while (i < n) {
		unsigned char b = (unsigned char)s[i];
		const char *esc = NULL;
		size_t at = i;
		long c;

		if (b >= 0x20 && b < 0x7f && b != '&' && b != '<' && b != '>' && b != '"') {
			i++;
			continue;
		}
		c = utf8_next(s, n, &i);
		if (c == '&')
			esc = "&amp;";
		else if (c == '<')
			esc = "&lt;";
		else if (c == '>')
			esc = "&gt;";
		else if (c == '"')
			esc = quote ? "&quot;" : NULL;
		else if (c < 0 || (c < 0x20 && c != '\t') || c == 0xfffe || c == 0xffff)
			esc = "\xef\xbf\xbd";
		if (!esc)
			continue;
		fwrite(s + run, 1, at - run, out);
		fputs(esc, out);
		run = i;
	}
	fwrite(s + run, 1, n - run, out);
}

/* The length of name without an annotation _[k], _[w], _[i] or _[j]. */
static size_t strip_annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kwij", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

/*
 * flamegraph.pl's namehash(): weights the first three characters into
 * [0, 1]. The caller has dropped a DTrace "module`" prefix (unstrip).
 */
static double namehash(const long *cp, size_t n)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;

	for (size_t i = 0; i < n; i++) {
		long c = cp[i] < 0 ? 0xfffd : cp[i];

		vector += ((double)(c % mod) / (mod - 1)) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

/* Where namehash starts: after the first backtick past the first character. */
static size_t unstrip(const long *cp, size_t n)
{
	for (size_t k = 1; k < n; k++)
		if (cp[k] == '`')
			return k + 1;
	return 0;
}

/*
 * The two hashes of a name: forwards (v1) and reversed (v2). An ASCII name
 * is read at its two ends (three characters count); any other is decoded
 * whole.
 */
static void hashes(const char *name, size_t len, double *v1, double *v2)
{
	long small[64], *cp = small;
	size_t n = 0, i;

	for (i = 0; i < len && (unsigned char)name[i] < 0x80; i++)
		;
	if (i == len) {
		for (int dir = 0; dir < 2; dir++) {
			size_t start = 0, k = 0;

#define AT(j) (long)(unsigned char)name[dir ? len - 1 - (j) : (j)]
			for (size_t j = 1; j < len; j++)
				if (AT(j) == '`') {
					start = j + 1;
					break;
				}
			for (size_t j = start; j < len && k < 3; j++)
				small[k++] = AT(j);
#undef AT
			*(dir ? v2 : v1) = namehash(small, k);
		}
		return;
	}
	if (len > 64)
		cp = zt_malloc(len * sizeof *cp);
	i = 0;
	while (i < len)
		cp[n++] = utf8_next(name, len, &i);
	*v1 = namehash(cp + unstrip(cp, n), n - unstrip(cp, n));
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		long t = cp[a];
		cp[a] = cp[b];
		cp[b] = t;
	}
	*v2 = namehash(cp + unstrip(cp, n), n - unstrip(cp, n));
	if (cp != small)
		free(cp);
}

/*
 * flamegraph.pl --hash's colour of a name, "rgb(r,g,b)", into buf (at least
 * 48 bytes): the "hot" palette keyed by the first and last three characters.
 */
static void hot(const char *name, size_t len, char *buf)
{
	double v1, v2;

	hashes(name, len, &v1, &v2);
	snprintf(buf, 48, "rgb(%d,%d,%d)", 205 + (int)(50 * v2), (int)(230 * v1),
		 (int)(55 * v2));
}

/* The fill of a frame: diff shades, greys for separators, hashed colours;
   an allocation profile's (mem) in flamegraph.pl's --colors=mem. */
static void fill(const struct frame *fr, double maxdelta, int negate, int wall, int mem,
		 char *buf)
{
	double v1, v2;

	if (mem && !fr->hasdelta && !(fr->len >= 1 && fr->name[0] == '-' &&
				      (fr->len == 1 || (fr->len == 2 && fr->name[1] == '-')))) {
		hashes(fr->name, fr->len, &v1, &v2);
		snprintf(buf, 48, "rgb(%d,%d,%d)", 0, 190 + (int)(50 * v2), (int)(210 * v1));
	} else if (wall && !fr->hasdelta && fr->on == 0 && fr->depth > 0) {
		/* Off-CPU all through: flamegraph.pl's cold ("blue", --colors=io)
		 * palette, hashed by the name, for a hot/cold graph. */
		hashes(fr->name, fr->len, &v1, &v2);
		snprintf(buf, 48, "rgb(%d,%d,%d)", 80 + (int)(60 * v1), 80 + (int)(60 * v1),
			 190 + (int)(55 * v1));
	} else if (fr->len == 2 && memcmp(fr->name, "--", 2) == 0) {
		strcpy(buf, "rgb(160,160,160)");
	} else if (fr->len == 1 && fr->name[0] == '-') {
		strcpy(buf, "rgb(200,200,200)");
	} else if (fr->hasdelta) {
		double v = delta_value(fr->delta, negate);
		int r = 255, g = 255, b = 255;

		if (v > 0)
			g = b = (int)(210 * (maxdelta - v) / maxdelta);
		else if (v < 0)
			r = g = (int)(210 * (maxdelta + v) / maxdelta);
		snprintf(buf, 48, "rgb(%d,%d,%d)", r, g, b);
	} else if (fr->len >= 2 && fr->name[0] == '[' && fr->name[fr->len - 1] == ']') {
		/* An unresolved frame, [module]: aqua, hashed by the module. */
		hashes(fr->name, fr->len, &v1, &v2);
		snprintf(buf, 48, "rgb(%d,%d,%d)", 50 + (int)(60 * v1),
			 165 + (int)(55 * v1), 165 + (int)(55 * v1));
	} else {
		hot(fr->name, fr->len, buf);
	}
}

/* "1234.5" as 12345: a number printed with %.1f, in tenths (never negative). */
static long long tenths_of(const char *s)
{
	long long v = 0;

	for (; *s; s++)
		if (*s >= '0' && *s <= '9')
			v = v * 10 + (*s - '0');
	return v;
}

/* A number as Perl prints it: integers without a fraction. */
static void put_num(FILE *out, double v)
{
	if (v == (double)(long long)v)
		fprintf(out, "%lld", (long long)v);
	else
		fprintf(out, "%.15g", v);
}

/* 1234567 as "1,234,567". */
static void put_count(FILE *out, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v);

	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			fputc(',', out);
		fputc(d[i], out);
	}
}

/* The label: as many characters as fit at 0.59 em each, ".." if cut. */
static void put_label(FILE *out, const char *name, size_t len, double px)
{
	long chars = (long)(px / (FONTSZ * FONTW));
	size_t n, keep, i = 0;

	if (chars < 3)
		return;
	len = strip_annotation(name, len);
	n = nchars(name, len);
	keep = (size_t)chars < n ? (size_t)chars - 2 : n;
	for (size_t k = 0; k < keep; k++)
		utf8_next(name, len, &i);
	put_xml(out, name, i, 0);
	if (keep < n)
		fputs("..", out);
}

extern const char zt_flamescript[];

/*
 * The script; a wall-clock profile's titles say "ns" where others say
 * "samples", an allocation profile's "bytes" or "objects" (unit), so its
 * title parser takes either, and its search says its unit (a CPU
 * profile's graph keeps its bytes).
 */
static void script(FILE *out, int wall, const char *unit)
{
	static const char was[] = ") samples, /", now[] = ") (?:samples|ns), /";
	static const char nowmem[] = ") (?:samples|bytes|objects), /";
	static const char search[] = " + \" samples)\"";
	const char *at = wall || unit ? strstr(zt_flamescript, was) : NULL;
	const char *at2 = unit && at ? strstr(at, search) : NULL;

	if (!at) {
		fputs(zt_flamescript, out);
		return;
	}
	fwrite(zt_flamescript, 1, (size_t)(at - zt_flamescript), out);
	fputs(unit ? nowmem : now, out);
	if (!at2) {
		fputs(at + sizeof was - 1, out);
		return;
	}
	fwrite(at + sizeof was - 1, 1, (size_t)(at2 - (at + sizeof was - 1)), out);
	fprintf(out, " + \" %s)\"", unit);
	fputs(at2 + sizeof search - 1, out);
}

static void header(FILE *out, const struct zt_flame_opts *o, unsigned height,
		   uint64_t total, int diff, int wall, const char *unit)
{
	char memtitle[64];

	/* A differential graph's default title is its legend: what red and
	   blue mean (frames keep flamegraph.pl's places: no room is added). */
	const char *title = o->title ? o->title :
			    diff && o->negate ? "Differential Flame Graph: blue grew, red shrank "
						"(after - before, negated); widths are after's" :
			    diff ? "Differential Flame Graph: red grew, blue shrank "
				   "(after - before); widths are after's" :
			    o->icicle ? "Icicle Graph" : "Flame Graph";

	if (unit && !o->title && !diff) {
		snprintf(memtitle, sizeof memtitle, "%s (%s)", o->icicle ? "Memory Icicle Graph" :
			 "Memory Flame Graph", unit);
		title = memtitle;
	}

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<!-- Flame graph drawn by zt-flame from folded stacks: the frames are laid out as\n"
		"     flamegraph.pl lays them out. Click a frame to zoom, Search (or Ctrl-F) to\n"
		"     highlight frames whose names match a regular expression. -->\n",
		o->width, height, o->width, height);
	fputs("<defs>\n"
	      "\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
	      "\t\t<stop stop-color=\"#eeeeee\" offset=\"5%\"/>\n"
	      "\t\t<stop stop-color=\"#eeeeb0\" offset=\"95%\"/>\n"
	      "\t</linearGradient>\n"
	      "</defs>\n"
	      "<style type=\"text/css\">\n"
	      "\ttext { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "\t#title { text-anchor: middle; font-size: 17px; }\n"
	      "\t#matched { text-anchor: end; }\n"
	      "\t#search, #unzoom { cursor: pointer; }\n"
	      "\t#search { opacity: 0.6; }\n"
	      "\t#search:hover, #search.on { opacity: 1; }\n"
	      "\t#frames > g { cursor: pointer; }\n"
	      "\t#frames > g:hover > rect { stroke: black; stroke-width: 0.5; }\n"
	      "\t.hide { display: none; }\n"
	      "\t.parent { opacity: 0.5; }\n"
	      "</style>\n", out);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var XPAD = %d, WIDTH = %u, CHARW = %.2f, ICICLE = %s, TOTAL = %llu, DIFF = %s;\n",
		XPAD, o->width, FONTSZ * FONTW, o->icicle ? "true" : "false",
		(unsigned long long)total, diff ? "true" : "false");
	script(out, wall, unit);
	fputs("]]></script>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
		o->width, height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"%d\">", o->width / 2, FONTSZ * 2);
	put_xml(out, title, strlen(title), 0);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", XPAD, height - YPAD2 / 2);
	fprintf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n",
		XPAD, FONTSZ * 2);
	fprintf(out, "<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n",
		o->width - XPAD - 100, FONTSZ * 2);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		o->width - XPAD, height - YPAD2 / 2);
}

int zt_flame_write(struct zt_flame *f, const struct zt_flame_opts *o, FILE *out,
		   char *err, size_t errlen)
{
	struct layout L = { 0 };
	double wpt, mintime, maxdelta = 1;
	uint32_t depthmax = 0;
	unsigned height;
	size_t kept = 0;
	const char *unit;

	if (f->clock != ZT_FLAME_CLOCK_WALL && f->wall != 1) {
		zt_errf(err, errlen, "--clock=%s needs a wall-clock profile (zt-collect --clock=wall, "
			"or folded stacks with '# zt weight: ns'); a CPU profile is on-CPU only",
			f->clock == ZT_FLAME_CLOCK_CPU ? "cpu" : "off");
		return -1;
	}
	if (f->total == 0) {
		zt_errf(err, errlen, f->clock == ZT_FLAME_CLOCK_CPU ? "no on-CPU samples" :
			f->clock == ZT_FLAME_CLOCK_OFF ? "no off-CPU samples" :
			"no samples: every count is 0");
		return -1;
	}
	lay_out(f, &L);
	wpt = (double)(o->width - 2 * XPAD) / (double)f->total;
	mintime = o->minwidth_pct ? (double)f->total * o->minwidth / 100 : o->minwidth / wpt;
	/* The largest change of a frame (a line's, for distinct stacks). */
	for (size_t i = 0; i < L.n; i++) {
		double a = (double)L.fr[i].delta.size;

		if (a > maxdelta)
			maxdelta = a;
	}
	for (size_t i = 0; i < L.n; i++) {
		struct frame *fr = &L.fr[i];

		if ((double)(fr->etime - fr->stime) < mintime)
			continue;
		if (fr->depth > depthmax)
			depthmax = fr->depth;
		L.fr[kept++] = *fr;
	}
	L.n = kept;
	qsort(L.fr, L.n, sizeof *L.fr, byplace);
	height = (depthmax + 1) * FRAMEH + YPAD1 + YPAD2;
	unit = f->alloc > 0 ? zt_weight_alloc_unit(f->alloc) : NULL;
	header(out, o, height, f->total, f->diff == 1, f->wall == 1, unit);

	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < L.n; i++) {
		const struct frame *fr = &L.fr[i];
		double x1 = XPAD + (double)fr->stime * wpt;
		double x2 = XPAD + (double)fr->etime * wpt;
		int root = fr->depth == 0;
		uint64_t samples = fr->etime - fr->stime;
		char sx1[48], sx2[48], colour[48];
		long long tenths;
		int y1, y2;

		if (o->icicle) {
			y1 = YPAD1 + (int)fr->depth * FRAMEH;
			y2 = YPAD1 + ((int)fr->depth + 1) * FRAMEH - 1;
		} else {
			y1 = (int)height - YPAD2 - ((int)fr->depth + 1) * FRAMEH + 1;
			y2 = (int)height - YPAD2 - (int)fr->depth * FRAMEH;
		}
		/* x and width as flamegraph.pl prints them: the width is the
		   difference of the rounded ends, a whole number of tenths. */
		snprintf(sx1, sizeof sx1, "%.1f", x1);
		snprintf(sx2, sizeof sx2, "%.1f", x2);
		tenths = tenths_of(sx2) - tenths_of(sx1);
		fill(fr, maxdelta, o->negate, f->wall == 1, unit != NULL, colour);

		fputs("<g><title>", out);
		if (root) {
			fputs("all (", out);
			put_count(out, samples);
			fprintf(out, " %s, 100%%)", unit ? unit : f->wall == 1 ? "ns" : "samples");
		} else {
			double pct = 100 * (double)samples / (double)f->total;

			put_xml(out, fr->name, strip_annotation(fr->name, fr->len), 1);
			fputs(" (", out);
			put_count(out, samples);
			fprintf(out, " %s, %.2f%%", unit ? unit : f->wall == 1 ? "ns" : "samples", pct);
			if (fr->hasdelta) {
				double d = delta_value(fr->delta, o->negate);

				fprintf(out, "; %s%.2f%%", d > 0 ? "+" : "", 100 * d / (double)f->total);
			}
			fputc(')', out);
		}
		fprintf(out, "</title><rect x=\"%s\" y=\"%d\" width=\"%lld.%lld\" height=\"%d.0\" "
			"fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"",
			sx1, y1, tenths / 10, tenths % 10, y2 - y1, colour, x1 + 3);
		put_num(out, 3 + (y1 + y2) / 2.0);
		fputs("\">", out);
		if (root)
			put_label(out, "all", 3, x2 - x1);
		else
			put_label(out, fr->name, fr->len, x2 - x1);
		fputs("</text></g>\n", out);
	}
	fputs("</g>\n</svg>\n", out);
	free(L.fr);
	free(L.path);
	free(L.next);
	return 0;
}
