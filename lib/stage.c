/*
 * stage.c — telling a tool's input apart by its content, and handing it
 * out at the stage the tool reads: records (perf script items) or folded
 * stacks.
 *
 * A raw dump becomes the items of its symbolized stream without a pipe
 * and without a text to parse again: each distinct address is resolved
 * once and its frame lines are formatted once (lib/symstream.c,
 * zt-symbolize's writer) and read once by the perf script reader
 * (zt_ps_line); a record is then its header line, read as the stream's
 * would be, the cached items of its addresses, and its end. The records
 * are one per distinct stack (zt-symbolize --merge): every reader sums
 * records, so the result is the per-sample stream's. An address whose
 * lines the reader would not take alone as frames (none is known) sends
 * its records through the text of the stream, line by line, as before.
 *
 * For the tools that read folded stacks, records are folded here as zt-fold
 * folds them, and the stacks stay in memory (folded.h: zt_folded_stacks),
 * read by the one folded reader without being written out as text.
 */
#include "stage.h"
#include "factlines.h"
#include "folded.h"
#include "hash.h"
#include "input.h"
#include "out.h"
#include "rawfmt.h"
#include "symstream.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line of an address's, as the perf script reader read it once. */
struct cline {
	enum zt_ps_kind kind;	/* ZT_PS_FRAME or ZT_PS_SRCLINE */
	struct zt_ps_frame frame;
	struct zt_span text;
};

/*
 * The distinct addresses of a dump, each with its frame lines; after them
 * the root lines of partial stacks: k == n "[truncated]", k == n + 1
 * "[depth limit]" (root_k).
 */
struct frames {
	char *text;		/* every address's lines, one after the other */
	size_t *off;		/* address k's lines: text[off[k] .. off[k + 1]) */
	uint32_t *of;		/* per address of the pool: its k */
	uint64_t *addr;		/* per k */
	uint8_t *exact;
	const struct zt_symres **res;	/* per k: what it was resolved to */
	size_t n, capaddr, capexact, capres, capoff;	/* each array has its own */
	struct zt_hash_index ix;
	/* The lines read: address k's are line[first[k] .. first[k + 1]),
	   when items[k] (else its records go through the text). */
	struct cline *line;
	size_t *first;
	uint8_t *items;
};

struct zt_stage {
	struct zt_input *in;
	enum zt_stage_kind kind;
	int started;			/* zt_stage_records was called */
	int empty;			/* zt_stage_folded: records, but no sample */
	int lines;			/* a raw dump's source lines were asked for */
	uint64_t bucket_ns;		/* zt_stage_buckets: a record per bucket and stack */
	struct zt_ps_reader *r;
	/* A raw dump: */
	struct zt_raw d;
	int have_raw;
	struct zt_symbolizer *sym;
	struct zt_symres *res;
	struct frames fr;
	int have_frames;
	const char *comm;
	struct zt_symstream_order order;
	size_t next;			/* the next record */
	char *facts;			/* the first chunk: the facts' lines */
	struct zt_out rec;		/* the others: a record's lines */
	char *chunk;			/* the chunk being handed out ('\n' made NUL) */
	size_t chunklen, pos;
	int facts_done;
	/* The record handed out from the cached items: */
	int fast;			/* 1 its header, 2 its frames (3 skipped) */
	size_t fstack, fj, fl;		/* its stack, address, line of the address */
	int fpartial;			/* its partial (zt_stack) when its root line is to come, else 0 */
	unsigned long lineno;		/* in the stream */
	/* Folded here (zt_stage_folded): */
	struct zt_folded_stacks stacks;
	int have_stacks;
	/* Warnings: */
	char **warn;
	size_t nwarn, capwarn;
};

static void add_warning(struct zt_stage *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(struct zt_stage *s, const char *fmt, ...)
{
	va_list ap;

	zt_grow(&s->warn, &s->capwarn, s->nwarn + 1, sizeof *s->warn);
	va_start(ap, fmt);
	s->warn[s->nwarn++] = zt_vstrdupf(fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* What the input is. */

static int has_prefix(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(p, pre, k) == 0;
}

static int has_prefix_ci(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && strncasecmp(p, pre, k) == 0;
}

/*
 * Whether the first 512 bytes look like no text: control bytes (NUL among
 * them) more than one in 32. A line with one of them is text, and its
 * reader says which line holds what.
 */
static int binary(const char *p, size_t n)
{
	size_t ctl = 0, m = n < 512 ? n : 512;

	for (size_t i = 0; i < m; i++) {
		unsigned char c = (unsigned char)p[i];

		ctl += c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
		       c != '\v' && c != 0x1b;
	}
	return ctl >= 4 && ctl * 32 > m;
}

/*
 * What no tool of zt reads, and what does: NULL when the bytes are none of
 * the known kinds. gz: the bytes were inflated from gzip.
 */
static const char *foreign(const char *p, size_t n, int gz)
{
	size_t i = 0;

	if (has_prefix(p, n, "PERFILE2") || has_prefix(p, n, "PERFFILE"))
		return "a perf.data file (perf record's): perf script turns it into the text "
		       "zt reads (perf script -i FILE | zt-fold)";
	if (has_prefix(p, n, "\177ELF"))
		return "an ELF file, not a profile: zt-collect runs a program and profiles it";
	if (n > 1 && p[0] == 0x0a && binary(p + 1, n - 1))
		return gz ? "a pprof profile.proto (gzipped; zt-pprof writes them): go tool pprof "
			    "reads it"
			  : "a pprof profile.proto: go tool pprof reads it";
	if (binary(p, n))
		return "binary data, not a zt raw dump, perf script text or folded stacks";
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	p += i;
	n -= i;
	if (has_prefix(p, n, "<svg") || (has_prefix(p, n, "<?xml") && memmem(p, n, "<svg", 4)))
		return "an SVG image (a flame graph?): a web browser shows it";
	if (has_prefix(p, n, "<?xml"))
		return "an XML document, not a profile zt reads";
	if (has_prefix_ci(p, n, "<!doctype html") || has_prefix_ci(p, n, "<html"))
		return "an HTML page: a web browser shows it";
	/* An object's '{' then a key or its end: a folded stack may start
	   with '[' ("[unknown]" without its root) or even '{', never '{"'. */
	for (i = 1; n > 0 && p[0] == '{' && i < n && (p[i] == ' ' || p[i] == '\t' ||
						     p[i] == '\n' || p[i] == '\r'); i++)
		;
	if (n > 1 && p[0] == '{' && i < n && (p[i] == '"' || p[i] == '}'))
		return "JSON (a report of zt-stat --json or zt-diff --report --json, or a "
		       "speedscope profile?): no zt tool reads it; speedscope opens its own";
	return NULL;
}

/* The line at p (up to '\n' or the end), its length in *len; *more: more follow. */
static const char *line_at(const char *p, size_t n, size_t *len, int *complete)
{
	const char *nl = memchr(p, '\n', n);

	*complete = nl != NULL;
	*len = nl ? (size_t)(nl - p) : n;
	return p;
}

enum { UNDECIDED = -1 };

/*
 * The kind from the first record line (not blank, not a '#' comment) of
 * the n bytes at p; UNDECIDED when they do not say yet and at_end is 0.
 * A record header that also parses as folded is a header when the next
 * line is a frame.
 */
static int decide(const char *p, size_t n, int at_end)
{
	size_t len, stacklen, sl;
	uint64_t count;
	int complete, header, facts = 0, weight = 0;
	struct zt_ps_header h;
	const char *s;

	if (has_prefix(p, n, ZT_RAW_MAGIC) &&
	    (n == strlen(ZT_RAW_MAGIC) || p[strlen(ZT_RAW_MAGIC)] == ' ' ||
	     p[strlen(ZT_RAW_MAGIC)] == '\n'))
		return ZT_STAGE_RAW;
	for (;;) {
		s = line_at(p, n, &len, &complete);
		if (!complete && !at_end)
			return UNDECIDED;
		/* Comments only: zt-symbolize's facts of a dump without samples? */
		if (n == 0)
			return facts && !weight ? ZT_STAGE_SCRIPT : ZT_STAGE_FOLDED;
		if (len > 0 && s[0] != '#')
			break;
		facts |= has_prefix(s, len, "# zt ");
		weight |= has_prefix(s, len, "# zt weight");
		p += len + complete;
		n -= len + complete;
	}
	if (s[0] == ' ' || s[0] == '\t')
		return ZT_STAGE_SCRIPT;
	header = zt_ps_parse_header(s, len, &h) != 0;
	if (zt_folded_parse(s, len, &stacklen, &count) != NULL)
		return header ? ZT_STAGE_SCRIPT : ZT_STAGE_FOLDED;
	if (header) {
		const char *t = s + len + complete;
		size_t m = n - len - complete, tlen;

		while (m > 0 && *t == '\n')
			t++, m--;
		line_at(t, m, &tlen, &complete);
		if (!complete && !at_end)
			return UNDECIDED;
		if (m > 0 && (t[0] == ' ' || t[0] == '\t'))
			return ZT_STAGE_SCRIPT;
	}
	/* "stack before after": the stack before the last count ends in one. */
	if (zt_folded_diff_before(s, stacklen, &sl, &count) == NULL)
		return ZT_STAGE_DIFF;
	return ZT_STAGE_FOLDED;
}

struct zt_stage *zt_stage_open(const char *path, char *err, size_t errlen)
{
	struct zt_input *in = zt_input_open(path, err, errlen);

	return in ? zt_stage_open_input(in, err, errlen) : NULL;
}

struct zt_stage *zt_stage_open_input(struct zt_input *in, char *err, size_t errlen)
{
	struct zt_stage *s;
	const char *p, *what;
	size_t want = 4096, n;
	int kind = UNDECIDED;

	for (;;) {
		int at_end;

		p = zt_input_peek(in, want, &n);
		at_end = n < want;
		if (zt_input_error(in) && n < want) {
			zt_errf(err, errlen, "%s", zt_input_error(in));
			goto fail;
		}
		if (n == 0) {
			zt_err_at(err, errlen, zt_input_name(in), 0, "empty file");
			goto fail;
		}
		if ((what = foreign(p, n, zt_input_gzipped(in)))) {
			zt_err_at(err, errlen, zt_input_name(in), 0, "%s", what);
			goto fail;
		}
		kind = decide(p, n, at_end || want >= ZT_LINE_MAX);
		if (kind != UNDECIDED)
			break;
		want = want * 8 < ZT_LINE_MAX ? want * 8 : ZT_LINE_MAX;
	}
	s = zt_calloc(1, sizeof *s);
	s->in = in;
	s->kind = (enum zt_stage_kind)kind;
	return s;
fail:
	zt_input_close(in);
	return NULL;
}

enum zt_stage_kind zt_stage_kind(const struct zt_stage *s)
{
	return s->kind;
}

const char *zt_stage_name(const struct zt_stage *s)
{
	return zt_input_name(s->in);
}

int zt_stage_refuse_diff(const struct zt_stage *s, char *err, size_t errlen)
{
	if (s->kind != ZT_STAGE_DIFF)
		return 0;
	zt_err_at(err, errlen, zt_input_name(s->in), 0,
		  "differential folded stacks (zt-diff's output, two counts a line): zt-flame "
		  "draws them; this tool reads one profile");
	return -1;
}

struct zt_input *zt_stage_input(struct zt_stage *s)
{
	return s->in;
}

/* ------------------------------------------------------------------ */
/* Records. */

int zt_stage_records(struct zt_stage *s, const struct zt_symopts *o, char *err,
		     size_t errlen)
{
	const char *const *w;
	size_t n;

	s->started = 1;
	s->r = zt_ps_reader_new(s->in);
	if (o)
		zt_ps_reader_set_view(s->r, o->view);
	if (s->kind != ZT_STAGE_RAW)
		return 0;
	s->have_raw = 1;
	if (zt_raw_read(s->in, &s->d, err, errlen) < 0)
		return -1;
	s->sym = zt_symbolizer_new(&s->d, o);
	s->lines = o && o->lines;
	s->res = zt_symstream_resolve(s->sym, &s->d);
	w = zt_symbolizer_warnings(s->sym, &n);
	if (zt_symbolizer_debuginfod_note(s->sym))
		add_warning(s, "%s", zt_symbolizer_debuginfod_note(s->sym));
	for (size_t i = 0; i < n; i++)
		add_warning(s, "%s", w[i]);
	s->comm = zt_symstream_comm(&s->d);
	zt_symstream_order(&s->d, !s->bucket_ns, &s->order);
	zt_symstream_bucket(&s->d, s->bucket_ns, &s->order);
	return 0;
}

void zt_stage_buckets(struct zt_stage *s, uint64_t bucket_ns)
{
	s->bucket_ns = bucket_ns;
}

struct zt_ps_reader *zt_stage_reader(struct zt_stage *s)
{
	return s->r;
}

struct zt_raw *zt_stage_raw(struct zt_stage *s)
{
	return s->have_raw ? &s->d : NULL;
}

struct zt_symbolizer *zt_stage_symbolizer(struct zt_stage *s)
{
	return s->sym;
}

/* The key of a distinct frame: its address, exact, and its answer (one
   address can name two libraries loaded there in turn). */
struct frame_key {
	uint64_t addr;
	uint8_t exact;
	const struct zt_symres *res;
};

static int frame_eq(void *ctx, uint32_t i, const void *key)
{
	const struct frames *fr = ctx;
	const struct frame_key *k = key;

	return fr->addr[i] == k->addr && fr->exact[i] == k->exact &&
	       zt_symres_same(fr->res[i], k->res);
}

/*
 * Read each address's lines once, as the stream's reader reads them inside
 * a record: a reader of its own is given a header, then the lines. An
 * address's items stand for its lines in any record when its first line
 * is a frame (what a line is does not then depend on the line before the
 * address) and every line gave an item.
 */
static void read_frames(struct frames *fr)
{
	static const char head[] = "zt 1/1 0.000000: 1 zt-samples:";
	struct zt_ps_reader *r = zt_ps_reader_new(NULL);
	struct zt_ps_item it;
	char err[ZT_ERR_MAX];
	size_t nline = 0, capline = 0;

	fr->first = zt_calloc(fr->n + 3, sizeof *fr->first);
	fr->items = zt_calloc(fr->n + 2, sizeof *fr->items);
	for (size_t k = 0; k <= fr->n + 1; k++) {
		char *p = fr->text + fr->off[k], *end = fr->text + fr->off[k + 1];
		int ok = zt_ps_line(r, head, sizeof head - 1, 1, &it, err, sizeof err) == 1;

		fr->first[k] = nline;
		while (ok && p < end) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

			ok = zt_ps_line(r, p, len, 2, &it, err, sizeof err) == 1 &&
			     (it.kind == ZT_PS_FRAME ||
			      (it.kind == ZT_PS_SRCLINE && nline > fr->first[k]));
			if (ok) {
				zt_grow(&fr->line, &capline, nline + 1, sizeof *fr->line);
				fr->line[nline++] = (struct cline){ it.kind, it.frame, it.text };
			}
			p += len + 1;
		}
		if (!ok)
			nline = fr->first[k];
		fr->items[k] = ok && nline > fr->first[k];
		/* Close the record, or start afresh after a line that failed. */
		if (!ok || zt_ps_line(r, "", 0, 3, &it, err, sizeof err) != 1) {
			zt_ps_reader_free(r);
			r = zt_ps_reader_new(NULL);
		}
	}
	fr->first[fr->n + 2] = nline;
	zt_ps_reader_free(r);
}

/* Each distinct address's lines, formatted once as zt-symbolize writes them. */
static void make_frames(struct zt_stage *s)
{
	struct frames *fr = &s->fr;
	const struct zt_raw *d = &s->d;
	struct zt_out text = { 0 };	/* an arena: fr->text keeps its buffer */

	fr->of = zt_calloc(d->naddr ? d->naddr : 1, sizeof *fr->of);
	for (size_t i = 0; i < d->naddr; i++) {
		struct frame_key key = { d->addr[i], d->exact[i] != 0, &s->res[i] };
		uint64_t h = zt_hash_u64(key.addr * 2 + key.exact);
		int64_t k = zt_hash_index_find(&fr->ix, h, frame_eq, fr, &key);

		if (k < 0) {
			zt_grow(&fr->addr, &fr->capaddr, fr->n + 1, sizeof *fr->addr);
			zt_grow(&fr->exact, &fr->capexact, fr->n + 1, sizeof *fr->exact);
			zt_grow(&fr->res, &fr->capres, fr->n + 1, sizeof *fr->res);
			zt_grow(&fr->off, &fr->capoff, fr->n + 2, sizeof *fr->off);
			fr->addr[fr->n] = key.addr;
			fr->exact[fr->n] = key.exact;
			fr->res[fr->n] = key.res;
			fr->off[fr->n] = text.len;
			zt_symstream_frame(&text, d->addr[i], &s->res[i], s->lines);
			zt_hash_index_add(&fr->ix, h, (uint32_t)fr->n);
			k = (int64_t)fr->n++;
		}
		fr->of[i] = (uint32_t)k;
	}
	zt_grow(&fr->off, &fr->capoff, fr->n + 3, sizeof *fr->off);
	fr->off[fr->n] = text.len;
	zt_symstream_root(&text, ZT_STACK_PARTIAL, s->lines);
	fr->off[fr->n + 1] = text.len;
	zt_symstream_root(&text, ZT_STACK_DEPTH, s->lines);
	fr->off[fr->n + 2] = text.len;
	fr->text = text.buf;
	read_frames(fr);
	s->have_frames = 1;
}

/* The k of the root line of a stack whose partial is partial (struct frames). */
static size_t root_k(const struct frames *fr, int partial)
{
	return fr->n + (partial == ZT_STACK_DEPTH);
}

/* Whether every line of stack st's record is in the cache. */
static int cached(const struct zt_stage *s, const struct zt_stack *st)
{
	const struct frames *fr = &s->fr;

	for (size_t j = st->first; j < st->first + st->naddr; j++)
		if (!fr->items[fr->of[j]])
			return 0;
	return !st->partial || fr->items[root_k(fr, st->partial)];
}

/* Whether stack st is partial and did not reach a Go root (its root line). */
static int cut(const struct zt_stage *s, const struct zt_stack *st)
{
	const struct frames *fr = &s->fr;
	uint32_t k;

	if (!st->partial)
		return 0;
	if (!st->naddr)
		return 1;
	k = fr->of[st->first + st->naddr - 1];
	return !zt_symstream_go_root(fr->text + fr->off[k], fr->off[k + 1] - fr->off[k]);
}

/* Address j of the cached record's stack (its partial root after the last): its k. */
static size_t cached_k(const struct zt_stage *s, size_t j)
{
	const struct zt_stack *st = &s->d.stacks[s->fstack];

	return j < st->naddr ? s->fr.of[st->first + j] : root_k(&s->fr, s->fpartial);
}

/*
 * The next item of the cached record after its header: its frames and
 * source lines, then its end, read by the reader as a blank line would be
 * (1, or -1 with the message in err). With skip (its header was skipped),
 * only its lines are counted and its end read.
 */
static int next_cached(struct zt_stage *s, struct zt_ps_item *it, int skip, char *err,
		       size_t errlen)
{
	const struct frames *fr = &s->fr;
	size_t n = s->d.stacks[s->fstack].naddr + (size_t)(s->fpartial != 0);

	while (s->fj < n) {
		size_t k = cached_k(s, s->fj), l = fr->first[k] + s->fl;

		if (skip) {
			s->lineno += fr->first[k + 1] - fr->first[k];
		} else if (l < fr->first[k + 1]) {
			const struct cline *c = &fr->line[l];

			s->fl++;
			it->kind = c->kind;
			it->lineno = ++s->lineno;
			it->frame = c->frame;
			it->text = c->text;
			it->unterminated = 0;
			it->body = ZT_PS_NOBODY;
			it->repeat = 0;
			return 1;
		}
		s->fj++;
		s->fl = 0;
	}
	s->fast = 0;
	return zt_ps_line(s->r, "", 0, ++s->lineno, it, err, errlen);
}

/* The next chunk of the stream: its facts, then one record. 0 after the last. */
static int next_chunk(struct zt_stage *s)
{
	const struct zt_raw *d = &s->d;

	if (!s->facts_done) {
		const char *const *w = (const char *const *)s->warn;
		size_t n = 0;
		FILE *f = open_memstream(&s->facts, &n);

		s->facts_done = 1;
		if (!f)
			zt_out_of_memory("the facts of a raw dump");
		zt_factlines_write(f, d, w, s->nwarn);
		if (fclose(f) != 0)
			zt_out_of_memory("the facts of a raw dump");
		s->chunk = s->facts;
		s->chunklen = n;
	} else if (s->next < s->order.n) {
		const struct zt_stack *st;
		uint64_t ns, count;
		size_t stack;

		if (!s->have_frames)
			make_frames(s);
		zt_symstream_record(d, &s->order, s->next++, &stack, &ns, &count);
		st = &d->stacks[stack];
		s->rec.len = 0;
		zt_symstream_header(&s->rec, d, s->comm, stack, ns, count);
		if (zt_raw_wait(d, st))
			zt_symstream_wait(&s->rec, zt_raw_wait(d, st), s->lines);
		if (st->own)
			zt_symstream_own(&s->rec, s->lines);
		if (cached(s, st)) {
			/* The header (and wait) alone: its frames come from the cache. */
			s->fast = 1;
			s->fstack = stack;
			s->fj = s->fl = 0;
			s->fpartial = cut(s, st) ? st->partial : 0;
		} else {
			for (size_t j = st->first; j < st->first + st->naddr; j++) {
				uint32_t k = s->fr.of[j];

				zt_out_write(&s->rec, s->fr.text + s->fr.off[k],
					     s->fr.off[k + 1] - s->fr.off[k]);
			}
			if (cut(s, st))
				zt_symstream_root(&s->rec, st->partial, s->lines);
			zt_out_byte(&s->rec, '\n');
		}
		s->chunk = s->rec.buf;
		s->chunklen = s->rec.len;
	} else {
		return 0;
	}
	s->pos = 0;
	return 1;
}

/* The next item of a raw dump's stream. */
static int next_raw(struct zt_stage *s, struct zt_ps_item *it, char *err, size_t errlen)
{
	for (;;) {
		while (s->pos < s->chunklen) {
			char *line = s->chunk + s->pos, *nl;
			size_t len;
			int got;

			nl = memchr(line, '\n', s->chunklen - s->pos);
			len = nl ? (size_t)(nl - line) : s->chunklen - s->pos;
			line[len] = '\0';
			s->pos += len + 1;
			s->lineno++;
			got = zt_ps_line(s->r, line, len, s->lineno, it, err, errlen);
			/* The header: 0 for a record of another event, skipped. */
			if (s->fast == 1)
				s->fast = got > 0 ? 2 : 3;
			if (got != 0)
				return got;
		}
		/* The chunk's lines handed out, its cached ones follow. */
		if (s->fast >= 2) {
			int got = next_cached(s, it, s->fast == 3, err, errlen);

			if (got != 0)
				return got;
			continue;
		}
		if (!next_chunk(s))
			break;
	}
	zt_ps_finish(s->r, s->lineno, it);
	return 0;
}

int zt_stage_next(struct zt_stage *s, struct zt_ps_item *it, char *err, size_t errlen)
{
	int got = s->kind == ZT_STAGE_RAW ? next_raw(s, it, err, errlen)
					  : zt_ps_next(s->r, it, err, errlen);

	if (got == 0 && it->unterminated)
		add_warning(s, "%s: line %lu: last record has no blank line after it; "
			    "dropped, as stackcollapse-perf.pl drops it",
			    zt_input_name(s->in), it->unterminated);
	return got;
}

const char *const *zt_stage_warnings(const struct zt_stage *s, size_t *n)
{
	*n = s->nwarn;
	return (const char *const *)s->warn;
}

/* ------------------------------------------------------------------ */
/* Folding. */

int zt_stage_fold(struct zt_stage *s, struct zt_perfscriptfold *f, struct zt_stage_events *ev,
		  char *err, size_t errlen)
{
	struct zt_ps_item it;
	const char *problem, *skipped;
	unsigned long n;
	int got;

	if (ev->event)
		zt_ps_reader_set_event(s->r, ev->event, strlen(ev->event));
	/* zt_perfscriptfold_item keeps what a record gave: repeats need not be
	   read again. */
	zt_ps_reader_set_repeats(s->r, 1);
	while ((got = zt_stage_next(s, &it, err, errlen)) > 0) {
		if ((problem = zt_perfscriptfold_item(f, &it))) {
			zt_err_at(err, errlen, zt_input_name(s->in), it.lineno, "%s", problem);
			return -1;
		}
	}
	if (got < 0)
		return -1;
	if (!ev->event && zt_ps_reader_event(s->r))
		ev->event = zt_strdup(zt_ps_reader_event(s->r));
	n = zt_ps_reader_skipped(s->r, &skipped);
	if (n && !ev->skipped_event)
		ev->skipped_event = zt_strdup(skipped);
	ev->skipped += n;
	return 0;
}

char *zt_stage_events_end(struct zt_stage_events *ev)
{
	char *msg = NULL;
	char buf[ZT_ERR_MAX];

	if (ev->skipped) {
		snprintf(buf, sizeof buf, "skipped %lu records of other events than '%s' "
			 "(the first was '%s')", ev->skipped, ev->event, ev->skipped_event);
		msg = zt_strdup(buf);
	}
	free(ev->event);
	free(ev->skipped_event);
	*ev = (struct zt_stage_events){ 0 };
	return msg;
}

/*
 * Say, once in a process (a tool reads all its inputs through here), that
 * perf's periods became samples: a record of perf script is one sample,
 * whatever its period (ns of cpu-clock or task-clock, events of cycles,
 * 1 for a tracepoint), as zt-stat counts them.
 */
static void note_periods(struct zt_stage *s, const struct zt_weight *w)
{
	static int said;

	if (said || w->kind != ZT_WEIGHT_PERIOD || !w->n || (!w->varies && w->min <= 1))
		return;
	said = 1;
	if (w->varies)
		add_warning(s, "%s: each record of perf's '%s' is taken as one sample (their "
			    "periods vary from %llu events, as perf record -F sets them)",
			    zt_input_name(s->in), w->event, (unsigned long long)w->min);
	else
		add_warning(s, "%s: each record of perf's '%s' is taken as one sample (a "
			    "period of %llu %s)", zt_input_name(s->in), w->event,
			    (unsigned long long)w->min, zt_weight_unit(w));
}

int zt_stage_folded(struct zt_stage *s, struct zt_folded_reader *rd,
		    const struct zt_symopts *o, char *err, size_t errlen)
{
	struct zt_framenames_opts co = { 0 };
	struct zt_stage_events ev = { 0 };
	struct zt_perfscriptfold *f;
	char *msg;
	int rc;

	if (s->kind == ZT_STAGE_FOLDED || s->kind == ZT_STAGE_DIFF) {
		zt_folded_reader_init(rd, s->in);
		return 0;
	}
	if (s->have_stacks)
		goto done;
	if (!s->started && zt_stage_records(s, o, err, errlen) < 0)
		return -1;
	/* One sample a record: the tools that read folded stacks want
	   counts (zt-diff tests them, zt-pprof writes them), and perf's
	   periods are not counts (see note_periods). */
	co.count = 1;
	f = zt_perfscriptfold_new(&co);
	rc = zt_stage_fold(s, f, &ev, err, errlen);
	msg = zt_stage_events_end(&ev);
	if (msg) {
		add_warning(s, "%s", msg);
		free(msg);
	}
	if (rc < 0) {
		zt_perfscriptfold_free(f);
		return -1;
	}
	s->empty = zt_perfscriptfold_records(f) == 0;
	/* What the counts weigh is declared as zt-fold --weight=count
	   declares it: samples, or a wall-clock profile's ns. */
	note_periods(s, zt_perfscriptfold_weight(f));
	zt_perfscriptfold_stacks(f, &s->stacks);
	zt_perfscriptfold_free(f);
	s->have_stacks = 1;
done:
	zt_folded_reader_init_stacks(rd, &s->stacks, zt_input_name(s->in));
	return 0;
}

int zt_stage_empty(const struct zt_stage *s)
{
	return s->empty;
}

void zt_stage_empties_add(struct zt_stage_empties *e, const char *name, int empty)
{
	size_t n;

	if (!empty) {
		e->full++;
		return;
	}
	n = strlen(name);
	zt_grow(&e->names, &e->cap, e->len + n + 3, 1);
	if (e->empty++) {
		memcpy(e->names + e->len, ", ", 2);
		e->len += 2;
	}
	memcpy(e->names + e->len, name, n + 1);
	e->len += n;
}

char *zt_stage_empties_end(struct zt_stage_empties *e, int *fatal)
{
	char buf[ZT_ERR_MAX];

	*fatal = !e->full;
	if (!e->empty && !e->full)
		snprintf(buf, sizeof buf, "no samples: no input");
	else if (!e->full && e->empty == 1)
		snprintf(buf, sizeof buf, "%s: no samples in the input", e->names);
	else if (!e->full)
		snprintf(buf, sizeof buf, "no samples in any input (%s)", e->names);
	else if (e->empty && e->full == 1)
		snprintf(buf, sizeof buf, "no samples in %s; read the other input", e->names);
	else if (e->empty)
		snprintf(buf, sizeof buf, "no samples in %s; read the other %lu inputs",
			 e->names, e->full);
	free(e->names);
	if (e->full && !e->empty) {
		*e = (struct zt_stage_empties){ 0 };
		return NULL;
	}
	*e = (struct zt_stage_empties){ 0 };
	return zt_strdup(buf);
}

int zt_stage_empties_settle(struct zt_stage_empties *e, int failed, char *err, size_t errlen)
{
	int fatal, rc = 0;
	char *msg = zt_stage_empties_end(e, &fatal);

	if (!failed && msg && fatal) {
		zt_errf(err, errlen, "%s", msg);
		rc = -1;
	} else if (!failed && msg) {
		zt_warn("%s", msg);
	}
	free(msg);
	return rc;
}

void zt_stage_close(struct zt_stage *s)
{
	if (!s)
		return;
	zt_folded_stacks_free(&s->stacks);
	zt_ps_reader_free(s->r);
	zt_input_close(s->in);
	free(s->facts);
	zt_out_free(&s->rec);
	free(s->fr.text);
	free(s->fr.off);
	free(s->fr.of);
	free(s->fr.addr);
	free(s->fr.exact);
	free(s->fr.res);
	free(s->fr.line);
	free(s->fr.first);
	free(s->fr.items);
	zt_hash_index_free(&s->fr.ix);
	free(s->res);
	zt_symbolizer_free(s->sym);
	if (s->have_raw)
		zt_raw_free(&s->d);
	for (size_t i = 0; i < s->nwarn; i++)
		free(s->warn[i]);
	free(s->warn);
	free(s);
}
