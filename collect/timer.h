/*
 * timer.h — one sampling timer per thread (timer.c; above state and files).
 */
#ifndef ZT_TIMER_H
#define ZT_TIMER_H

#include <signal.h>

#include "state.h"

/* A timer for thread t (prepare: not running yet; arm: running; start: both). */
ZT_HIDDEN int zt_timer_prepare(struct zt_thread *t);
ZT_HIDDEN int zt_timer_arm(struct zt_thread *t);
ZT_HIDDEN int zt_timer_start(struct zt_thread *t);
ZT_HIDDEN void zt_timer_stop(struct zt_thread *t);
/* Have t's counter signal sig from now on (zt's signal moved; the POSIX timer's stays). */
ZT_HIDDEN void zt_timer_resignal(struct zt_thread *t, int sig);
/* Whether si is the signal of t's POSIX timer (running, or deleted with a signal still queued). */
ZT_HIDDEN int zt_timer_signal_is(const struct zt_thread *t, const siginfo_t *si);

#endif
