/*
 * perfscript.c — the perf script line grammar, as stackcollapse-perf.pl's
 * regular expressions define it, written out as scans so that a line costs
 * one pass or two. The comments give each expression; the code follows
 * Perl's leftmost, greedy-then-backtracking choice wherever it changes the
 * captured text, so odd lines split the same way in both.
 */
#include "perfscript.h"
#include "critbit.h"
#include "event.h"
#include "hash.h"
#include "hex.h"
#include "input.h"
#include "rawfmt.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Perl's \s, \d and \w on byte strings, by table. */
enum { WS = 1, DIGIT = 2, WORD = 4 };

static const unsigned char cls[256] = {
	[' '] = WS, ['\t'] = WS, ['\n'] = WS, ['\r'] = WS, ['\f'] = WS, ['\v'] = WS,
	['0'] = DIGIT | WORD, ['1'] = DIGIT | WORD, ['2'] = DIGIT | WORD,
	['3'] = DIGIT | WORD, ['4'] = DIGIT | WORD, ['5'] = DIGIT | WORD,
	['6'] = DIGIT | WORD, ['7'] = DIGIT | WORD, ['8'] = DIGIT | WORD,
	['9'] = DIGIT | WORD, ['_'] = WORD,
	['a'] = WORD, ['b'] = WORD, ['c'] = WORD, ['d'] = WORD, ['e'] = WORD,
	['f'] = WORD, ['g'] = WORD, ['h'] = WORD, ['i'] = WORD, ['j'] = WORD,
	['k'] = WORD, ['l'] = WORD, ['m'] = WORD, ['n'] = WORD, ['o'] = WORD,
	['p'] = WORD, ['q'] = WORD, ['r'] = WORD, ['s'] = WORD, ['t'] = WORD,
	['u'] = WORD, ['v'] = WORD, ['w'] = WORD, ['x'] = WORD, ['y'] = WORD,
	['z'] = WORD,
	['A'] = WORD, ['B'] = WORD, ['C'] = WORD, ['D'] = WORD, ['E'] = WORD,
	['F'] = WORD, ['G'] = WORD, ['H'] = WORD, ['I'] = WORD, ['J'] = WORD,
	['K'] = WORD, ['L'] = WORD, ['M'] = WORD, ['N'] = WORD, ['O'] = WORD,
	['P'] = WORD, ['Q'] = WORD, ['R'] = WORD, ['S'] = WORD, ['T'] = WORD,
	['U'] = WORD, ['V'] = WORD, ['W'] = WORD, ['X'] = WORD, ['Y'] = WORD,
	['Z'] = WORD,
};

static inline int is_ws(unsigned char c)
{
	return cls[c] & WS;
}

static inline int is_digit(unsigned char c)
{
	return cls[c] & DIGIT;
}

static inline int is_word(unsigned char c)
{
	return cls[c] & WORD;
}

/*
 * A header line of 16 to 63 bytes (all of zt-symbolize's, most of
 * perf's) is scanned by masks, a bit per byte (bit i: s[i]), made at once
 * with SSE2: a run of spaces or digits then ends at a count of trailing
 * bits, where a loop of bytes took a branch per byte and a mispredicted
 * one at the run's end. Bits at and past the line's end are clear. Other
 * lines (or a machine without SSE2) are scanned byte by byte: the scans
 * below take m NULL then, and give the same answers.
 */
struct masks {
	uint64_t ws, digit, colon;
	uint64_t wsend;		/* ws, and the bit at the line's end */
};

#ifdef __SSE2__
/* The bits of 16 bytes' classes into m, shifted to their place. */
static inline void classify(__m128i x, unsigned keep, unsigned shift, uint64_t *ws,
			    uint64_t *digit, uint64_t *colon)
{
	/* \s: ' ' or \t \n \v \f \r (9-13); \d: '0'-'9'. */
	__m128i t = _mm_sub_epi8(x, _mm_set1_epi8(9));
	__m128i w = _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(t, _mm_set1_epi8(4)), _mm_set1_epi8(4)),
				 _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
	__m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
	__m128i dg = _mm_cmpeq_epi8(_mm_max_epu8(d, _mm_set1_epi8(9)), _mm_set1_epi8(9));
	__m128i co = _mm_cmpeq_epi8(x, _mm_set1_epi8(':'));

	*ws |= (uint64_t)((unsigned)_mm_movemask_epi8(w) >> keep) << shift;
	*digit |= (uint64_t)((unsigned)_mm_movemask_epi8(dg) >> keep) << shift;
	*colon |= (uint64_t)((unsigned)_mm_movemask_epi8(co) >> keep) << shift;
}
#endif

/* The masks of a line of 16 to 63 bytes, or NULL: scan it byte by byte. */
static const struct masks *masks_of(const char *s, size_t len, struct masks *m)
{
#ifdef __SSE2__
	size_t k;

	if (len < 16 || len >= 64)
		return NULL;
	m->ws = m->digit = m->colon = 0;
	for (k = 0; k + 16 <= len; k += 16)
		classify(_mm_loadu_si128((const __m128i *)(s + k)), 0, (unsigned)k, &m->ws,
			 &m->digit, &m->colon);
	/* The rest: the line's last 16 bytes, of which the last len - k are
	   new (nothing is read past the line). */
	if (k < len)
		classify(_mm_loadu_si128((const __m128i *)(s + len - 16)), (unsigned)(16 - (len - k)),
			 (unsigned)k, &m->ws, &m->digit, &m->colon);
	m->wsend = m->ws | (uint64_t)1 << len;
	return m;
#else
	(void)s, (void)len, (void)m;
	return NULL;
#endif
}

/* The first byte at or after i (i <= len) that is not a space; len at the end. */
static inline size_t skip_ws(const char *s, size_t len, const struct masks *m, size_t i)
{
	if (m)
		return i + (size_t)__builtin_ctzll(~m->ws >> i);
	while (i < len && is_ws((unsigned char)s[i]))
		i++;
	return i;
}

/* The first byte at or after i (i <= len) that is not a digit. */
static inline size_t skip_digits(const char *s, size_t len, const struct masks *m, size_t i)
{
	if (m)
		return i + (size_t)__builtin_ctzll(~m->digit >> i);
	while (i < len && is_digit((unsigned char)s[i]))
		i++;
	return i;
}

/* The first space at or after i (i <= len); len when none. */
static inline size_t skip_nonws(const char *s, size_t len, const struct masks *m, size_t i)
{
	if (m)
		return i + (size_t)__builtin_ctzll(m->wsend >> i);
	while (i < len && !is_ws((unsigned char)s[i]))
		i++;
	return i;
}

/* The first ':' at or after i (i <= len); len when none. */
static inline size_t next_colon(const char *s, size_t len, const struct masks *m, size_t i)
{
	const char *c;

	if (m) {
		uint64_t c = m->colon >> i;

		return c ? i + (size_t)__builtin_ctzll(c) : len;
	}
	c = i < len ? memchr(s + i, ':', len - i) : NULL;
	return c ? (size_t)(c - s) : len;
}

/*
 * The first e at or after i (2 <= i <= len) where a command may end: a
 * space after a byte that is not one, or a space at 2. len when none.
 */
static inline size_t next_end(const char *s, size_t len, const struct masks *m, size_t i)
{
	if (m) {
		uint64_t c = ((m->ws & ~(m->ws << 1)) | (m->ws & 4)) >> i;

		return c ? i + (size_t)__builtin_ctzll(c) : len;
	}
	for (; i < len; i++)
		if (is_ws((unsigned char)s[i]) && (i == 2 || !is_ws((unsigned char)s[i - 1])))
			return i;
	return len;
}

/*
 * /:\s*(\d+)*\s+(\S+):\s*$/ tried at the ':' at s[i]. On a match, sets
 * the event and the period digits (empty when the group did not match).
 */
static int event_at(const char *s, size_t len, const struct masks *m, size_t i,
		    struct zt_span *ev, struct zt_span *digits)
{
	size_t k = i + 1, w = skip_ws(s, len, m, k), d, e, r, end;
	int tries;

	/* First with the digits group, then without it. */
	for (tries = 0; tries < 2; tries++) {
		digits->p = s + w;
		digits->n = 0;
		if (tries == 0) {
			d = skip_digits(s, len, m, w);
			if (d == w)
				continue;
			e = skip_ws(s, len, m, d);
			if (e == d)
				continue;
			digits->n = d - w;
		} else {
			if (w == k)
				return 0;
			e = w;
		}
		/* (\S+):\s*$ — one run of non-space ending in ':', then space. */
		r = skip_nonws(s, len, m, e);
		end = skip_ws(s, len, m, r);
		if (end == len && r - e >= 2 && s[r - 1] == ':') {
			ev->p = s + e;
			ev->n = r - e - 1;
			return 1;
		}
	}
	return 0;
}

/*
 * Whether a perf script field that follows the thread id starts at s[j]:
 * the CPU `[N]` or the time `N.N:`.
 */
static int cpu_or_time_at(const char *s, size_t len, const struct masks *m, size_t j)
{
	size_t k;

	if (j < len && s[j] == '[')
		return j + 1 < len && is_digit((unsigned char)s[j + 1]);
	k = skip_digits(s, len, m, j);
	if (k == j || k >= len || s[k] != '.')
		return 0;
	j = ++k;
	k = skip_digits(s, len, m, k);
	return k > j && k < len && s[k] == ':';
}

/*
 * The ids after a command that ends at s[e] (a space):
 * \s+(\d+)\/ * (\d+)*\s+ (no space before the star). Sets the digits'
 * bounds and *next to the first byte after the spaces that end them.
 */
static int ids_at(const char *s, size_t len, const struct masks *m, size_t e, size_t *d1,
		  size_t *d1end, size_t *d2, size_t *d2end, size_t *next)
{
	size_t j = skip_ws(s, len, m, e);

	*d1 = j;
	j = skip_digits(s, len, m, j);
	if (j == *d1)
		return 0;
	*d1end = j;
	while (j < len && s[j] == '/')
		j++;
	*d2 = j;
	j = skip_digits(s, len, m, j);
	*d2end = j;
	if (j == len || !is_ws((unsigned char)s[j]))
		return 0;
	*next = skip_ws(s, len, m, j);
	return 1;
}

/* The time after the ids that end at s[j], as `[CPU] N.N:`, or an empty span. */
static struct zt_span time_after(const char *s, size_t len, size_t j)
{
	struct zt_span t = { s + j, 0 };
	size_t k;

	while (j < len && is_ws((unsigned char)s[j]))
		j++;
	if (j < len && s[j] == '[') {
		while (j < len && s[j] != ']')
			j++;
		for (j++; j < len && is_ws((unsigned char)s[j]); j++)
			;
	}
	for (k = j; k < len && is_digit((unsigned char)s[k]); k++)
		;
	if (k == j || k >= len || s[k] != '.')
		return t;
	for (k++; k < len && is_digit((unsigned char)s[k]); k++)
		;
	if (k < len && s[k] == ':') {
		t.p = s + j;
		t.n = k - j;
	}
	return t;
}

int zt_ps_parse_header(const char *s, size_t len, struct zt_ps_header *h)
{
	size_t e, first = 0, d1 = 0, d1end = 0, d2 = 0, d2end = 0, next;
	size_t f1 = 0, f1end = 0, f2 = 0, f2end = 0;
	struct masks mb;
	const struct masks *m;

	/* ^(\S.+?)\s+(\d+)\/ * (\d+)*\s+ — the shortest command that works,
	   as Perl splits it. But a thread name may hold spaces and numbers
	   (`io worker 1 1234/1235 10.5: ...`), where that command stops at
	   `io worker` and takes the name's 1 for the thread id: when a longer
	   command is followed by ids and then by the CPU or the time, perf
	   script's next fields, that split is the header's, and Perl's is
	   wrong. The two agree on every header whose command has no ` N `. */
	if (len < 4 || is_ws((unsigned char)s[0]))
		return 0;
	m = masks_of(s, len, &mb);
	for (e = next_end(s, len, m, 2); e < len; e = next_end(s, len, m, e + 1)) {
		size_t a, aend, b, bend;

		if (!ids_at(s, len, m, e, &a, &aend, &b, &bend, &next))
			continue;
		if (!first) {
			first = e;
			f1 = a, f1end = aend, f2 = b, f2end = bend;
		}
		if (cpu_or_time_at(s, len, m, next)) {
			d1 = a, d1end = aend, d2 = b, d2end = bend;
			break;
		}
	}
	if (!first)
		return 0;
	if (e >= len) {
		e = first;
		d1 = f1, d1end = f1end, d2 = f2, d2end = f2end;
	}

	memset(h, 0, sizeof *h);
	h->comm.p = s;
	h->comm.n = e;
	/* Perl's truth: a tid of "" or "0" counts as none. */
	if (d2end == d2 || (d2end - d2 == 1 && s[d2] == '0')) {
		h->pid.p = s + d1;
		h->pid.n = 0;
		h->tid.p = s + d1;
		h->tid.n = d1end - d1;
	} else {
		h->pid.p = s + d1;
		h->pid.n = d1end - d1;
		h->tid.p = s + d2;
		h->tid.n = d2end - d2;
	}

	h->time = time_after(s, len, h->tid.p + h->tid.n - s);
	h->period = 1;
	for (size_t c = next_colon(s, len, m, 0); c < len; c = next_colon(s, len, m, c + 1)) {
		struct zt_span ev, dg;
		uint64_t v = 0;

		if (!event_at(s, len, m, c, &ev, &dg))
			continue;
		h->event = ev;
		if (dg.n == 0 || (dg.n == 1 && dg.p[0] == '0'))
			break;		/* Perl: `$period = 1 if not $period` */
		if (zt_dec(dg.p, dg.p + dg.n, &v) != dg.p + dg.n)
			return -1;
		h->period = v;
		break;
	}
	return 1;
}

int zt_ps_parse_frame(const char *s, size_t len, struct zt_ps_frame *f)
{
	size_t ws, we, f0, p, r, close, fstart;

	/* /^\s*(\w+)\s*(.+) \((\S*)\)/ */
	ws = 0;
	while (ws < len && is_ws((unsigned char)s[ws]))
		ws++;
	if (ws == len || !is_word((unsigned char)s[ws]))
		return 0;
	we = ws;
	while (we < len && is_word((unsigned char)s[we]))
		we++;
	f0 = we;
	while (f0 < len && is_ws((unsigned char)s[f0]))
		f0++;
	/* The last " (" whose run of non-space holds a ')' (greedy (.+)). */
	for (p = len >= 3 ? len - 3 : 0;; p--) {
		if (p < ws + 2)
			return 0;
		if (s[p] != ' ' || s[p + 1] != '(')
			continue;
		close = 0;
		for (r = p + 2; r < len && !is_ws((unsigned char)s[r]); r++)
			if (s[r] == ')')
				close = r;
		if (close)
			break;
	}
	fstart = f0 < p - 1 ? f0 : p - 1;
	f->pc.p = s + ws;
	f->pc.n = (we < fstart ? we : fstart) - ws;
	f->sym.p = s + fstart;
	f->sym.n = p - fstart;
	f->mod.p = s + p + 2;
	f->mod.n = close - (p + 2);
	return 1;
}

enum state { OUTSIDE, INSIDE, SKIPPING };

struct zt_ps_reader {
	struct zt_input *in;
	enum state state;
	int after_frame;	/* the last line was a frame */
	unsigned long record_line;
	char *event;
	size_t eventlen;
	char *skipped_event;
	unsigned long skipped;
	/* The view (zt_ps_reader_set_view), and whether the stream's facts
	   said "# zt samples" above 0 before its first record. */
	int view;
	int cpu_samples;
	/* Repeats (zt_ps_reader_set_repeats): the frame lines of records
	   seen, and the line ends each holds. */
	int repeats;
	struct body {			/* per record seen: what a repeat needs */
		size_t off;		/* its frame lines in arena */
		uint32_t len;		/* below the input's line buffer */
		uint32_t lines;
		uint32_t num;		/* its number (numbered's, when it was new) */
	} *body;
	size_t nbody, capbody;
	char *arena;
	size_t narena, caparena;
	struct zt_critbit index[2];	/* [the command starts with "java"]: bodies */
	int java;			/* the open record's */
	uint32_t repeat_next;		/* the END to hand out next, or NOBODY */
	unsigned long repeat_lineno;
	struct pending {
		int on;			/* the open record's bytes are below */
		int cacheable;		/* only frames and source lines so far */
		char *buf;
		size_t len, cap;
		unsigned long lines;
	} pend;
};

/*
 * Records are numbered across every reader of the process, so that one
 * caller can take several readers one after the other (zt-fold a b) and
 * never mistake a record of b for one of a.
 */
static uint32_t numbered;

/*
 * The index of records seen (lib/critbit.h): TREES trees, a record's
 * picked by its first PREFIX bytes, so that each tree is a few records
 * (a find walks none, or a few nodes). More trees would cost memory
 * per reader; fewer, a longer walk once there are many records.
 */
#define TREES 4096
#define PREFIX 64

/* Read this far ahead between records, so that most fit whole. */
#define AHEAD ((size_t)32 << 10)

struct zt_ps_reader *zt_ps_reader_new(struct zt_input *in)
{
	struct zt_ps_reader *r = zt_calloc(1, sizeof *r);

	r->in = in;
	return r;
}

void zt_ps_reader_set_repeats(struct zt_ps_reader *r, int on)
{
	r->repeats = on && r->in;
	for (int j = 0; j < 2; j++)
		if (r->repeats && !r->index[j].root)
			zt_critbit_init(&r->index[j], TREES);
	r->repeat_next = ZT_PS_NOBODY;
}

void zt_ps_reader_free(struct zt_ps_reader *r)
{
	if (!r)
		return;
	for (int j = 0; j < 2; j++)
		if (r->index[j].root)
			zt_critbit_free(&r->index[j]);
	free(r->body);
	free(r->arena);
	free(r->pend.buf);
	free(r->event);
	free(r->skipped_event);
	free(r);
}

void zt_ps_reader_set_event(struct zt_ps_reader *r, const char *event, size_t n)
{
	free(r->event);
	r->event = event ? zt_strndup(event, n) : NULL;
	r->eventlen = event ? n : 0;
}

void zt_ps_reader_set_view(struct zt_ps_reader *r, int view)
{
	const char *ev = zt_view_event(view);

	r->view = view;
	if (ev)
		zt_ps_reader_set_event(r, ev, strlen(ev));
}

/* A '#' line before the first record: whether a zt stream has CPU samples. */
static void view_fact(struct zt_ps_reader *r, const char *s, size_t len)
{
	static const char samples[] = ZT_FACT_PREFIX ZT_FACT_SAMPLES " ";

	if (len > sizeof samples - 1 && memcmp(s, samples, sizeof samples - 1) == 0)
		r->cpu_samples |= s[sizeof samples - 1] != '0' || len > sizeof samples;
}

/*
 * The first record's event decides which records are kept, unless a view
 * was asked for (zt_ps_reader_set_view). Returns 1 when a record of event
 * ev (n bytes) is to be skipped without decided (it is an allocation
 * record, and the CPU records are wanted).
 */
static int decide_event(struct zt_ps_reader *r, const char *ev, size_t n)
{
	int alloc = zt_view_of_event(ev, n) != 0;

	if (!alloc) {
		zt_ps_reader_set_event(r, ev, n);
		return 0;
	}
	if (r->view == ZT_VIEW_TIME || (r->view == ZT_VIEW_DEFAULT && r->cpu_samples))
		return 1;
	zt_ps_reader_set_event(r, ZT_EVENT_ALLOC_BYTES, sizeof ZT_EVENT_ALLOC_BYTES - 1);
	return 0;
}

const char *zt_ps_reader_event(const struct zt_ps_reader *r)
{
	return r->event;
}

unsigned long zt_ps_reader_skipped(const struct zt_ps_reader *r,
				   const char **event)
{
	if (event)
		*event = r->skipped_event;
	return r->skipped;
}

/* Whether the line holds a NUL: headers, 16 to 63 bytes, without a call. */
static inline int has_nul(const char *s, size_t len)
{
#ifdef __SSE2__
	if (len >= 16 && len < 64) {
		__m128i z = _mm_setzero_si128(), any = _mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(s + len - 16)), z);

		for (size_t k = 0; k + 16 <= len; k += 16)
			any = _mm_or_si128(any, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + k)), z));
		return _mm_movemask_epi8(any) != 0;
	}
#endif
	return memchr(s, '\0', len) != NULL;
}

/* What is wrong with line lineno, placed as every message about a line. */
static int fail(const struct zt_ps_reader *r, unsigned long lineno, char *err,
		size_t errlen, const char *msg)
{
	zt_err_at(err, errlen, r->in ? zt_input_name(r->in) : "<stdin>", lineno, "%s", msg);
	return -1;
}

int zt_ps_line(struct zt_ps_reader *r, const char *s, size_t len,
	       unsigned long lineno, struct zt_ps_item *it, char *err, size_t errlen)
{
	int h;

	it->unterminated = 0;
	it->body = ZT_PS_NOBODY;
	it->repeat = 0;
	it->lineno = lineno;
	if (has_nul(s, len)) {
		return fail(r, lineno, err, errlen,
			    "NUL byte in text (a binary file?)");
	}
	if (len > 0 && s[len - 1] == '\r') {
		return fail(r, lineno, err, errlen,
			    "line ends in CR (CRLF line endings are not accepted)");
	}
	if (len > 0 && s[0] == '#') {
		if (!r->event)
			view_fact(r, s, len);
		r->after_frame = 0;
		it->kind = ZT_PS_COMMENT;
		it->text.p = s;
		it->text.n = len;
		return 1;
	}
	if (len == 0) {
		enum state was = r->state;

		r->after_frame = 0;
		r->state = OUTSIDE;
		if (was != INSIDE)
			return 0;
		it->kind = ZT_PS_END;
		return 1;
	}
	h = zt_ps_parse_header(s, len, &it->header);
	if (h < 0) {
		return fail(r, lineno, err, errlen,
			    "period does not fit in 64 bits");
	}
	if (h > 0) {
		const struct zt_span *ev = &it->header.event;

		if (r->state != OUTSIDE) {
			return fail(r, lineno, err, errlen,
				    "record header inside a record (no blank line before it)");
		}
		r->after_frame = 0;
		r->record_line = lineno;
		if (ev->n && !r->event && decide_event(r, ev->p, ev->n)) {
			r->state = SKIPPING;
			return 0;
		} else if (ev->n && (ev->n != r->eventlen ||
				     memcmp(ev->p, r->event, ev->n) != 0)) {
			/* Another view of a zt allocation profile is no stranger. */
			if (!zt_view_of_event(ev->p, ev->n) &&
			    !zt_view_of_event(r->event, r->eventlen)) {
				if (!r->skipped_event)
					r->skipped_event = zt_strndup(ev->p, ev->n);
				r->skipped++;
			}
			r->state = SKIPPING;
			return 0;
		}
		r->state = INSIDE;
		it->kind = ZT_PS_HEADER;
		return 1;
	}
	if (zt_ps_parse_frame(s, len, &it->frame)) {
		if (r->state == OUTSIDE) {
			return fail(r, lineno, err, errlen,
				    "frame line outside a record (no header before it)");
		}
		r->after_frame = 1;
		if (r->state == SKIPPING)
			return 0;
		it->kind = ZT_PS_FRAME;
		return 1;
	}
	if (r->after_frame && is_ws((unsigned char)s[0])) {
		r->after_frame = 0;
		if (r->state == SKIPPING)
			return 0;
		it->kind = ZT_PS_SRCLINE;
		it->text.p = s;
		it->text.n = len;
		return 1;
	}
	return fail(r, lineno, err, errlen,
		    "not a record header, a frame or a source line");
}

void zt_ps_finish(struct zt_ps_reader *r, unsigned long lineno,
		  struct zt_ps_item *it)
{
	it->kind = ZT_PS_EOF;
	it->body = ZT_PS_NOBODY;
	it->repeat = 0;
	it->lineno = lineno;
	it->unterminated = r->state == INSIDE ? r->record_line : 0;
}

/*
 * Where the blank line that ends a record ends, in the n bytes p after its
 * header line: the length through that line's '\n', or 0 when it is not
 * among them. A '\n' right after another (or first: the header's own
 * ends the line before) is a blank line.
 */
static size_t blank_line_end(const char *p, size_t n)
{
	unsigned prev = 1;	/* the header line's '\n' */
	size_t i = 0;

#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');

	/* 64 bytes a step: a bit per byte that is a '\n'. */
	for (; i + 64 <= n; i += 64) {
		const __m128i *q = (const __m128i *)(p + i);
		uint64_t m, pairs;

		m = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q), nl)) |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 1), nl)) << 16 |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 2), nl)) << 32 |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 3), nl)) << 48;
		pairs = m & (m << 1 | prev);
		if (pairs)
			return i + (size_t)__builtin_ctzll(pairs) + 1;
		prev = (unsigned)(m >> 63);
	}
#endif
	for (; i < n; i++) {
		unsigned is = p[i] == '\n';

		if (is && prev)
			return i + 1;
		prev = is;
	}
	return 0;
}

/* A stored record's frame lines, for the index. */
static const char *body_key(void *ctx, uint32_t id, size_t *len)
{
	const struct zt_ps_reader *r = ctx;

	*len = r->body[id].len;
	return r->arena + r->body[id].off;
}

/*
 * Of a record's frame lines at p (n bytes there, perhaps more of the
 * input after them), the tree of the index that holds the records that
 * may be these: by a hash of their first PREFIX bytes, or of all of them
 * when they end before. -1 when the n bytes are too few to say.
 */
static int64_t tree_of(const char *p, size_t n)
{
	size_t len = blank_line_end(p, n < PREFIX ? n : PREFIX);

	if (!len && n < PREFIX)
		return -1;
	return (int64_t)(zt_hash(p, len ? len : PREFIX, 0) & (TREES - 1));
}

/*
 * The stored record (its number in r->body) that the n bytes at p start with, or
 * -1. Records seen end at their first blank line, so none starts
 * another: the tree their first bytes pick finds the one the input starts
 * with by a few of its bytes, then compares it whole (lib/critbit.h).
 * Neither its end nor its hash is needed first: its bytes are read once.
 */
static int64_t find_body(struct zt_ps_reader *r, int j, const char *p, size_t n)
{
	int64_t t = tree_of(p, n);

	return t < 0 ? -1 : zt_critbit_find(&r->index[j], (size_t)t, p, n, body_key, r);
}

/*
 * After a kept record's header: its frame lines and blank line, when the
 * input holds them all already. A record seen before (find_body) is
 * skipped, its END handed out next; a new one is copied, to be remembered
 * at its END.
 */
static void look_ahead(struct zt_ps_reader *r, const struct zt_ps_header *h)
{
	size_t n, len = 0;
	const char *p = zt_input_ahead(r->in, 0, &n), *nl;
	unsigned long lines = 0;
	int64_t id;

	r->pend.on = 0;
	/* stackcollapse-perf.pl names the frames of a command "java..."
	   otherwise: those records are numbered apart. */
	r->java = h->comm.n >= 4 && memcmp(h->comm.p, "java", 4) == 0;
	if ((id = find_body(r, r->java, p, n)) >= 0) {
		const struct body *b = &r->body[id];

		zt_input_skip(r->in, b->len, b->lines);
		r->repeat_next = b->num;
		r->repeat_lineno = zt_input_lineno(r->in);
		return;
	}
	if (!(len = blank_line_end(p, n)))
		return;		/* not all there: line by line */
	for (nl = p; (nl = memchr(nl, '\n', (size_t)(p + len - nl))); nl++)
		lines++;
	zt_grow(&r->pend.buf, &r->pend.cap, len, 1);
	memcpy(r->pend.buf, p, len);
	r->pend.len = len;
	r->pend.lines = lines;
	r->pend.on = 1;
	r->pend.cacheable = 1;
}

/* What a record's item says about its frame lines, with repeats on. */
static void note_item(struct zt_ps_reader *r, struct zt_ps_item *it)
{
	switch (it->kind) {
	case ZT_PS_HEADER:
		look_ahead(r, &it->header);
		break;
	case ZT_PS_FRAME:
	case ZT_PS_SRCLINE:
		break;
	case ZT_PS_END:
		if (r->pend.on && r->pend.cacheable) {
			struct body *b;
			int64_t had;

			if (numbered == ZT_PS_NOBODY)
				zt_out_of_memory("more than 2^32 - 1 distinct records");
			zt_grow(&r->body, &r->capbody, r->nbody + 1, sizeof *r->body);
			zt_grow(&r->arena, &r->caparena, r->narena + r->pend.len, 1);
			b = &r->body[r->nbody];
			b->off = r->narena;
			b->len = (uint32_t)r->pend.len;
			b->lines = (uint32_t)r->pend.lines;
			b->num = numbered;
			memcpy(r->arena + b->off, r->pend.buf, r->pend.len);
			/* Not there before, or look_ahead had found it. */
			had = zt_critbit_add(&r->index[r->java],
					     (size_t)tree_of(r->arena + b->off, b->len),
					     r->arena + b->off, b->len, (uint32_t)r->nbody, body_key, r);
			if (had >= 0) {
				it->body = r->body[had].num;
			} else {
				r->narena += b->len;
				r->nbody++;
				it->body = numbered++;
			}
		}
		r->pend.on = 0;
		break;
	default:
		r->pend.cacheable = 0;
		break;
	}
}

int zt_ps_next(struct zt_ps_reader *r, struct zt_ps_item *it, char *err, size_t errlen)
{
	char *s;
	size_t len;
	int got;

	if (r->repeats && r->repeat_next != ZT_PS_NOBODY) {
		/* The end of a record seen before, whose lines were skipped. */
		it->kind = ZT_PS_END;
		it->lineno = r->repeat_lineno;
		it->unterminated = 0;
		it->body = r->repeat_next;
		it->repeat = 1;
		r->repeat_next = ZT_PS_NOBODY;
		r->state = OUTSIDE;
		r->after_frame = 0;
		return 1;
	}
	for (;;) {
		if (r->repeats && r->state == OUTSIDE)
			(void)zt_input_ahead(r->in, AHEAD, &len);
		if (!(s = zt_input_line(r->in, &len)))
			break;
		if ((got = zt_ps_line(r, s, len, zt_input_lineno(r->in), it, err, errlen)) != 0) {
			if (got > 0 && r->repeats)
				note_item(r, it);
			return got;
		}
	}
	if (zt_input_error(r->in)) {
		zt_errf(err, errlen, "%s", zt_input_error(r->in));
		return -1;
	}
	zt_ps_finish(r, zt_input_lineno(r->in), it);
	return 0;
}
