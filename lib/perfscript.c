/*
 * perfscript.c — the perf script line grammar, as stackcollapse-perf.pl's
 * regular expressions define it, written out as scans so that a line costs
 * one pass or two. The comments give each expression; the code follows
 * Perl's leftmost, greedy-then-backtracking choice wherever it changes the
 * captured text, so odd lines split the same way in both.
 */
#include "perfscript.h"
#include "input.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Perl's \s, \d and \w on byte strings. */
static inline int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int is_word(unsigned char c)
{
	return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/*
 * /:\s*(\d+)*\s+(\S+):\s*$/ tried at the ':' at s[i]. On a match, sets
 * the event and the period digits (empty when the group did not match).
 */
static int event_at(const char *s, size_t len, size_t i, struct zt_span *ev,
		    struct zt_span *digits)
{
	size_t k = i + 1, w = k, d, e, r, end;
	int tries;

	while (w < len && is_ws((unsigned char)s[w]))
		w++;
	/* First with the digits group, then without it. */
	for (tries = 0; tries < 2; tries++) {
		digits->p = s + w;
		digits->n = 0;
		if (tries == 0) {
			d = w;
			while (d < len && is_digit((unsigned char)s[d]))
				d++;
			if (d == w)
				continue;
			e = d;
			while (e < len && is_ws((unsigned char)s[e]))
				e++;
			if (e == d)
				continue;
			digits->n = d - w;
		} else {
			if (w == k)
				return 0;
			e = w;
		}
		/* (\S+):\s*$ — one run of non-space ending in ':', then space. */
		r = e;
		while (r < len && !is_ws((unsigned char)s[r]))
			r++;
		end = r;
		while (end < len && is_ws((unsigned char)s[end]))
			end++;
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
static int cpu_or_time_at(const char *s, size_t len, size_t j)
{
	size_t k = j;

	if (j < len && s[j] == '[')
		return j + 1 < len && is_digit((unsigned char)s[j + 1]);
	while (k < len && is_digit((unsigned char)s[k]))
		k++;
	if (k == j || k >= len || s[k] != '.')
		return 0;
	j = ++k;
	while (k < len && is_digit((unsigned char)s[k]))
		k++;
	return k > j && k < len && s[k] == ':';
}

/*
 * The ids after a command that ends at s[e] (a space):
 * \s+(\d+)\/ * (\d+)*\s+ (no space before the star). Sets the digits'
 * bounds and *next to the first byte after the spaces that end them.
 */
static int ids_at(const char *s, size_t len, size_t e, size_t *d1, size_t *d1end,
		  size_t *d2, size_t *d2end, size_t *next)
{
	size_t j = e;

	while (j < len && is_ws((unsigned char)s[j]))
		j++;
	*d1 = j;
	while (j < len && is_digit((unsigned char)s[j]))
		j++;
	if (j == *d1)
		return 0;
	*d1end = j;
	while (j < len && s[j] == '/')
		j++;
	*d2 = j;
	while (j < len && is_digit((unsigned char)s[j]))
		j++;
	*d2end = j;
	if (j == len || !is_ws((unsigned char)s[j]))
		return 0;
	while (j < len && is_ws((unsigned char)s[j]))
		j++;
	*next = j;
	return 1;
}

int zt_ps_parse_header(const char *s, size_t len, struct zt_ps_header *h)
{
	size_t e, first = 0, d1 = 0, d1end = 0, d2 = 0, d2end = 0, next;
	size_t f1 = 0, f1end = 0, f2 = 0, f2end = 0;

	/* ^(\S.+?)\s+(\d+)\/ * (\d+)*\s+ — the shortest command that works,
	   as Perl splits it. But a thread name may hold spaces and numbers
	   (`io worker 1 1234/1235 10.5: ...`), where that command stops at
	   `io worker` and takes the name's 1 for the thread id: when a longer
	   command is followed by ids and then by the CPU or the time, perf
	   script's next fields, that split is the header's, and Perl's is
	   wrong. The two agree on every header whose command has no ` N `. */
	if (len < 4 || is_ws((unsigned char)s[0]))
		return 0;
	for (e = 2; e < len; e++) {
		size_t a, aend, b, bend;

		if (!is_ws((unsigned char)s[e]))
			continue;
		if (e > 2 && is_ws((unsigned char)s[e - 1]))
			continue;	/* the same tail was tried one byte ago */
		if (!ids_at(s, len, e, &a, &aend, &b, &bend, &next))
			continue;
		if (!first) {
			first = e;
			f1 = a, f1end = aend, f2 = b, f2end = bend;
		}
		if (cpu_or_time_at(s, len, next)) {
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

	h->period = 1;
	for (size_t i = 0; i < len; i++) {
		struct zt_span ev, dg;
		uint64_t v = 0;

		if (s[i] != ':' || !event_at(s, len, i, &ev, &dg))
			continue;
		h->event = ev;
		if (dg.n == 0 || (dg.n == 1 && dg.p[0] == '0'))
			break;		/* Perl: `$period = 1 if not $period` */
		for (size_t k = 0; k < dg.n; k++) {
			unsigned c = (unsigned)(dg.p[k] - '0');
			if (v > (UINT64_MAX - c) / 10)
				return -1;
			v = v * 10 + c;
		}
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
	uint64_t bytes;
};

struct zt_ps_reader *zt_ps_reader_new(struct zt_input *in)
{
	struct zt_ps_reader *r = zt_calloc(1, sizeof *r);

	r->in = in;
	return r;
}

void zt_ps_reader_free(struct zt_ps_reader *r)
{
	if (!r)
		return;
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

uint64_t zt_ps_reader_bytes(const struct zt_ps_reader *r)
{
	return r->bytes;
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
	it->lineno = lineno;
	r->bytes += len + 1;
	if (memchr(s, '\0', len)) {
		return fail(r, lineno, err, errlen,
			    "NUL byte in text (a binary file?)");
	}
	if (len > 0 && s[len - 1] == '\r') {
		return fail(r, lineno, err, errlen,
			    "line ends in CR (CRLF line endings are not accepted)");
	}
	if (len > 0 && s[0] == '#') {
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
		if (ev->n && !r->event) {
			zt_ps_reader_set_event(r, ev->p, ev->n);
		} else if (ev->n && (ev->n != r->eventlen ||
				     memcmp(ev->p, r->event, ev->n) != 0)) {
			if (!r->skipped_event)
				r->skipped_event = zt_strndup(ev->p, ev->n);
			r->skipped++;
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
	it->lineno = lineno;
	it->unterminated = r->state == INSIDE ? r->record_line : 0;
}

int zt_ps_next(struct zt_ps_reader *r, struct zt_ps_item *it, char *err, size_t errlen)
{
	char *s;
	size_t len;
	int got;

	while ((s = zt_input_line(r->in, &len)))
		if ((got = zt_ps_line(r, s, len, zt_input_lineno(r->in), it, err, errlen)) != 0)
			return got;
	if (zt_input_error(r->in)) {
		zt_errf(err, errlen, "%s", zt_input_error(r->in));
		return -1;
	}
	zt_ps_finish(r, zt_input_lineno(r->in), it);
	return 0;
}
