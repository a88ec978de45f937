/*
 * control.h — sampling windows: sampling turned on and off while the
 * program runs, and snapshots of the dump so far (control.c).
 *
 * Two ways in, one set of actions: the control channel (a unix socket in
 * a private directory, served by a thread of zt's, for zt-ctl), made only
 * when zt-collect --paused or ZT_CONTROL=1 asks for it, and the C API of
 * collect/zt.h (zt_start, zt_stop, zt_snapshot), which calls the exported
 * zt_control_* below. None of it is for signal handlers.
 */
#ifndef ZT_CONTROL_H
#define ZT_CONTROL_H

#include "state.h"

/* A new dump (the start, a followed child's): its window as asked for. */
ZT_HIDDEN void zt_control_begin(void);
/* After start: the control channel, when it was asked for. */
ZT_HIDDEN void zt_control_init(void);
/*
 * The end (exit, exec, a fatal signal, a seccomp filter): no action starts
 * any more, the one in progress is waited for (a little), the channel is
 * closed and its socket removed. join: also wait for the thread to be
 * gone (not from a signal handler).
 */
ZT_HIDDEN void zt_control_end(int join);

/* A seccomp filter goes in: the channel's thread ends first (join: waits for it). */
ZT_HIDDEN void zt_control_close_channel(int join);

/* The C API's entry points (collect/zt.h): 0 when done, -1 when zt cannot. */
ZT_EXPORT int zt_control_start(void);
ZT_EXPORT int zt_control_stop(void);
/* The snapshot's number N (the file FILE.N), or -1. */
ZT_EXPORT int zt_control_snapshot(void);

#endif
