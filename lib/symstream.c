/*
 * symstream.c — zt-symbolize's stream: records of resolved addresses in
 * the perf script text layout. The one writer of that layout, for
 * zt-symbolize and for the readers of raw dumps in lib/stage.c.
 *
 * What a record holds repeats: the same addresses in sample after sample,
 * the same thread in record after record. zt_symstream_write formats each
 * distinct address's frame lines (names, modules and paths escaped) once,
 * each stack's frames and its header's "thread pid/tid " once, into an
 * arena, and then a record costs its time and count in decimal and a copy
 * of those bytes, written in blocks (lib/out.h): no per-byte stdio.
 *
 * A wall-clock profile (raw version 5) gives each record its weight in ns
 * as its period, event zt-wall-ns, and an off-CPU stack its wait as the
 * leaf frame "[futex]", so that every perf-script reader sums time and
 * shows what the thread waited in. An allocation sample (raw version 6)
 * is two records of its own events, its bytes and its objects
 * (zt-alloc-bytes, zt-alloc-objects, zt-inuse-..., zt-peak-...), each
 * with its stack's weight as its period.
 */
#include "symstream.h"
#include "escape.h"
#include "hash.h"
#include "out.h"
#include "rawfmt.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_symres *zt_symstream_resolve(struct zt_symbolizer *s, const struct zt_raw *d)
{
	struct zt_symres *res = zt_calloc(d->naddr ? d->naddr : 1, sizeof *res);
	uint32_t *gen = zt_calloc(d->naddr ? d->naddr : 1, sizeof *gen);

	/* Each address is named from the maps of its stack's samples. */
	for (size_t i = 0; i < d->nstacks; i++)
		for (size_t j = 0; j < d->stacks[i].naddr; j++)
			gen[d->stacks[i].first + j] = d->stacks[i].gen;
	zt_symbolize_all(s, d->addr, d->exact, gen, d->naddr, res);
	zt_symbolizer_named(s, d, res);
	free(gen);
	return res;
}

const char *zt_symstream_comm(const struct zt_raw *d)
{
	if (d->exe && *d->exe)
		return zt_maps_basename(d->exe);
	for (size_t i = 0; i < d->nmaps; i++)
		if (d->maps[i].offset == 0 && zt_maps_is_file(&d->maps[i]))
			return zt_maps_basename(d->maps[i].path);
	return "unknown";
}

/*
 * Escaped strings, each written once: the names, modules and paths of a
 * stream's frames are a few thousand strings that the symbolizer keeps
 * (each pointer always the same text), repeated over every distinct
 * address. NULL: escape at every use.
 */
struct escaped {
	struct zt_out text;	/* the escaped bytes, one after another */
	struct esc {
		const char *s, *extra;
		size_t off, len;
	} *ents;
	size_t n, cap;
	struct zt_hash_index ix;
};

static int esc_eq(void *ctx, uint32_t i, const void *key)
{
	const struct escaped *c = ctx;
	const struct esc *k = key;

	return c->ents[i].s == k->s && c->ents[i].extra == k->extra;
}

/* s escaped (escape.h's zt_escape_out) into o, from c when it was before. */
static void escape(struct zt_out *o, struct escaped *c, const char *s, const char *extra)
{
	struct esc key = { s, extra, 0, 0 };
	uint64_t h;
	int64_t i;

	if (!c) {
		zt_escape_out(o, s, extra);
		return;
	}
	h = zt_hash_u64((uint64_t)(uintptr_t)s ^ zt_hash_u64((uint64_t)(uintptr_t)extra));
	i = zt_hash_index_find(&c->ix, h, esc_eq, c, &key);
	if (i < 0) {
		key.off = c->text.len;
		zt_escape_out(&c->text, s, extra);
		key.len = c->text.len - key.off;
		zt_grow(&c->ents, &c->cap, c->n + 1, sizeof *c->ents);
		c->ents[c->n] = key;
		zt_hash_index_add(&c->ix, h, (uint32_t)c->n);
		i = (int64_t)c->n++;
	}
	zt_out_write(o, c->text.buf + c->ents[i].off, c->ents[i].len);
}

static void escaped_free(struct escaped *c)
{
	zt_out_free(&c->text);
	free(c->ents);
	zt_hash_index_free(&c->ix);
}

/* A source line under its frame, as perf script -F +srcline prints it. */
static void srcline(struct zt_out *o, struct escaped *c, const char *file, unsigned line)
{
	zt_out_write(o, "  ", 2);
	escape(o, c, file, NULL);
	zt_out_byte(o, ':');
	zt_out_dec(o, line, 0);
	zt_out_byte(o, '\n');
}

/*
 * With source lines asked for, the line of a frame that has none, as perf
 * script -F +srcline prints it: "name+OFFSET" (decimal) when a symbol or
 * an .eh_frame function names the frame, "module[ADDRESS]" (hex, the
 * address of the frame line) when nothing does, so that every frame has
 * its line and a reader that takes the line after a frame for its source
 * (stackcollapse-perf.pl --srcline) never takes the record's blank line,
 * and the next record with it, for one.
 */
static void no_srcline(struct zt_out *o, struct escaped *c, uint64_t addr,
		       const struct zt_symres *r)
{
	const char *base = strrchr(r->module, '/');

	zt_out_write(o, "  ", 2);
	if (r->have_sym || r->fde) {
		escape(o, c, r->name, NULL);
		zt_out_byte(o, '+');
		zt_out_dec(o, r->offset, 0);
	} else {
		escape(o, c, base ? base + 1 : r->module, NULL);
		zt_out_byte(o, '[');
		zt_out_hex(o, addr, 0);
		zt_out_byte(o, ']');
	}
	zt_out_byte(o, '\n');
}

/* zt_symstream_frame's lines, into o. */
static void format_frame(struct zt_out *o, struct escaped *c, uint64_t addr,
			 const struct zt_symres *r, int lines)
{
	for (size_t k = 0; k < r->ninl; k++) {
		zt_out_byte(o, '\t');
		zt_out_hex(o, addr, 16);
		zt_out_byte(o, ' ');
		escape(o, c, r->inl[k].name, NULL);
		zt_out_str(o, " (inlined)\n");
		if (r->inl[k].file)
			srcline(o, c, r->inl[k].file, r->inl[k].line);
		else if (lines)
			no_srcline(o, c, addr, r);
	}
	zt_out_byte(o, '\t');
	zt_out_hex(o, addr, 16);
	zt_out_byte(o, ' ');
	escape(o, c, r->name, NULL);
	if (r->have_sym || r->fde) {
		zt_out_write(o, "+0x", 3);
		zt_out_hex(o, r->offset, 0);
	}
	/* perf-script readers take the module as the last "(\S*)": no space,
	 * no parenthesis inside it. */
	zt_out_write(o, " (", 2);
	escape(o, c, r->module, " ()");
	zt_out_write(o, ")\n", 2);
	if (r->file)
		srcline(o, c, r->file, r->line);
	else if (lines)
		no_srcline(o, c, addr, r);
}

/* The start of a header line: "thread pid/tid ". */
static void format_start(struct zt_out *o, const struct zt_raw *d, const char *comm,
			 size_t stack)
{
	const struct zt_stack *st = &d->stacks[stack];
	const char *name = zt_raw_thread_name(d, st->tid);

	/* A ';' in a thread name would split the folded stack. */
	zt_escape_out(o, name && *name ? name : comm, ";");
	zt_out_byte(o, ' ');
	zt_out_dec(o, d->have_pid ? d->pid : st->tid, 0);
	zt_out_byte(o, '/');
	zt_out_dec(o, st->tid, 0);
	zt_out_byte(o, ' ');
}

/* The events of a stack's records, by its alloc (enum zt_alloc_kind), with
   the space before and the colon after. */
static const char *const events[ZT_ALLOC_KINDS] = {
	[ZT_ALLOC_NONE] = " " ZT_EVENT_SAMPLES ":\n",
	[ZT_ALLOC_SPACE] = " " ZT_EVENT_ALLOC_BYTES ":\n",
	[ZT_ALLOC_OBJECTS] = " " ZT_EVENT_ALLOC_OBJECTS ":\n",
	[ZT_INUSE_SPACE] = " " ZT_EVENT_INUSE_BYTES ":\n",
	[ZT_INUSE_OBJECTS] = " " ZT_EVENT_INUSE_OBJECTS ":\n",
	[ZT_PEAK_SPACE] = " " ZT_EVENT_PEAK_BYTES ":\n",
	[ZT_PEAK_OBJECTS] = " " ZT_EVENT_PEAK_OBJECTS ":\n",
};
static const char wallns[] = " " ZT_EVENT_WALL ":\n";

/* " zt-samples:\n", " zt-wall-ns:\n" in a wall profile, or an allocation's. */
static const char *event_of(const struct zt_raw *d, const struct zt_stack *st)
{
	if (st->alloc > ZT_ALLOC_NONE && st->alloc < ZT_ALLOC_KINDS)
		return events[st->alloc];
	return d->wall ? wallns : events[ZT_ALLOC_NONE];
}

/* The rest of it: "seconds: period zt-samples:\n" (event_of's). */
static void format_time(struct zt_out *o, uint64_t ns, uint64_t period, const char *event)
{
	zt_out_dec(o, ns / 1000000000u, 0);
	zt_out_byte(o, '.');
	zt_out_dec(o, ns % 1000000000u / 1000u, 6);
	zt_out_write(o, ": ", 2);
	zt_out_dec(o, period, 0);
	zt_out_str(o, event);
}

void zt_symstream_wait_name(struct zt_out *o, const char *wait, const char *esc)
{
	zt_out_byte(o, '[');
	if (esc)
		zt_escape_out(o, wait, esc);
	else
		zt_out_str(o, wait);
	zt_out_byte(o, ']');
}

/* A pseudo-frame's line up to its name: at address 0, as perf script prints
 * a frame. */
#define FRAME_AT_0 "\t               0 "

/* An off-CPU stack's leaf: its wait's frame at address 0, as perf script
 * prints a frame; a ';' in it would split the folded stack. */
static void format_wait(struct zt_out *o, const char *wait, int lines)
{
	zt_out_str(o, FRAME_AT_0);
	zt_symstream_wait_name(o, wait, ";");
	zt_out_str(o, " (" ZT_WAIT_MODULE ")\n");
	if (lines)
		zt_out_str(o, "  " ZT_WAIT_MODULE "[0]\n");
}

/* The collector's own work, cut from its stack (raw.c's own_frames): one
 * leaf frame, at address 0, as perf script prints a frame. */
static const char own[] = FRAME_AT_0 ZT_OWN_FRAME " (" ZT_OWN_FRAME ")\n";
static const char own_line[] = "  " ZT_OWN_FRAME "[0]\n";

/* The unwinder stopped short, or the collector kept only max-depth frames:
 * say so at the root (zt_symstream_root_name), never pass the stack off as
 * whole. */
static const char root_end[] = " ([unknown])\n";
static const char root_line[] = "  [unknown][0]\n";

/* zt_symstream_own's lines. */
static void format_own(struct zt_out *o, int lines)
{
	zt_out_write(o, own, sizeof own - 1);
	if (lines)
		zt_out_write(o, own_line, sizeof own_line - 1);
}

void zt_symstream_frame(struct zt_out *o, uint64_t addr, const struct zt_symres *r,
			int lines)
{
	format_frame(o, NULL, addr, r, lines);
}

void zt_symstream_header(struct zt_out *o, const struct zt_raw *d, const char *comm,
			 size_t stack, uint64_t ns, uint64_t period)
{
	format_start(o, d, comm, stack);
	format_time(o, ns, period, event_of(d, &d->stacks[stack]));
}

void zt_symstream_wait(struct zt_out *o, const char *wait, int lines)
{
	format_wait(o, wait, lines);
}

void zt_symstream_own(struct zt_out *o, int lines)
{
	format_own(o, lines);
}

const char *zt_symstream_root_name(int partial)
{
	return partial == ZT_STACK_DEPTH ? ZT_ROOT_DEPTH : ZT_ROOT_TRUNCATED;
}

void zt_symstream_root(struct zt_out *o, int partial, int lines)
{
	zt_out_str(o, FRAME_AT_0);
	zt_out_str(o, zt_symstream_root_name(partial));
	zt_out_write(o, root_end, sizeof root_end - 1);
	if (lines)
		zt_out_write(o, root_line, sizeof root_line - 1);
}

/* Sample lines by time; lines with the same time keep their file order. */
static int by_time(const void *a, const void *b, void *ctx)
{
	const struct zt_timed *x = a, *y = b;

	(void)ctx;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

void zt_symstream_bucket(struct zt_raw *d, uint64_t bucket_ns, struct zt_symstream_order *o)
{
	/* Per stack: its record in the bucket being summed (at), which bucket
	   that was (seen, 1 + the bucket's number). Lines are in time order,
	   so a bucket's lines are one run of them; the records are written
	   over the lines, never ahead of the one being read. */
	size_t *at, *seen, out = 0, bucket = 0;

	if (!o->timed || !bucket_ns)
		return;
	at = zt_calloc(d->nstacks ? d->nstacks : 1, sizeof *at);
	seen = zt_calloc(d->nstacks ? d->nstacks : 1, sizeof *seen);
	for (size_t k = 0; k < d->ntimed; k++) {
		const struct zt_timed t = d->timed[k];
		struct zt_timed *r = &d->timed[at[t.stack]];

		if (k == 0 || (d->start_time_ns + t.ns) / bucket_ns !=
			      (d->start_time_ns + d->timed[k - 1].ns) / bucket_ns)
			bucket++;
		if (seen[t.stack] == bucket && r->count <= UINT64_MAX - t.count &&
		    r->weight <= UINT64_MAX - t.weight) {
			r->count += t.count;
			r->weight += t.weight;
		} else {
			seen[t.stack] = bucket;
			at[t.stack] = out;
			d->timed[out++] = t;
		}
	}
	free(at);
	free(seen);
	d->ntimed = out;
	o->n = out;
}

void zt_symstream_order(struct zt_raw *d, int merge, struct zt_symstream_order *o)
{
	/*
	 * One record per sample line, in time order, with its time, as perf
	 * script prints them: viewers that weigh a record by the time to the
	 * next one, or count records, weigh it right.
	 */
	o->timed = !merge && d->ntimed > 0 && d->nuntimed == 0;
	o->n = o->timed ? d->ntimed : d->nstacks;
	if (o->timed) {
		size_t k = 1;

		/* One thread's lines come in time order: often nothing to sort. */
		while (k < d->ntimed && d->timed[k - 1].ns <= d->timed[k].ns)
			k++;
		if (k < d->ntimed)
			qsort_r(d->timed, d->ntimed, sizeof *d->timed, by_time, NULL);
	}
}

void zt_symstream_record(const struct zt_raw *d, const struct zt_symstream_order *o,
			 size_t k, size_t *stack, uint64_t *ns, uint64_t *period)
{
	if (o->timed) {
		*stack = d->timed[k].stack;
		*ns = d->start_ns + d->timed[k].ns;
		*period = d->wall || d->stacks[*stack].alloc ? d->timed[k].weight
							     : d->timed[k].count;
	} else {
		*stack = k;
		*ns = 0;
		*period = d->wall || d->stacks[k].alloc ? d->stacks[k].weight : d->stacks[k].count;
	}
}

struct span {
	size_t off, len;	/* in the writer's arena */
};

struct text {
	uint64_t addr;
	int exact;
	const struct zt_symres *r;	/* what it was resolved to */
	struct span s;
};

/* The caches of one zt_symstream_write. */
struct writer {
	struct zt_out arena;	/* every piece formatted once */
	struct span *frame;	/* per pool address: its frame lines */
	struct span *start;	/* per stack: "thread pid/tid ", len 0 until made */
	struct span *body;	/* per stack: its frames and blank line, len 0 until made */
	char *once;		/* per stack: written once already */
	uint32_t last_tid;	/* the thread of the last start_of, and its text */
	struct span last_start;
	struct text *texts;	/* distinct (address, exact) pairs */
	size_t ntexts, captexts;
	struct zt_hash_index textix;
	struct escaped escaped;	/* the frames' strings */
	int lines;		/* source lines asked for: every frame has one */
};

static int text_eq(void *ctx, uint32_t i, const void *key)
{
	const struct writer *w = ctx;
	const struct text *k = key;

	return w->texts[i].addr == k->addr && w->texts[i].exact == k->exact &&
	       zt_symres_same(w->texts[i].r, k->r);
}

/* Address j's frame lines, formatted on the first address of its value. */
static void frame_text(struct writer *w, const struct zt_raw *d, size_t j,
		       const struct zt_symres *r)
{
	struct text key = { .addr = d->addr[j], .exact = d->exact[j] != 0, .r = r };
	uint64_t h = zt_hash_u64(key.addr * 2 + (uint64_t)key.exact);
	int64_t i = zt_hash_index_find(&w->textix, h, text_eq, w, &key);

	if (i < 0) {
		key.s.off = w->arena.len;
		format_frame(&w->arena, &w->escaped, key.addr, r, w->lines);
		key.s.len = w->arena.len - key.s.off;
		zt_grow(&w->texts, &w->captexts, w->ntexts + 1, sizeof *w->texts);
		w->texts[w->ntexts] = key;
		zt_hash_index_add(&w->textix, h, (uint32_t)w->ntexts);
		i = (int64_t)w->ntexts++;
	}
	w->frame[j] = w->texts[i].s;
}

/*
 * Whether a frame's text (its lines, innermost inlined first) names one of
 * the Go runtime's roots: every goroutine's stack starts at runtime.goexit,
 * every thread's g0 stack at runtime.mstart, the first one at
 * runtime.rt0_go (each perhaps as its ABI0 symbol, name.abi0). A walk that
 * reached one reached the stack's entry, whatever the collector saw.
 */
int zt_symstream_go_root(const char *text, size_t len)
{
	static const char *const roots[] = {
		" runtime.goexit+", " runtime.goexit.abi0+", " runtime.mstart+",
		" runtime.mstart.abi0+", " runtime.rt0_go+", " runtime.rt0_go.abi0+",
	};

	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
		if (memmem(text, len, roots[i], strlen(roots[i])))
			return 1;
	return 0;
}

/* A stack's frame lines, the root line of a partial one, the blank
   line, into dst; into the arena only with room made first, as the frames
   are copied from it. */
static void emit_body(struct zt_out *dst, struct writer *w, const struct zt_raw *d,
		      size_t stack)
{
	const struct zt_stack *st = &d->stacks[stack];
	const char *wait = zt_raw_wait(d, st);

	if (wait)
		format_wait(dst, wait, w->lines);
	if (st->own)
		format_own(dst, w->lines);
	for (size_t j = st->first; j < st->first + st->naddr; j++)
		zt_out_write(dst, w->arena.buf + w->frame[j].off, w->frame[j].len);
	if (st->partial && !(st->naddr &&
			     zt_symstream_go_root(w->arena.buf + w->frame[st->first + st->naddr - 1].off,
				     w->frame[st->first + st->naddr - 1].len)))
		zt_symstream_root(dst, st->partial, w->lines);
	zt_out_byte(dst, '\n');
}

/* The same bytes kept in the arena, made on the stack's second record. */
static struct span body_of(struct writer *w, const struct zt_raw *d, size_t stack)
{
	const struct zt_stack *st = &d->stacks[stack];
	struct span *b = &w->body[stack];
	const char *wait = zt_raw_wait(d, st);
	size_t need = sizeof FRAME_AT_0 + sizeof ZT_ROOT_DEPTH + sizeof root_end + sizeof own +
		      sizeof own_line + sizeof root_line + 1;

	if (b->len)
		return *b;
	if (wait)
		need += 4 * strlen(wait) + 60;
	/* Room first: the frames are copied from the arena into itself. */
	for (size_t j = st->first; j < st->first + st->naddr; j++)
		need += w->frame[j].len;
	zt_out_room(&w->arena, need);
	b->off = w->arena.len;
	emit_body(&w->arena, w, d, stack);
	b->len = w->arena.len - b->off;
	return *b;
}

static struct span start_of(struct writer *w, const struct zt_raw *d, const char *comm,
			    size_t stack)
{
	struct span *s = &w->start[stack];
	uint32_t tid = d->stacks[stack].tid;

	/* The text is the thread's: the last thread's is reused. */
	if (!s->len && w->last_start.len && w->last_tid == tid)
		*s = w->last_start;
	if (!s->len) {
		s->off = w->arena.len;
		format_start(&w->arena, d, comm, stack);
		s->len = w->arena.len - s->off;
	}
	w->last_tid = tid;
	w->last_start = *s;
	return *s;
}

/* The seconds of the record before, in decimal: records come in time
   order, thousands a second. */
struct seconds {
	uint64_t sec;
	size_t len;		/* 0: none yet */
	char text[24];
};

/* format_time's bytes, the seconds' digits from *c, in one write. */
static void record_time(struct zt_out *o, struct seconds *c, uint64_t ns, uint64_t period,
			const char *event)
{
	size_t evlen = strlen(event);
	unsigned us = (unsigned)(ns % 1000000000u / 1000u);
	uint64_t sec = ns / 1000000000u;
	char t[96], *p = t;

	if (!c->len || c->sec != sec) {
		c->sec = sec;
		c->len = (size_t)(zt_fmt_dec(c->text, sec) - c->text);
	}
	memcpy(p, c->text, c->len);
	p += c->len;
	*p++ = '.';
	for (int i = 5; i >= 0; i--, us /= 10)
		p[i] = (char)('0' + us % 10);
	p += 6;
	*p++ = ':';
	*p++ = ' ';
	p = zt_fmt_dec(p, period);
	memcpy(p, event, evlen);
	p += evlen;
	zt_out_write(o, t, (size_t)(p - t));
}

void zt_symstream_write(FILE *out, struct zt_raw *d, const struct zt_symres *res, int merge,
			int lines)
{
	const char *comm = zt_symstream_comm(d);
	struct zt_symstream_order order;
	struct writer w = { .lines = lines };
	struct seconds sec = { 0 };
	struct zt_out o;
	uint64_t ns, count;
	size_t stack;

	zt_out_init(&o, out);
	zt_out_init(&w.arena, NULL);
	w.frame = zt_calloc(d->naddr ? d->naddr : 1, sizeof *w.frame);
	w.start = zt_calloc(d->nstacks ? d->nstacks : 1, sizeof *w.start);
	w.body = zt_calloc(d->nstacks ? d->nstacks : 1, sizeof *w.body);
	w.once = zt_calloc(d->nstacks ? d->nstacks : 1, 1);
	zt_hash_index_reserve(&w.textix, d->naddr);
	for (size_t j = 0; j < d->naddr; j++)
		frame_text(&w, d, j, &res[j]);
	zt_symstream_order(d, merge, &order);
	for (size_t k = 0; k < order.n; k++) {
		struct span s, b;

		zt_symstream_record(d, &order, k, &stack, &ns, &count);
		s = start_of(&w, d, comm, stack);
		zt_out_write(&o, w.arena.buf + s.off, s.len);
		record_time(&o, &sec, ns, count, event_of(d, &d->stacks[stack]));
		/* A stack written once (every one with --merge) is not kept. */
		if (!w.once[stack]) {
			w.once[stack] = 1;
			emit_body(&o, &w, d, stack);
			continue;
		}
		b = body_of(&w, d, stack);
		zt_out_write(&o, w.arena.buf + b.off, b.len);
	}
	zt_out_free(&o);
	zt_out_free(&w.arena);
	free(w.frame);
	free(w.start);
	free(w.body);
	free(w.once);
	free(w.texts);
	zt_hash_index_free(&w.textix);
	escaped_free(&w.escaped);
}
