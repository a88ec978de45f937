/*
 * symstream.h — a raw dump's samples as zt-symbolize's stream (the perf
 * script text layout, formats/symbolized.md), once its addresses are
 * resolved. zt-symbolize writes it; lib/stage.c feeds the same lines to
 * the readers of every analysis tool, so that a tool reading a raw dump
 * sees exactly what it would read from zt-symbolize.
 */
#ifndef ZT_SYMSTREAM_H
#define ZT_SYMSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "out.h"
#include "raw.h"
#include "symbolize.h"

/*
 * Every address of d's pool resolved by s, in pool order (res[i] is
 * d->addr[i]'s). The caller frees the array.
 */
struct zt_symres *zt_symstream_resolve(struct zt_symbolizer *s, const struct zt_raw *d);

/* The process name the records carry: the exe's basename, else the first file mapped. */
const char *zt_symstream_comm(const struct zt_raw *d);

/*
 * The lines of one address, each ending in '\n', into o: its inlined frames
 * first, as perf prints them ("(inlined)" for the module), then the frame
 * itself; each with its source line, and with lines (source lines asked
 * for) a frame without one gets perf's stand-in ("name+OFFSET",
 * "module[ADDRESS]").
 */
void zt_symstream_frame(struct zt_out *o, uint64_t addr, const struct zt_symres *r,
			int lines);

/*
 * A record's header line: "comm pid/tid seconds: period zt-samples:
",
 * the period a count of samples; in a wall-clock profile (d->wall)
 * "... period zt-wall-ns:
", the period in ns.
 */
void zt_symstream_header(struct zt_out *o, const struct zt_raw *d, const char *comm,
			 size_t stack, uint64_t ns, uint64_t period);

/*
 * The leaf frame of an off-CPU stack (wait: zt_raw_wait's), which comes
 * before its other frames: "	               0 [futex] ([off-cpu])
".
 * With lines set (source lines asked for), each of these pseudo-frames
 * (the wait, zt's own work, the root of a partial stack) is followed by the
 * stand-in perf prints for a frame without one, "module[ADDRESS]":
 * "  [off-cpu][0]", "  [zt][0]", "  [unknown][0]". A reader that takes the
 * line after every frame for its source finds one, and stackcollapse-perf.pl
 * --srcline, which drops bracketed text, keeps the frame's name bare.
 */
void zt_symstream_wait(struct zt_out *o, const char *wait, int lines);

/*
 * Whether the text of a stack's outermost frame names one of the Go
 * runtime's roots (runtime.goexit, runtime.mstart, runtime.rt0_go, or their
 * .abi0 symbols): a partial stack that reached one is whole, and gets no
 * "[truncated]" root.
 */
int zt_symstream_go_root(const char *text, size_t len);

/*
 * The leaf frame of a stack of the collector's own work (st->own), after
 * its wait if it has one: "	               0 [zt] ([zt])\n".
 */
void zt_symstream_own(struct zt_out *o, int lines);

/*
 * The root line that ends the frames of a partial stack (struct zt_stack's
 * partial): "[truncated]" when the unwinder stopped short
 * (ZT_STACK_PARTIAL), "[depth limit]" when the collector cut it at its
 * max-depth (ZT_STACK_DEPTH). Both at address 0 in module "[unknown]".
 */
void zt_symstream_root(struct zt_out *o, int partial, int lines);

/*
 * The names of those frames, for every writer of them (the stream here,
 * lib/pprof.c's locations): a partial stack's root, ZT_ROOT_DEPTH or
 * ZT_ROOT_TRUNCATED as partial says; an off-CPU stack's wait in brackets,
 * "[futex]", into o, with the bytes of esc escaped (zt_escape_out; NULL:
 * none).
 */
const char *zt_symstream_root_name(int partial);
void zt_symstream_wait_name(struct zt_out *o, const char *wait, const char *esc);

/*
 * The order of the records. Without merge, when every sample line has its
 * time, one record per sample line in time order (d's timed lines are
 * sorted here); otherwise one record per distinct stack, time 0, in the
 * dump's order.
 */
struct zt_symstream_order {
	int timed;	/* records are d's timed lines */
	size_t n;	/* their number */
};

void zt_symstream_order(struct zt_raw *d, int merge, struct zt_symstream_order *o);

/*
 * Records of order o (one per timed line, by time) summed per wall-clock
 * bucket of bucket_ns (from start-time-ns; from the dump's start when it
 * is unknown) and stack: one record per bucket and stack, by bucket, then
 * by its first line's time, at that time. For a reader that counts samples
 * per bucket (zt-ingest): records as many as distinct stacks a bucket,
 * not as samples. Nothing when o is not timed.
 */
void zt_symstream_bucket(struct zt_raw *d, uint64_t bucket_ns, struct zt_symstream_order *o);

/*
 * Record k of order o: its stack (an index into d->stacks), time and
 * period (its samples, or in a wall-clock profile their ns).
 */
void zt_symstream_record(const struct zt_raw *d, const struct zt_symstream_order *o,
			 size_t k, size_t *stack, uint64_t *ns, uint64_t *period);

/* Every record of d, resolved into res, to out: the whole stream after its
   facts; lines as zt_symstream_frame's. */
void zt_symstream_write(FILE *out, struct zt_raw *d, const struct zt_symres *res, int merge,
			int lines);

#endif
