/*
 * store.h — per-thread sample buffers, written to the dump with write(2)
 * (store.c; above state and files). Async-signal-safe.
 */
#ifndef ZT_STORE_H
#define ZT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"
#include "unwind.h"

/*
 * At most this long between a thread's sample and its write to the file,
 * for a thread that keeps being sampled: what a program that ends without
 * zt's exit path (SIGKILL, a raw exit_group) loses is the samples of the
 * last interval of each thread, at most one buffer each (zt-collect then
 * finishes the dump from the file).
 */
#define ZT_FLUSH_NS 1000000000ull

/*
 * One sample line of the raw dump (formats/raw.md, "samples"), the one
 * grammar of both samplers (the handler's CPU samples, offcpu.c's
 * off-CPU ones):
 *
 *   TID COUNT @WHEN [^WEIGHT] [!WAIT] [$KIND SIZE] ADDR [=ADDR ...] [END]
 *
 * WHEN in nanoseconds since the dump started (CLOCK_MONOTONIC); an exact
 * pc (ZT_UNWIND_EXACT) after the first is written "=ADDR", and the first
 * too with mark_first; a stack that did not reach the thread's entry ends
 * in END (zt_store_end_mark). The caller owns everything it points to.
 */
struct zt_store_line {
	pid_t tid;
	uint64_t count;		/* the samples the line stands for */
	uint64_t when;		/* CLOCK_MONOTONIC ns */
	int weighed;		/* write ^WEIGHT: ns each sample weighs (a wall dump) */
	uint64_t weight;
	const char *wait;	/* %WAIT, already escaped (no space), or NULL */
	const uint64_t *addr;	/* leaf first, ZT_UNWIND_EXACT on exact pcs */
	size_t n;
	char alloc;		/* $KIND SIZE (ZT_RAW_ALLOC_NEW...), or 0 */
	uint64_t size;		/* the allocation's bytes */
	int mark_first;		/* write addr[0]'s exactness too (an off-CPU line's pc) */
	int end;		/* END, or 0 for a whole stack */
};

/*
 * Write l at p, which has room for zt_state.line_max bytes (and ZT_LINE_WALL,
 * its weight and wait, more in a wall dump); returns the line's end. No
 * allocation, no lock, no libc: safe in the handler.
 */
ZT_HIDDEN char *zt_store_line(char *p, const struct zt_store_line *l);

/*
 * Append one sample line of addr[0..n) to t's buffer; end is the line's
 * last mark (zt_store_end_mark), 0 for a whole stack. In t's handler only.
 */
ZT_HIDDEN void zt_store_sample(struct zt_thread *t, uint64_t when, uint64_t count,
			       const uint64_t *addr, size_t n, int end);
/*
 * Append an allocation sample (alloc.c): l's kind, size, weight and
 * stack, for thread t. Outside signal handlers, with t->busy set and every
 * signal blocked (alloc.c), so that neither its handler nor the end's
 * flush runs into it.
 */
ZT_HIDDEN void zt_store_alloc(struct zt_thread *t, const struct zt_store_line *l);
/*
 * The mark that ends a sample line of a walk that ended so (formats/raw.md):
 * 0 for a whole stack, ZT_RAW_PARTIAL_MARK for one the unwinder could not
 * take to its entry, ZT_RAW_DEPTH_MARK for one cut at max-depth.
 */
ZT_HIDDEN int zt_store_end_mark(enum zt_unwind_end end);
ZT_HIDDEN void zt_store_flush(struct zt_thread *t);
/*
 * Claim t's buffer for a flush from another thread (the end, a snapshot):
 * set its "closed" flag, so that its own exit leaves the buffer to the
 * claimer, and wait for a handler still writing to it to leave. 1 when
 * claimed; 0 when t is no live thread or is claimed already. The claimer
 * clears "closed" again to give the buffer back.
 */
ZT_HIDDEN int zt_store_claim(struct zt_thread *t);

#endif
