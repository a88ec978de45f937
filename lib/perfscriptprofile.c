/*
 * perfscriptprofile.c — perf script records into per-key counts (struct
 * zt_psprof: ps for perf script, as lib/perfscript.h's zt_ps_). The keys of the
 * open record are gathered leaf first; a source line, which follows its frame,
 * replaces that frame's key when reporting by line. The keys of a frame line
 * are worked out once per distinct line (stackcollapse's name rules,
 * lib/framenames.c) and kept, as zt-fold keeps them (lib/perfscriptfold.c).
 */
#include "perfscriptprofile.h"
#include "framenames.h"
#include "rawfmt.h"
#include "threadstates.h"
#include "strtab.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_psprof {
	struct zt_profile *p;
	enum zt_by by;
	uint32_t *ids, *aux;	/* keys, leaf first; aux: line keys in lp */
	size_t nids, capids, capaux;
	struct zt_profile *lp;
	uint32_t *lids;
	size_t caplids;
	uint64_t count;
	int java;
	int saw_lines;
	long lineslot;		/* key a source line would replace, or -1 */
	/* thread: ZT_BY_THREAD's key, or ZT_BY_LABEL's */
	struct zt_framenames_buf tmp, thread;
	/* Per record number (zt_ps_item.body): the keys its frames gave. */
	size_t *bodyoff;
	uint32_t *bodyn;
	size_t capbodyoff, capbodyn;
	uint32_t *bodyids, *bodyaux;
	size_t nbody, capbodyids, capbodyaux;
	/* The state of the open record: its leaf, and per record number. */
	struct zt_threadstates *states;
	int nframes;
	enum zt_state state;
	struct zt_framenames_buf wait;		/* "off-CPU [futex]", ZT_BY_STATE */
	uint8_t *bodystate;
	size_t capbodystate;
	struct zt_ps_header h;		/* pid, tid and comm copied into hbuf */
	struct zt_framenames_buf hbuf;
	/* Per distinct frame text (from its symbol to its module's end, as
	   zt_framenames_frame reads it) and [command starts with "java"]: the
	   keys it gave, in push order, at fkeys[off .. off + n). */
	struct zt_strtab *frames[2];
	struct fcache { uint32_t off, n; } *fc[2];
	size_t capfc[2];
	uint32_t *fkeys;
	size_t nfkeys, capfkeys;
};

struct zt_psprof *zt_psprof_new(struct zt_profile *p, enum zt_by by)
{
	struct zt_psprof *pp = zt_calloc(1, sizeof *pp);

	pp->p = p;
	pp->by = by;
	pp->lineslot = -1;
	return pp;
}

void zt_psprof_set_key(struct zt_psprof *pp, const char *key, size_t n)
{
	pp->thread.len = 0;
	zt_framenames_buf_add(&pp->thread, key, n);
}

void zt_psprof_free(struct zt_psprof *pp)
{
	if (!pp)
		return;
	free(pp->ids);
	free(pp->aux);
	free(pp->lids);
	free(pp->tmp.buf);
	free(pp->thread.buf);
	free(pp->bodyoff);
	free(pp->bodyn);
	free(pp->bodyids);
	free(pp->bodyaux);
	free(pp->bodystate);
	free(pp->wait.buf);
	free(pp->hbuf.buf);
	for (int j = 0; j < 2; j++) {
		zt_strtab_free(pp->frames[j]);
		free(pp->fc[j]);
	}
	free(pp->fkeys);
	free(pp);
}

#define NOLINE UINT32_MAX

static void push(struct zt_psprof *pp, const char *s, size_t n);

void zt_psprof_set_states(struct zt_psprof *pp, struct zt_threadstates *st)
{
	pp->states = st;
}

/* The leaf frame tells the record's state: a wait frame, or code on a CPU. */
static void leaf_state(struct zt_psprof *pp, const struct zt_ps_frame *f)
{
	static const char mod[] = ZT_WAIT_MODULE;

	if (pp->nframes++ > 0)
		return;
	if (f->mod.n != sizeof mod - 1 || memcmp(f->mod.p, mod, f->mod.n) != 0)
		return;
	if (zt_waitframes_is_kernel(f->sym.p, f->sym.n))
		return;	/* system time: on a CPU */
	pp->state = zt_waitframes_state(f->sym.p, f->sym.n);
	if (pp->state == ZT_STATE_ON_CPU)	/* a wait frame with an odd name */
		pp->state = ZT_STATE_OFF_CPU;
	if (pp->by == ZT_BY_STATE) {
		pp->wait.len = 0;
		if (pp->state == ZT_STATE_OFF_CPU) {
			zt_framenames_buf_add(&pp->wait, "off-CPU ", 8);
			zt_framenames_buf_add(&pp->wait, f->sym.p, f->sym.n);
		} else {
			zt_framenames_buf_add(&pp->wait, ZT_WAIT_RUNQUEUE,
					      sizeof ZT_WAIT_RUNQUEUE - 1);
		}
		push(pp, pp->wait.buf, pp->wait.len);
	}
}

/* A record's state, kept by its number for its repeats. */
static void body_state(struct zt_psprof *pp, const struct zt_ps_item *it)
{
	if (it->body == ZT_PS_NOBODY)
		return;
	if (it->repeat) {
		pp->state = (enum zt_state)pp->bodystate[it->body];
		return;
	}
	zt_grow(&pp->bodystate, &pp->capbodystate, (size_t)it->body + 1, 1);
	pp->bodystate[it->body] = (uint8_t)pp->state;
}

void zt_psprof_set_lines(struct zt_psprof *pp, struct zt_profile *lp)
{
	pp->lp = lp;
	zt_profile_key(lp, "", 0);
}

static void push_key(struct zt_psprof *pp, uint32_t key)
{
	zt_grow(&pp->ids, &pp->capids, pp->nids + 1, sizeof *pp->ids);
	zt_grow(&pp->aux, &pp->capaux, pp->nids + 1, sizeof *pp->aux);
	pp->aux[pp->nids] = NOLINE;
	pp->ids[pp->nids++] = key;
}

static void push(struct zt_psprof *pp, const char *s, size_t n)
{
	push_key(pp, zt_profile_key(pp->p, s, n));
}

static void keep_key(struct zt_psprof *pp, const char *s, size_t n)
{
	zt_grow(&pp->fkeys, &pp->capfkeys, pp->nfkeys + 1, sizeof *pp->fkeys);
	pp->fkeys[pp->nfkeys++] = zt_profile_key(pp->p, s, n);
}

/* The keys frame f gives, by function or by line: worked out once per distinct f. */
static const struct fcache *frame_keys(struct zt_psprof *pp, const struct zt_ps_frame *f)
{
	static const struct zt_framenames_opts plain;
	size_t klen = (size_t)(f->mod.p + f->mod.n - f->sym.p), k, n, last;
	int j = pp->java, isnew, unknown;
	uint32_t id;
	struct fcache *c;

	if (!pp->frames[j])
		pp->frames[j] = zt_strtab_new();
	id = zt_strtab_intern(pp->frames[j], f->sym.p, klen, &isnew);
	if (!isnew)
		return &pp->fc[j][id];
	zt_grow(&pp->fc[j], &pp->capfc[j], (size_t)id + 1, sizeof *pp->fc[j]);
	c = &pp->fc[j][id];
	c->off = (uint32_t)pp->nfkeys;
	pp->tmp.len = 0;
	if (zt_framenames_frame(f, &plain, pp->java, &pp->tmp, &unknown) == 0) {
		c->n = 0;
	} else if (pp->by == ZT_BY_LINE) {
		/* The innermost name, marked as having no line until one comes. */
		for (k = 0, last = 0; k < pp->tmp.len; k += strlen(pp->tmp.buf + k) + 1)
			last = k;
		n = strlen(pp->tmp.buf + last);
		memmove(pp->tmp.buf, pp->tmp.buf + last, n);
		pp->tmp.len = n;
		zt_framenames_buf_add(&pp->tmp, " ??", 3);
		keep_key(pp, pp->tmp.buf, pp->tmp.len);
	} else {
		/* Leaf first: the names of "a->b" go in as b, a. */
		for (k = pp->tmp.len; k > 0;) {
			size_t end = k - 1, start = end;
			while (start > 0 && pp->tmp.buf[start - 1] != '\0')
				start--;
			keep_key(pp, pp->tmp.buf + start, end - start);
			k = start;
		}
	}
	c->n = (uint32_t)(pp->nfkeys - c->off);
	return c;
}

static void frame(struct zt_psprof *pp, const struct zt_ps_frame *f)
{
	const char *m = f->mod.p, *slash;
	size_t mn = f->mod.n;
	const struct fcache *c;

	pp->lineslot = -1;
	leaf_state(pp, f);
	if (pp->by == ZT_BY_THREAD || pp->by == ZT_BY_STATE || pp->by == ZT_BY_LABEL)
		return;
	if (pp->by == ZT_BY_MODULE) {
		if ((slash = memrchr(m, '/', mn))) {
			mn -= (size_t)(slash + 1 - m);
			m = slash + 1;
		}
		push(pp, m, mn);
		return;
	}
	c = frame_keys(pp, f);
	if (c->n == 0)
		return;
	/* The innermost name takes the frame's source line, by line or when
	   lines are counted. */
	if (pp->by == ZT_BY_LINE || pp->lp)
		pp->lineslot = (long)pp->nids;
	for (uint32_t k = 0; k < c->n; k++)
		push_key(pp, pp->fkeys[c->off + k]);
}

static void srcline(struct zt_psprof *pp, const struct zt_span *t)
{
	pp->saw_lines = 1;
	if (pp->lineslot < 0)
		return;
	if (pp->lp && pp->by == ZT_BY_FUNCTION) {
		size_t n;
		const char *name = zt_profile_name(pp->p, pp->ids[pp->lineslot], &n);

		pp->tmp.len = 0;
		zt_framenames_buf_add(&pp->tmp, name, n);
		zt_framenames_srcline(t->p, t->n, &pp->tmp);
		if (pp->tmp.len > n) {
			pp->tmp.buf[n] = '\t';
			pp->aux[pp->lineslot] = zt_profile_key(pp->lp, pp->tmp.buf, pp->tmp.len);
		}
		pp->lineslot = -1;
		return;
	}
	if (pp->by != ZT_BY_LINE)
		return;
	pp->tmp.len = 0;
	zt_framenames_srcline(t->p, t->n, &pp->tmp);
	if (pp->tmp.len > 1)	/* drop the ':' it puts first */
		pp->ids[pp->lineslot] = zt_profile_key(pp->p, pp->tmp.buf + 1, pp->tmp.len - 1);
	pp->lineslot = -1;
}

/* The line keys of the frames p's filter kept, the leaf's first ("" when
   it has none). */
static void add_lines(struct zt_psprof *pp, size_t n)
{
	size_t m = 0;

	zt_grow(&pp->lids, &pp->caplids, n + 1, sizeof *pp->lids);
	for (size_t i = 0; i < n; i++)
		if (pp->aux[i] != NOLINE || i == 0)
			pp->lids[m++] = pp->aux[i] != NOLINE ? pp->aux[i] : 0;
	zt_profile_add(pp->lp, pp->lids, NULL, m, pp->count);
}

/*
 * A numbered record's keys: kept the first time, so that a repeat, whose
 * frames the reader did not hand out again, has them too.
 */
static void body_keys(struct zt_psprof *pp, const struct zt_ps_item *it)
{
	size_t b = it->body, n;

	if (it->body == ZT_PS_NOBODY)
		return;
	if (it->repeat) {
		n = pp->bodyn[b];
		zt_grow(&pp->ids, &pp->capids, n + 1, sizeof *pp->ids);
		zt_grow(&pp->aux, &pp->capaux, n + 1, sizeof *pp->aux);
		if (n)
			memcpy(pp->ids, pp->bodyids + pp->bodyoff[b], n * sizeof *pp->ids);
		if (n && pp->lp)	/* line keys: read only when lines are counted */
			memcpy(pp->aux, pp->bodyaux + pp->bodyoff[b], n * sizeof *pp->aux);
		pp->nids = n;
		return;
	}
	zt_grow(&pp->bodyoff, &pp->capbodyoff, b + 1, sizeof *pp->bodyoff);
	zt_grow(&pp->bodyn, &pp->capbodyn, b + 1, sizeof *pp->bodyn);
	zt_grow(&pp->bodyids, &pp->capbodyids, pp->nbody + pp->nids, sizeof *pp->bodyids);
	zt_grow(&pp->bodyaux, &pp->capbodyaux, pp->nbody + pp->nids, sizeof *pp->bodyaux);
	pp->bodyoff[b] = pp->nbody;
	pp->bodyn[b] = (uint32_t)pp->nids;
	if (pp->nids) {	/* a record of no frames has no arrays to copy */
		memcpy(pp->bodyids + pp->nbody, pp->ids, pp->nids * sizeof *pp->ids);
		memcpy(pp->bodyaux + pp->nbody, pp->aux, pp->nids * sizeof *pp->aux);
	}
	pp->nbody += pp->nids;
}

/* Whether a header has the pid, tid and comm kept from the last one. */
static int same_ids(const struct zt_psprof *pp, const struct zt_ps_header *h)
{
	const char *b = pp->hbuf.buf;

	return pp->hbuf.len && h->pid.n == pp->h.pid.n && h->tid.n == pp->h.tid.n &&
	       h->comm.n == pp->h.comm.n && memcmp(b, h->pid.p, h->pid.n) == 0 &&
	       memcmp(b + h->pid.n, h->tid.p, h->tid.n) == 0 &&
	       memcmp(b + h->pid.n + h->tid.n, h->comm.p, h->comm.n) == 0;
}

const char *zt_psprof_item(struct zt_psprof *pp, const struct zt_ps_item *it)
{
	const struct zt_ps_header *h = &it->header;
	long kept;
	static const struct zt_framenames_opts tid = { .tid = 1 };

	switch (it->kind) {
	case ZT_PS_HEADER:
		pp->nids = 0;
		pp->lineslot = -1;
		pp->count = h->period;
		if (pp->by == ZT_BY_THREAD) {
			pp->thread.len = 0;
			zt_framenames_root(h, &tid, &pp->thread);
		}
		pp->java = h->comm.n >= 4 && memcmp(h->comm.p, "java", 4) == 0;
		pp->nframes = 0;
		pp->state = ZT_STATE_ON_CPU;
		if (pp->states && !same_ids(pp, h)) {
			/* The spans die with the line: keep pid, tid and comm. */
			pp->hbuf.len = 0;
			zt_framenames_buf_add(&pp->hbuf, h->pid.p, h->pid.n);
			zt_framenames_buf_add(&pp->hbuf, h->tid.p, h->tid.n);
			zt_framenames_buf_add(&pp->hbuf, h->comm.p, h->comm.n);
			pp->h = *h;
		}
		break;
	case ZT_PS_FRAME:
		frame(pp, &it->frame);
		break;
	case ZT_PS_SRCLINE:
		srcline(pp, &it->text);
		break;
	case ZT_PS_END:
		body_keys(pp, it);
		body_state(pp, it);
		/* The record's thread, or the label's value (both in thread). */
		if (pp->by == ZT_BY_THREAD || pp->by == ZT_BY_LABEL)
			push(pp, pp->thread.buf, pp->thread.len);
		if (pp->by == ZT_BY_STATE && pp->nids == 0)
			push(pp, "on-CPU", 6);
		if (pp->states && zt_threadstates_add(pp->states, pp->hbuf.buf, pp->h.pid.n,
						      pp->hbuf.buf + pp->h.pid.n, pp->h.tid.n,
						      pp->hbuf.buf + pp->h.pid.n + pp->h.tid.n,
						      pp->h.comm.n, pp->state, pp->count) < 0)
			return "total time does not fit in 64 bits";
		if (zt_profile_samples(pp->p) > UINT64_MAX - pp->count)
			return "total count does not fit in 64 bits";
		kept = zt_profile_add(pp->p, pp->ids, pp->lp ? pp->aux : NULL, pp->nids, pp->count);
		if (pp->lp && kept >= 0)
			add_lines(pp, (size_t)kept);
		pp->nids = 0;
		break;
	default:
		break;
	}
	return NULL;
}

int zt_psprof_saw_lines(const struct zt_psprof *pp)
{
	return pp->saw_lines;
}
