/*
 * waitframes.h — the off-CPU frames of a wall-clock profile (raw dump version
 * 5, formats/symbolized.md "Wall-clock profiles"): what a thread waited in,
 * written as its stack's leaf frame "[futex]", and told apart again from a
 * frame's name by the readers (zt-stat's states, zt-flame's colours, zt-pprof's
 * label), which see folded stacks, where only names are left.
 */
#ifndef ZT_WAITFRAMES_H
#define ZT_WAITFRAMES_H

#include <stddef.h>

/* What a thread was doing in a wall-clock sample. */
enum zt_state {
	ZT_STATE_ON_CPU,	/* running: a CPU sample */
	ZT_STATE_OFF_CPU,	/* blocked: its leaf frame names the wait */
	ZT_STATE_RUNQUEUE,	/* runnable, not on a CPU: "[waiting for a CPU]" */
};

#define ZT_STATES 3

/* The wait of a thread runnable but not on a CPU (formats/raw.md). */
#define ZT_WAIT_RUNQUEUE "waiting for a CPU"

/*
 * Not a wait: a thread's system time, on a CPU in the kernel, written with
 * a wait's syntax at its last CPU stack (formats/raw.md). Its frame
 * "[in the kernel]" is on-CPU.
 */
#define ZT_WAIT_KERNEL "in the kernel"

/*
 * The state of a stack whose leaf frame is named name (n bytes), in a
 * wall-clock profile: a wait frame is "[" WAIT "]" where WAIT starts with
 * a lowercase letter and holds no '.', '+', '/' or bracket, and is not
 * one of the pseudo-modules a frame without a symbol is named by
 * ("[unknown]", "[vdso]", "[anon]", "[truncated]", ...). Only for wall
 * profiles: in a CPU profile every stack is on-CPU.
 */
enum zt_state zt_waitframes_state(const char *name, size_t n);

/* Whether the frame named name (n bytes) is "[" ZT_WAIT_KERNEL "]". */
int zt_waitframes_is_kernel(const char *name, size_t n);

/* "on-CPU", "off-CPU", "waiting for a CPU": the state's name in reports. */
const char *zt_waitframes_state_name(enum zt_state s);

#endif
