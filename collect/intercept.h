/*
 * intercept.h — the libc functions zt must see: dlopen, dlclose, exec,
 * sigaction, mmap, munmap, mprotect, close (intercept.c; top of
 * collect/).
 */
#ifndef ZT_INTERCEPT_H
#define ZT_INTERCEPT_H

#include <signal.h>

#include "state.h"

ZT_HIDDEN void zt_intercept_init(void);
/* A signal on one of zt's not from zt's timers, handled as the program asked (in zt's handler). */
ZT_HIDDEN void zt_intercept_foreign(int sig, siginfo_t *si, void *uc);
/* Whether the program has a handler of its own on sig, one of zt's signals. */
ZT_HIDDEN int zt_intercept_program_handles(int sig);
/* In a process that no longer samples, give zt's signals back to the program. */
ZT_HIDDEN void zt_intercept_signals_release(void);

#endif
