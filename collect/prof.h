/*
 * prof.h — libzt-prof.so's lifecycle: start, stop, the sampling signal and
 * the endings (prof.c; the top of collect/). The layers (a > b: a uses b;
 * a file includes only headers of its own layer or below):
 *
 *   top      prof  control  offcpu  thread  intercept  sigmask  seccomp
 *                                                      lifecycle, windows, interposers
 *   middle   dump > store  snapshot  perfmap              the dump and its sections
 *            tables > unwind > cfi                        the unwinder and its tables
 *            timer                                        one timer per thread
 *   bottom   files > state  sys  fmt  arch                state and small helpers
 *
 * Everything that runs inside a signal handler is async-signal-safe: no
 * malloc, no stdio, no locks.
 */
#ifndef ZT_PROF_H
#define ZT_PROF_H

#include "state.h"

struct zt_regs;
struct zt_thread;
/*
 * The stacks a walk from r (its sp set) may read on thread t: t's own from
 * sp up, zt's alternate stack, and a copy of the bytes above an sp outside
 * both (a stack zt does not know: a coroutine's, the program's alternate
 * signal stack), in t's window.
 */
ZT_HIDDEN void zt_prof_stacks_of(struct zt_thread *t, struct zt_regs *r);

/* Set while a signal's handler is ending the program. */
extern volatile int zt_prof_fatal_depth ZT_HIDDEN;

ZT_HIDDEN void zt_prof_stop(void);
ZT_HIDDEN int zt_prof_begin(void);
ZT_HIDDEN void zt_prof_arm(void);
ZT_HIDDEN void zt_prof_stop_sampling(void);
ZT_HIDDEN void zt_prof_install_handler(void);
ZT_HIDDEN int zt_prof_fatal_is_ours(int sig);
/* Stand in for sig's default (one that kills); old: the disposition it replaced, or NULL. */
ZT_HIDDEN int zt_prof_fatal_take(int sig, struct sigaction *old);
ZT_HIDDEN void zt_prof_fatal_release(int sig);
/* The program installed a handler on sig, zt's sampling signal: move, or share it. */
ZT_HIDDEN void zt_prof_signal_taken(int sig);

#endif
