/*
 * psprofile.c — perf script records into per-key counts. The keys of the
 * open record are gathered leaf first; a source line, which follows its
 * frame, replaces that frame's key when reporting by line.
 */
#include "psprofile.h"
#include "collapse.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct zt_psprof {
	struct zt_profile *p;
	enum zt_by by;
	uint32_t *ids;
	size_t nids, capids;
	uint64_t count;
	int java;
	int saw_lines;
	long lineslot;		/* key a source line would replace, or -1 */
	struct zt_buf tmp, thread;
};

struct zt_psprof *zt_psprof_new(struct zt_profile *p, enum zt_by by)
{
	struct zt_psprof *pp = zt_calloc(1, sizeof *pp);

	pp->p = p;
	pp->by = by;
	pp->lineslot = -1;
	return pp;
}

void zt_psprof_free(struct zt_psprof *pp)
{
	if (!pp)
		return;
	free(pp->ids);
	free(pp->tmp.buf);
	free(pp->thread.buf);
	free(pp);
}

static void push(struct zt_psprof *pp, const char *s, size_t n)
{
	zt_grow(&pp->ids, &pp->capids, pp->nids + 1, sizeof *pp->ids);
	pp->ids[pp->nids++] = zt_profile_key(pp->p, s, n);
}

static void frame(struct zt_psprof *pp, const struct zt_ps_frame *f)
{
	static const struct zt_collapse_opts plain;
	const char *m = f->mod.p, *slash;
	size_t mn = f->mod.n, k, n, last;
	int unknown, names;

	pp->lineslot = -1;
	if (pp->by == ZT_BY_THREAD)
		return;
	if (pp->by == ZT_BY_MODULE) {
		if ((slash = memrchr(m, '/', mn))) {
			mn -= (size_t)(slash + 1 - m);
			m = slash + 1;
		}
		push(pp, m, mn);
		return;
	}
	pp->tmp.len = 0;
	names = zt_collapse_frame(f, &plain, pp->java, &pp->tmp, &unknown);
	if (names == 0)
		return;
	if (pp->by == ZT_BY_LINE) {
		/* The innermost name, marked as having no line until one comes. */
		for (k = 0, last = 0; k < pp->tmp.len; k += strlen(pp->tmp.buf + k) + 1)
			last = k;
		n = strlen(pp->tmp.buf + last);
		memmove(pp->tmp.buf, pp->tmp.buf + last, n);
		pp->tmp.len = n;
		zt_buf_add(&pp->tmp, " ??", 3);
		pp->lineslot = (long)pp->nids;
		push(pp, pp->tmp.buf, pp->tmp.len);
		return;
	}
	/* Leaf first: the names of "a->b" go in as b, a. */
	for (k = pp->tmp.len; k > 0;) {
		size_t end = k - 1, start = end;
		while (start > 0 && pp->tmp.buf[start - 1] != '\0')
			start--;
		push(pp, pp->tmp.buf + start, end - start);
		k = start;
	}
}

static void srcline(struct zt_psprof *pp, const struct zt_span *t)
{
	pp->saw_lines = 1;
	if (pp->by != ZT_BY_LINE || pp->lineslot < 0)
		return;
	pp->tmp.len = 0;
	zt_collapse_srcline(t->p, t->n, &pp->tmp);
	if (pp->tmp.len > 1)	/* drop the ':' collapse puts first */
		pp->ids[pp->lineslot] = zt_profile_key(pp->p, pp->tmp.buf + 1, pp->tmp.len - 1);
	pp->lineslot = -1;
}

int zt_psprof_item(struct zt_psprof *pp, const struct zt_ps_item *it)
{
	const struct zt_ps_header *h = &it->header;
	static const struct zt_collapse_opts tid = { .tid = 1 };

	switch (it->kind) {
	case ZT_PS_HEADER:
		pp->nids = 0;
		pp->lineslot = -1;
		pp->count = h->event.n == 10 && memcmp(h->event.p, "zt-samples", 10) == 0
			    ? h->period : 1;
		pp->thread.len = 0;
		zt_collapse_root(h, &tid, &pp->thread);
		pp->java = h->comm.n >= 4 && memcmp(h->comm.p, "java", 4) == 0;
		break;
	case ZT_PS_FRAME:
		frame(pp, &it->frame);
		break;
	case ZT_PS_SRCLINE:
		srcline(pp, &it->text);
		break;
	case ZT_PS_END:
		if (pp->by == ZT_BY_THREAD)
			push(pp, pp->thread.buf, pp->thread.len);
		if (zt_profile_samples(pp->p) > UINT64_MAX - pp->count)
			return -1;
		zt_profile_add(pp->p, pp->ids, pp->nids, pp->count);
		pp->nids = 0;
		break;
	default:
		break;
	}
	return 0;
}

int zt_psprof_saw_lines(const struct zt_psprof *pp)
{
	return pp->saw_lines;
}
