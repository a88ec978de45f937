/*
 * thread.h — every thread sampled on its own CPU time: records, alternate
 * signal stacks, thread names, pthread_create, clone and fork (thread.c;
 * the top of collect/, with prof, intercept, sigmask and seccomp).
 */
#ifndef ZT_THREAD_H
#define ZT_THREAD_H

#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "state.h"

ZT_HIDDEN struct zt_thread *zt_thread_attach(void);
ZT_HIDDEN void zt_thread_init(void);
ZT_HIDDEN void zt_thread_close(struct zt_thread *t);
ZT_HIDDEN void zt_thread_name_record(pid_t tid);
ZT_HIDDEN struct zt_thread *zt_thread_self(void);
ZT_HIDDEN void zt_thread_adopt_running(void);
ZT_HIDDEN struct zt_thread *zt_thread_by_fd(int fd);
ZT_HIDDEN void zt_thread_find_stack(struct zt_thread *t, uintptr_t sp);
ZT_HIDDEN int zt_thread_on_alt(const struct zt_thread *t, uintptr_t sp);
/*
 * In the handler, on an adopted thread's first signal: give it t's
 * alternate stack if it has none (a thread zt never saw start, a raw
 * clone), so that its later signals do not run on its own stack: written
 * into uc, which the return from the handler installs.
 */
ZT_HIDDEN void zt_thread_alt_adopted(struct zt_thread *t, ucontext_t *uc);
ZT_HIDDEN int zt_thread_counter_is_ours(int fd);

#endif
