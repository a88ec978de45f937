/*
 * intercept.h — the libc functions zt must see: dlopen, dlclose, exec,
 * sigaction, setitimer, mmap, munmap, mprotect, close (intercept.c; top of
 * collect/).
 */
#ifndef ZT_INTERCEPT_H
#define ZT_INTERCEPT_H

#include <signal.h>

#include "state.h"

ZT_HIDDEN void zt_intercept_init(void);
/* A SIGPROF not from zt's timers, handled as the program asked (in zt's handler). */
ZT_HIDDEN void zt_intercept_sigprof_foreign(int sig, siginfo_t *si, void *uc);
/* In a process that no longer samples, give SIGPROF back to the program. */
ZT_HIDDEN void zt_intercept_sigprof_release(void);

#endif
