/*
 * symstream.c — zt-symbolize's stream: records of resolved addresses in
 * the perf script text layout. The one writer of that layout, for
 * zt-symbolize and for the readers of raw dumps in lib/stage.c.
 */
#include "symstream.h"
#include "escape.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>

struct zt_symres *zt_symstream_resolve(struct zt_symbolizer *s, const struct zt_raw *d)
{
	struct zt_symres *res = zt_calloc(d->naddr ? d->naddr : 1, sizeof *res);

	zt_symbolize_all(s, d->addr, d->exact, d->naddr, res);
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

/* A source line under its frame, as perf script -F +srcline prints it. */
static void print_srcline(FILE *out, const char *file, unsigned line)
{
	fputs("  ", out);
	zt_escape_fput(out, file, NULL);
	fprintf(out, ":%u\n", line);
}

void zt_symstream_frame(FILE *out, uint64_t addr, const struct zt_symres *r)
{
	for (size_t k = 0; k < r->ninl; k++) {
		fprintf(out, "\t%16" PRIx64 " ", addr);
		zt_escape_fput(out, r->inl[k].name, NULL);
		fputs(" (inlined)\n", out);
		if (r->inl[k].file)
			print_srcline(out, r->inl[k].file, r->inl[k].line);
	}
	fprintf(out, "\t%16" PRIx64 " ", addr);
	zt_escape_fput(out, r->name, NULL);
	if (r->have_sym || r->fde)
		fprintf(out, "+0x%" PRIx64, r->offset);
	/* perf-script readers take the module as the last "(\S*)": no space,
	 * no parenthesis inside it. */
	fputs(" (", out);
	zt_escape_fput(out, r->module, " ()");
	fputs(")\n", out);
	if (r->file)
		print_srcline(out, r->file, r->line);
}

void zt_symstream_header(FILE *out, const struct zt_raw *d, const char *comm, size_t stack,
			 uint64_t ns, uint64_t count)
{
	const struct zt_stack *st = &d->stacks[stack];
	const char *name = zt_raw_thread_name(d, st->tid);
	uint64_t pid = d->have_pid ? d->pid : st->tid;

	/* A ';' in a thread name would split the folded stack. */
	zt_escape_fput(out, name && *name ? name : comm, ";");
	fprintf(out, " %" PRIu64 "/%" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %" PRIu64
		" zt-samples:\n", pid, st->tid, ns / 1000000000u, ns % 1000000000u / 1000u, count);
}

void zt_symstream_truncated(FILE *out)
{
	/* The unwinder stopped short: say so at the root, never pass the
	 * stack off as whole. */
	fprintf(out, "\t%16x [truncated] ([unknown])\n", 0);
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

void zt_symstream_order(struct zt_raw *d, int merge, struct zt_symstream_order *o)
{
	/*
	 * One record per sample line, in time order, with its time, as perf
	 * script prints them: viewers that weigh a record by the time to the
	 * next one, or count records, weigh it right.
	 */
	o->timed = !merge && d->ntimed > 0 && d->nuntimed == 0;
	o->n = o->timed ? d->ntimed : d->nstacks;
	if (o->timed)
		qsort_r(d->timed, d->ntimed, sizeof *d->timed, by_time, NULL);
}

void zt_symstream_record(const struct zt_raw *d, const struct zt_symstream_order *o,
			 size_t k, size_t *stack, uint64_t *ns, uint64_t *count)
{
	if (o->timed) {
		*stack = d->timed[k].stack;
		*ns = d->start_ns + d->timed[k].ns;
		*count = d->timed[k].count;
	} else {
		*stack = k;
		*ns = 0;
		*count = d->stacks[k].count;
	}
}

void zt_symstream_write(FILE *out, struct zt_raw *d, const struct zt_symres *res, int merge)
{
	const char *comm = zt_symstream_comm(d);
	struct zt_symstream_order o;
	uint64_t ns, count;
	size_t stack;

	zt_symstream_order(d, merge, &o);
	for (size_t k = 0; k < o.n; k++) {
		const struct zt_stack *st;

		zt_symstream_record(d, &o, k, &stack, &ns, &count);
		st = &d->stacks[stack];
		zt_symstream_header(out, d, comm, stack, ns, count);
		for (size_t j = st->first; j < st->first + st->naddr; j++)
			zt_symstream_frame(out, d->addr[j], &res[j]);
		if (st->partial)
			zt_symstream_truncated(out);
		putc('\n', out);
	}
}
