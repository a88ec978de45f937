/*
 * perfscriptfold.c — perf script records folded into stacks: the loop behind
 * zt-fold.
 *
 * Speed comes from naming each distinct frame once: a frame line's text from
 * its symbol to its module (and its address, with --addrs) keys a cache of
 * the names it gave, so most frames cost one hash lookup. A stack is then an
 * array of name ids, leaf first, interned in a second table with its count.
 */
#include "perfscriptfold.h"
#include "factlines.h"
#include "filter.h"
#include "rawfmt.h"
#include "folded.h"
#include "weight.h"
#include "hash.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct cached {
	uint32_t off;		/* first name id in ids[] */
	uint32_t n;		/* names the frame gave */
	int unknown;
};

struct zt_perfscriptfold {
	struct zt_framenames_opts o;
	/* --root=label:NAME: the input's root frame (its value of NAME). */
	char label[ZT_LABEL_VALUE_MAX + ZT_LABEL_KEY_MAX + 8];
	struct zt_weight weight;	/* what the records' periods are */
	struct zt_strtab *names;
	struct zt_strtab *frames[2];	/* [java] raw frame text -> cached */
	struct cached *cache[2];
	size_t ncache[2], capcache[2];
	uint32_t *ids;			/* name ids of cached frames */
	size_t nids, capids;
	struct zt_strtab *stacks;	/* uint32_t arrays -> stack id */
	uint64_t *counts;
	size_t capcounts;
	uint32_t *stack;		/* the open record, leaf first */
	size_t nstack, capstack;
	uint32_t root;
	int java;
	uint64_t period;
	long srcslot;			/* stack index a source line names */
	uint64_t records;
	uint64_t kept;			/* records the filter kept */
	struct zt_framenames_buf tmp;
	struct zt_filter *filter;	/* --focus, --ignore, --hide */
	/* Records the reader numbered (zt_ps_item.body): the names each
	   record's frames gave, leaf first, and the stack each gave under a
	   root, so that a repeat costs a lookup. */
	struct zt_framenames_buf lastids;	/* the last root's command, pid, tid */
	size_t lastn[3];		/* their lengths; lastn[0] 0: none yet */
	size_t *bodyoff;		/* per body: its names in bodyids */
	uint32_t *bodyn;
	size_t capbodyoff, capbodyn;
	uint32_t *bodyids;
	size_t nbodyids, capbodyids;
	struct seen *seen;		/* (body, root) -> stack */
	size_t nseen, capseen;
	struct zt_hash_index seenix;
	struct seen *last;		/* per body: the last (body, root) it ended */
	size_t caplast;
};

struct seen {
	uint32_t body, root;
	int64_t stack;			/* -1: the filter dropped it */
};

static const char *name_of(const void *t, uint32_t id, size_t *n)
{
	return zt_strtab_key(t, id, n);
}

struct zt_perfscriptfold *zt_perfscriptfold_new(const struct zt_framenames_opts *o)
{
	struct zt_perfscriptfold *f = zt_calloc(1, sizeof *f);

	f->o = *o;
	f->names = zt_strtab_new();
	f->frames[0] = zt_strtab_new();
	f->frames[1] = zt_strtab_new();
	f->stacks = zt_strtab_new();
	f->filter = zt_filter_new(name_of, f->names);
	return f;
}

struct zt_filter *zt_perfscriptfold_filter(struct zt_perfscriptfold *f)
{
	return f->filter;
}

void zt_perfscriptfold_free(struct zt_perfscriptfold *f)
{
	if (!f)
		return;
	zt_strtab_free(f->names);
	for (int j = 0; j < 2; j++) {
		zt_strtab_free(f->frames[j]);
		free(f->cache[j]);
	}
	zt_strtab_free(f->stacks);
	zt_filter_free(f->filter);
	free(f->ids);
	free(f->counts);
	free(f->stack);
	free(f->tmp.buf);
	free(f->lastids.buf);
	free(f->bodyoff);
	free(f->bodyn);
	free(f->bodyids);
	free(f->seen);
	free(f->last);
	zt_hash_index_free(&f->seenix);
	free(f);
}

static void push(struct zt_perfscriptfold *f, uint32_t id)
{
	zt_grow(&f->stack, &f->capstack, f->nstack + 1, sizeof *f->stack);
	f->stack[f->nstack++] = id;
}

/* The cached names of a frame, naming it on first sight. */
static const struct cached *lookup(struct zt_perfscriptfold *f, const struct zt_ps_frame *fr)
{
	const char *key = f->o.addrs ? fr->pc.p : fr->sym.p;
	size_t klen = (size_t)(fr->mod.p + fr->mod.n - key);
	int isnew, j = f->java;
	uint32_t id = zt_strtab_intern(f->frames[j], key, klen, &isnew);
	struct cached *c;

	if (!isnew)
		return &f->cache[j][id];
	zt_grow(&f->cache[j], &f->capcache[j], id + 1, sizeof *f->cache[j]);
	c = &f->cache[j][id];
	f->tmp.len = 0;
	c->n = (uint32_t)zt_framenames_frame(fr, &f->o, f->java, &f->tmp, &c->unknown);
	c->off = (uint32_t)f->nids;
	zt_grow(&f->ids, &f->capids, f->nids + c->n, sizeof *f->ids);
	for (size_t p = 0; p < f->tmp.len;) {
		size_t n = strlen(f->tmp.buf + p);
		f->ids[f->nids++] = zt_strtab_intern(f->names, f->tmp.buf + p, n, NULL);
		p += n + 1;
	}
	return c;
}

static void srcline(struct zt_perfscriptfold *f, const struct zt_span *text)
{
	const char *name;
	size_t n;

	if (f->srcslot < 0)
		return;
	name = zt_strtab_key(f->names, f->stack[f->srcslot], &n);
	f->tmp.len = 0;
	zt_framenames_buf_add(&f->tmp, name, n);
	zt_framenames_srcline(text->p, text->n, &f->tmp);
	f->stack[f->srcslot] = zt_strtab_intern(f->names, f->tmp.buf, f->tmp.len, NULL);
	f->srcslot = -1;
}

/* The stack of the open record, or -1 when the filter drops it. */
static int64_t stack_of(struct zt_perfscriptfold *f)
{
	uint32_t id;
	int isnew;
	long kept;

	/* The root frame (the command) is not a function: filters skip it. */
	if (zt_filter_active(f->filter)) {
		if ((kept = zt_filter_stack(f->filter, f->stack, NULL, f->nstack)) < 0)
			return -1;
		f->nstack = (size_t)kept;
	}
	/* --no-root: a stack with frames starts at its first; one without
	 * keeps the root, so that no sample is lost. */
	if (f->o.root.how != ZT_ROOT_DROP || f->nstack == 0)
		push(f, f->root);
	id = zt_strtab_intern(f->stacks, f->stack, f->nstack * sizeof *f->stack, &isnew);
	zt_grow(&f->counts, &f->capcounts, (size_t)id + 1, sizeof *f->counts);
	if (isnew)
		f->counts[id] = 0;
	return id;
}

static int seen_eq(void *ctx, uint32_t i, const void *key)
{
	const struct zt_perfscriptfold *f = ctx;
	const struct seen *k = key;

	return f->seen[i].body == k->body && f->seen[i].root == k->root;
}

/* Keep the names of a numbered record's frames (a repeat's come from here). */
static void keep_body(struct zt_perfscriptfold *f, uint32_t body)
{
	zt_grow(&f->bodyoff, &f->capbodyoff, (size_t)body + 1, sizeof *f->bodyoff);
	zt_grow(&f->bodyn, &f->capbodyn, (size_t)body + 1, sizeof *f->bodyn);
	zt_grow(&f->bodyids, &f->capbodyids, f->nbodyids + f->nstack, sizeof *f->bodyids);
	f->bodyoff[body] = f->nbodyids;
	f->bodyn[body] = (uint32_t)f->nstack;
	if (f->nstack)	/* an empty body may come before any array exists */
		memcpy(f->bodyids + f->nbodyids, f->stack, f->nstack * sizeof *f->stack);
	f->nbodyids += f->nstack;
}

static const char *end_record(struct zt_perfscriptfold *f, const struct zt_ps_item *it)
{
	struct seen key = { .body = it->body, .root = f->root, .stack = -1 };
	uint64_t h = 0;
	int64_t i = -1;

	if (it->body != ZT_PS_NOBODY && it->repeat && key.body < f->caplast &&
	    f->last[key.body].body == key.body && f->last[key.body].root == key.root) {
		/* A repeat under the root its body last had: most are. */
		key.stack = f->last[key.body].stack;
		goto count;
	}
	if (it->body != ZT_PS_NOBODY) {
		h = zt_hash_u64((uint64_t)key.body << 32 | key.root);
		i = zt_hash_index_find(&f->seenix, h, seen_eq, f, &key);
		if (i < 0 && it->repeat) {
			/* Frames seen before, under another root. */
			f->nstack = f->bodyn[key.body];
			zt_grow(&f->stack, &f->capstack, f->nstack + 1, sizeof *f->stack);
			if (f->nstack)
				memcpy(f->stack, f->bodyids + f->bodyoff[key.body],
				       f->nstack * sizeof *f->stack);
		} else if (i < 0) {
			keep_body(f, key.body);
		}
	}
	if (i >= 0) {
		key.stack = f->seen[i].stack;
	} else {
		key.stack = stack_of(f);
		if (it->body != ZT_PS_NOBODY) {
			zt_grow(&f->seen, &f->capseen, f->nseen + 1, sizeof *f->seen);
			f->seen[f->nseen] = key;
			zt_hash_index_add(&f->seenix, h, (uint32_t)f->nseen++);
		}
	}
	if (it->body != ZT_PS_NOBODY) {
		size_t had = f->caplast;

		zt_grow(&f->last, &f->caplast, (size_t)key.body + 1, sizeof *f->last);
		for (size_t b = had; b < f->caplast; b++)
			f->last[b].body = ZT_PS_NOBODY;
		f->last[key.body] = key;
	}
count:
	f->records++;
	if (key.stack < 0)
		return NULL;
	if (f->counts[key.stack] > UINT64_MAX - f->period) {
		f->records--;
		return "count of a stack does not fit in 64 bits";
	}
	f->counts[key.stack] += f->period;
	f->kept++;
	return NULL;
}

void zt_perfscriptfold_next_input(struct zt_perfscriptfold *f)
{
	if (f->o.root.how != ZT_ROOT_LABEL)
		return;
	snprintf(f->label, sizeof f->label, "[no %s]", f->o.root.name);
	f->lastn[0] = 0;	/* the root is made again */
}

/* A "# zt label" fact of the input's: its value of --root=label:NAME's NAME. */
static void label_fact(struct zt_perfscriptfold *f, const struct zt_ps_item *it)
{
	const char *k, *v;
	size_t kn, vn;

	if (f->o.root.how != ZT_ROOT_LABEL ||
	    !zt_factlines_label(it->text.p, it->text.n, &k, &kn, &v, &vn) ||
	    kn != strlen(f->o.root.name) || memcmp(k, f->o.root.name, kn) != 0)
		return;
	if (vn > ZT_LABEL_VALUE_MAX)
		vn = ZT_LABEL_VALUE_MAX;
	/* One frame: its spaces and ';' made '_', as a command's spaces are. */
	for (size_t i = 0; i < vn; i++)
		f->label[i] = v[i] == ' ' || v[i] == ';' ? '_' : v[i];
	f->label[vn ? vn : 0] = '\0';
	if (!vn)
		snprintf(f->label, sizeof f->label, "[empty %s]", f->o.root.name);
	f->lastn[0] = 0;
}

/*
 * Whether a header has the command, pid and tid of the last root's
 * (all that zt_framenames_root reads of it): then it has the same root.
 */
static int same_ids(const struct zt_perfscriptfold *f, const struct zt_ps_header *h)
{
	const char *b = f->lastids.buf;

	return f->lastn[0] && h->comm.n == f->lastn[0] && h->pid.n == f->lastn[1] &&
	       h->tid.n == f->lastn[2] && memcmp(b, h->comm.p, h->comm.n) == 0 &&
	       memcmp(b + h->comm.n, h->pid.p, h->pid.n) == 0 &&
	       memcmp(b + h->comm.n + h->pid.n, h->tid.p, h->tid.n) == 0;
}

const char *zt_perfscriptfold_item(struct zt_perfscriptfold *f, const struct zt_ps_item *it)
{
	const struct cached *c;

	switch (it->kind) {
	case ZT_PS_EOF:
		break;
	case ZT_PS_COMMENT:
		label_fact(f, it);
		zt_weight_fact(&f->weight, it->text.p, it->text.n);
		break;
	case ZT_PS_HEADER:
		/* Java's names are tidied by the command, whatever --root says. */
		f->java = it->header.comm.n >= 4 && memcmp(it->header.comm.p, "java", 4) == 0;
		/* Record after record of one thread: its root once. */
		if (!same_ids(f, &it->header)) {
			const struct zt_ps_header *h = &it->header;

			f->tmp.len = 0;
			if (f->o.root.how == ZT_ROOT_LABEL) {
				struct zt_framenames_opts o = f->o;

				if (!f->label[0])
					zt_perfscriptfold_next_input(f);
				o.root = (struct zt_reroot){ ZT_ROOT_RENAME, f->label };
				zt_framenames_root(h, &o, &f->tmp);
			} else {
				zt_framenames_root(h, &f->o, &f->tmp);
			}
			f->root = zt_strtab_intern(f->names, f->tmp.buf, f->tmp.len, NULL);
			f->lastids.len = 0;
			zt_framenames_buf_add(&f->lastids, h->comm.p, h->comm.n);
			zt_framenames_buf_add(&f->lastids, h->pid.p, h->pid.n);
			zt_framenames_buf_add(&f->lastids, h->tid.p, h->tid.n);
			f->lastn[0] = h->comm.n;
			f->lastn[1] = h->pid.n;
			f->lastn[2] = h->tid.n;
		}
		f->period = it->header.period;
		zt_weight_record(&f->weight, it->header.event.p, it->header.event.n,
				 it->header.period);
		/* zt's records keep their weights: a number of samples, or
		   a wall-clock profile's ns, which are never one a record. */
		if (f->o.count && f->weight.kind != ZT_WEIGHT_WALL &&
		    !zt_perfscriptfold_alloc(f) &&
		    !(it->header.event.n == 10 &&
		      memcmp(it->header.event.p, "zt-samples", 10) == 0))
			f->period = 1;
		f->nstack = 0;
		f->srcslot = -1;
		break;
	case ZT_PS_FRAME:
		c = lookup(f, &it->frame);
		f->srcslot = -1;
		if (c->n == 0)
			break;
		/* "a->b" is a then b_[i] from the root; the stack is leaf first. */
		if (f->o.srcline && !c->unknown)
			f->srcslot = (long)f->nstack;
		for (uint32_t k = c->n; k-- > 0;)
			push(f, f->ids[c->off + k]);
		break;
	case ZT_PS_SRCLINE:
		if (f->o.srcline)
			srcline(f, &it->text);
		f->srcslot = -1;
		break;
	case ZT_PS_END:
		return end_record(f, it);
	}
	return NULL;
}

int zt_perfscriptfold_wall(const struct zt_perfscriptfold *f)
{
	return f->weight.kind == ZT_WEIGHT_WALL;
}

int zt_perfscriptfold_alloc(const struct zt_perfscriptfold *f)
{
	return f->weight.kind == ZT_WEIGHT_BYTES || f->weight.kind == ZT_WEIGHT_OBJECTS ?
		       (int)f->weight.kind : 0;
}

uint64_t zt_perfscriptfold_records(const struct zt_perfscriptfold *f)
{
	return f->records;
}

uint64_t zt_perfscriptfold_kept(const struct zt_perfscriptfold *f)
{
	return f->kept;
}

static int byline(const void *a, const void *b, void *buf)
{
	const struct zt_folded_line *x = a, *y = b;
	const char *text = buf;

	return zt_folded_cmp(text + x->off, x->len, text + y->off, y->len);
}

void zt_perfscriptfold_stacks(struct zt_perfscriptfold *f, struct zt_folded_stacks *fs)
{
	uint32_t n = zt_strtab_count(f->stacks);
	struct zt_folded_line *lines = zt_calloc(n ? n : 1, sizeof *lines);
	struct zt_framenames_buf b = { 0 };
	char decl[160];
	size_t kept = 0;

	for (uint32_t s = 0; s < n; s++) {
		size_t klen;
		/* Keys sit unaligned in the table's arena: copy each id out. */
		const char *ids = zt_strtab_key(f->stacks, s, &klen);
		size_t k = klen / sizeof(uint32_t);

		lines[s].off = b.len;
		while (k-- > 0) {
			size_t nl;
			uint32_t id;
			const char *name;

			memcpy(&id, ids + k * sizeof id, sizeof id);
			name = zt_strtab_key(f->names, id, &nl);
			zt_framenames_buf_add(&b, name, nl);
			if (k)
				zt_framenames_buf_add(&b, ";", 1);
		}
		lines[s].len = b.len - lines[s].off;
		lines[s].count = f->counts[s];
	}
	qsort_r(lines, n, sizeof *lines, byline, b.buf);
	for (uint32_t s = 0; s < n; s++) {
		struct zt_folded_line l = lines[s];

		/* Different name lists can join to the same text; sum them. */
		while (s + 1 < n && lines[s + 1].len == l.len &&
		       memcmp(b.buf + l.off, b.buf + lines[s + 1].off, l.len) == 0)
			l.count += lines[++s].count;
		lines[kept++] = l;
	}
	zt_perfscriptfold_weight_line(f, decl, sizeof decl);
	fs->decl = zt_strdup(decl);
	fs->text = b.buf;
	fs->line = lines;
	fs->n = kept;
}

uint64_t zt_perfscriptfold_write(struct zt_perfscriptfold *f, FILE *out)
{
	struct zt_folded_stacks fs;
	uint64_t n;

	zt_perfscriptfold_stacks(f, &fs);
	for (size_t k = 0; k < fs.n; k++) {
		fwrite(fs.text + fs.line[k].off, 1, fs.line[k].len, out);
		fprintf(out, " %llu\n", (unsigned long long)fs.line[k].count);
	}
	n = fs.n;
	zt_folded_stacks_free(&fs);
	return n;
}

const struct zt_weight *zt_perfscriptfold_weight(const struct zt_perfscriptfold *f)
{
	return &f->weight;
}

void zt_perfscriptfold_weight_line(struct zt_perfscriptfold *f, char *buf, size_t cap)
{
	struct zt_weight w = f->weight;
	uint64_t div;

	if (w.kind == ZT_WEIGHT_WALL || zt_perfscriptfold_alloc(f))
		;	/* ns, bytes or objects, counted or not (--weight=count refuses them) */
	else if (f->o.count || zt_weight_samples(&w, &div) != NULL ||
		 w.kind == ZT_WEIGHT_SAMPLES) {
		if (f->o.count)
			w.kind = ZT_WEIGHT_SAMPLES;
		else if (w.kind == ZT_WEIGHT_PERIOD)
			w.period = 0;
	}
	zt_weight_line(&w, buf, cap);
}
