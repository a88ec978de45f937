/*
 * walk.h — the checked frame-pointer walk the sampler runs in its handler.
 */
#ifndef ZT_WALK_H
#define ZT_WALK_H

#include <stddef.h>
#include <stdint.h>

/*
 * Store pc, then the return addresses of the frame-pointer chain that starts
 * at fp, into out[0..max). Returns how many were stored (at least 1 when
 * max > 0). Every frame must be 8-byte aligned, lie inside [low, high) with
 * room for its two words, and sit strictly above the frame before it (the
 * stack grows down), so a garbage fp, a loop or a downward pointer ends the
 * walk instead of faulting. A zero return address ends it too. Only memory
 * inside [low, high) is read. *truncated is set when the chain went on past
 * max.
 *
 * Async-signal-safe: no calls, no globals.
 */
size_t zt_walk(uintptr_t pc, uintptr_t fp, uintptr_t low, uintptr_t high,
	       uint64_t *out, size_t max, int *truncated);

#endif
