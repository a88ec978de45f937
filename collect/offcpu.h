/*
 * offcpu.h — the wall-clock sampler of `zt-collect --clock=wall`: a thread
 * of zt's own that, at a fixed wall-clock rate, records where every thread
 * of the process that is not running waits, from
 * /proc/self/task/TID/syscall and a copy of its stack, without a signal.
 */
#ifndef ZT_OFFCPU_H
#define ZT_OFFCPU_H

#include "state.h"

/*
 * Register the sampler's part of the dump's summary with dump.c: called
 * once by the constructor when the profile is a wall profile, before the
 * first dump opens.
 */
ZT_HIDDEN void zt_offcpu_init(void);

/*
 * Start the sampler thread in the process that owns the dump (after
 * zt_prof_begin opened it). Not for signal handlers. 0, or -1 when the
 * thread could not be made (the dump then holds CPU samples only).
 */
ZT_HIDDEN int zt_offcpu_start(void);

/*
 * Stop it: after this returns the sampler writes nothing more, and its
 * buffer is in the dump. Async-signal-safe (the endings call it); the
 * thread itself ends at its next tick, or with the process.
 */
ZT_HIDDEN void zt_offcpu_stop(void);

/*
 * For a snapshot (control.c), with sampling paused: what the sampler holds
 * goes to the dump in progress, and its counts start again for the next.
 */
ZT_HIDDEN void zt_offcpu_flush(void);
ZT_HIDDEN void zt_offcpu_next_dump(void);

/* In a forked child: the parent's sampler and descriptors are not the child's. */
ZT_HIDDEN void zt_offcpu_after_fork(void);

/*
 * The calling thread, t, ends: its schedstat as it is now, so that the
 * sampler closes its account exactly (its last wait for a CPU included).
 */
ZT_HIDDEN void zt_offcpu_thread_end(struct zt_thread *t);

/*
 * Thread t of zt's began or ended (its slot of zt_state.threads got its
 * tid, or its live flag was cleared): the sampler's next tick looks at its
 * slot. Async-signal-safe.
 */
ZT_HIDDEN void zt_offcpu_thread_moved(const struct zt_thread *t);

/* Whether tid is the sampler thread's (never sampled, never adopted). */
ZT_HIDDEN int zt_offcpu_is_sampler(pid_t tid);

/*
 * The handler is about to fill t->addr with thread t's stack (filling),
 * then has (filled: its depth n, 0 for a stack of zt's start, and its end
 * mark): the sampler copies the last CPU stack of a thread that waits for
 * a CPU only between the two (a sequence count, odd while filling; read
 * by offcpu.c's last_cpu_stack). Nothing without a wall profile.
 * Async-signal-safe: t's own handler only.
 */
static inline void zt_offcpu_stack_filling(struct zt_thread *t)
{
	if (zt_state.wall)
		__atomic_store_n(&t->cpu_seq, t->cpu_seq + 1, __ATOMIC_SEQ_CST);
}

static inline void zt_offcpu_stack_filled(struct zt_thread *t, uint32_t n, int end_mark)
{
	if (!zt_state.wall)
		return;
	t->cpu_n = n;
	t->cpu_partial = end_mark;
	__atomic_store_n(&t->cpu_seq, t->cpu_seq + 1, __ATOMIC_RELEASE);
}

#endif
