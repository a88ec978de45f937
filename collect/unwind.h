/*
 * unwind.h — the stack unwinder the sampler runs in its handler: CFI rows
 * (cfi.h) where an object has them, the checked frame-pointer chain where
 * it has none.
 */
#ifndef ZT_UNWIND_H
#define ZT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "cfi.h"

enum zt_unwind_mode {
	ZT_UNWIND_AUTO,	/* CFI where there is CFI, frame pointers elsewhere */
	ZT_UNWIND_CFI,	/* CFI only: a frame without it ends the stack */
	ZT_UNWIND_FP,	/* frame pointers only */
};

/* How a walk ended. */
enum zt_unwind_end {
	ZT_UNWIND_COMPLETE,	/* it reached the thread's entry */
	ZT_UNWIND_PARTIAL,	/* it stopped before: no rule, or a check failed */
	ZT_UNWIND_DEPTH,		/* it went on past max frames */
};

/*
 * Set on an address in out[] (user-space addresses never have it) when it
 * is an exact pc rather than a return address: the first one, and the pc a
 * signal frame interrupted.
 */
#define ZT_UNWIND_EXACT ((uint64_t)1 << 63)

/* Stack regions a walk may read besides [low, high). */
enum { ZT_UNWIND_EXTRA = 2 };

/*
 * A region of stack memory: [lo, hi), read in place when copy is NULL, or
 * from copy, which holds the bytes [lo, hi) had when they were copied (a
 * stack zt does not know the bounds of, copied with a call that cannot
 * fault).
 */
struct zt_stack_range {
	uintptr_t lo, hi;
	const unsigned char *copy;
};

/* The interrupted registers and the stack that may be read. */
struct zt_regs {
	uintptr_t pc, sp, fp;	/* fp: the frame pointer (arch.h) */
	uintptr_t low, high;	/* readable stack: [low, high), read in place */
	uintptr_t x;		/* the one more register a CFA rule may use (arch.h) */
	/* More stacks (an alternate signal stack, a coroutine's): unused when hi is 0. */
	struct zt_stack_range extra[ZT_UNWIND_EXTRA];
	int no_code;		/* 1: read no code (a dlclose may be unmapping some) */
	/* The signal trampoline's address, where CFI does not mark it (arch.h's
	 * ZT_ARCH_SIGRETURN_PROBE); 0 when unknown. */
	uintptr_t sigreturn;
};

/*
 * Unwind from r into out[0..max), leaf first: r->pc (tagged exact), then a
 * return address per frame. Every read is 8-byte aligned and inside one of
 * r's regions ([low, high) or an extra one); to check a frame-pointer
 * step, code and PLT slots are read inside the segments set lists, unless
 * r->no_code (the step is then a guess, and the stack partial). Within a
 * region every frame's stack pointer is strictly above the one before; a
 * frame may move to
 * another region (a signal frame back to the interrupted stack, a split
 * stack's __morestack back to the previous segment) only to one it has not
 * been in yet. So garbage, loops and downward pointers end the walk instead
 * of faulting, and a frame outside every region ends it as partial.
 * set may be NULL (frame pointers only). Returns how many were stored;
 * *end says why it stopped.
 *
 * Async-signal-safe: no calls but the table lookups, no globals.
 */
size_t zt_unwind(const struct zt_regs *r, const struct zt_cfi_set *set,
		 enum zt_unwind_mode mode, uint64_t *out, size_t max,
		 enum zt_unwind_end *end);

/*
 * zt_unwind for a thread that is not running, whose stack was copied
 * (an extra region with copy) and whose rbp is not known: only its pc and
 * sp are (/proc/PID/task/TID/syscall gives no more). r->fp is ignored:
 * the first frame that needs rbp takes instead the lowest frame record at
 * or above its stack pointer, a saved rbp (0, or a higher address) below a
 * return address that follows a call in code. Async-signal-safe.
 */
size_t zt_unwind_blocked(const struct zt_regs *r, const struct zt_cfi_set *set,
			 enum zt_unwind_mode mode, uint64_t *out, size_t max,
			 enum zt_unwind_end *end);

#endif
