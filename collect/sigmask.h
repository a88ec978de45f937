/*
 * sigmask.h — the program's signal masks and waits, and zt's signal in
 * them (sigmask.c; top of collect/).
 */
#ifndef ZT_SIGMASK_H
#define ZT_SIGMASK_H

#include <signal.h>
#include <ucontext.h>

#include "state.h"

ZT_HIDDEN void zt_sigmask_init(void);
/* The calling thread starts being sampled; inherit: its creator hid SIGPROF. */
ZT_HIDDEN void zt_sigmask_thread_start(int inherit);
/* Whether the program asked the calling thread to block SIGPROF and zt hides it. */
ZT_HIDDEN int zt_sigmask_hidden(void);
/* Block SIGPROF for real where the program asked for it (exec, fork, SIGPROF used). */
ZT_HIDDEN void zt_sigmask_reveal(void);
/* The calling thread ends (t its record, or NULL): count what was not sampled. */
ZT_HIDDEN void zt_sigmask_thread_end(const struct zt_thread *t);
/* In the handler, a SIGPROF not zt's: 1 when it was kept pending for the program. */
ZT_HIDDEN int zt_sigmask_foreign(siginfo_t *si, ucontext_t *uc);

#endif
