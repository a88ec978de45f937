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
 * Append one sample line of addr[0..n) to t's buffer; end is the line's
 * last mark (zt_store_end_mark), 0 for a whole stack. In t's handler only.
 */
ZT_HIDDEN void zt_store_sample(struct zt_thread *t, uint64_t when, uint64_t count,
			       const uint64_t *addr, size_t n, int end);
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
