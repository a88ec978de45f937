/*
 * zt.h — sampling windows marked by the program itself, for zt's collector
 * (zt-collect(1), zt-ctl(1)).
 *
 *	#include <zt.h>
 *	zt_start();		... the work to profile ...	zt_stop();
 *	zt_snapshot();		write what was sampled since the last snapshot
 *
 * Nothing to link: a program built with this header runs as before without
 * zt, where every call does nothing and returns -1. Under zt-collect (the
 * collector, libzt-prof.so, is preloaded) the calls reach it:
 *
 *   zt_start()     sampling on from now (0); it may have been on already
 *                  (zt-collect without --paused starts with it on)
 *   zt_stop()      sampling off from now (0); the timers keep running, the
 *                  samples are not taken
 *   zt_snapshot()  the samples since the last snapshot (or the start) are
 *                  written as a whole raw dump FILE.N next to the dump FILE,
 *                  without stopping the program; returns N. The dump written
 *                  at the end holds what came after the last snapshot.
 *
 * Each returns -1 when zt does not sample this process (not loaded, a child
 * zt does not follow, sampling ended) or the snapshot could not be written.
 * They lock and write files: call them from ordinary code, never from a
 * signal handler. Thread-safe. zt-ctl PID start|stop|snapshot does the same
 * from outside.
 *
 * The collector's entry points are weak references, found at run time: in
 * a position-independent executable (gcc's default) by the dynamic linker,
 * otherwise by dlsym (in libc since glibc 2.34; older ones need -ldl).
 */
#ifndef ZT_H
#define ZT_H

#include <dlfcn.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int zt_control_start(void) __attribute__((weak));
extern int zt_control_stop(void) __attribute__((weak));
extern int zt_control_snapshot(void) __attribute__((weak));

/* The collector's function f (weak reference weak, else by name), or NULL. */
static inline int (*zt__entry(int (*weak)(void), const char *name))(void)
{
	void *p;

	if (weak)
		return weak;
	p = dlsym(RTLD_DEFAULT, name);
	return p ? *(int (**)(void))(void *)&p : NULL;
}

static inline int zt_start(void)
{
	static int (*f)(void);

	if (!f)
		f = zt__entry(zt_control_start, "zt_control_start");
	return f ? f() : -1;
}

static inline int zt_stop(void)
{
	static int (*f)(void);

	if (!f)
		f = zt__entry(zt_control_stop, "zt_control_stop");
	return f ? f() : -1;
}

static inline int zt_snapshot(void)
{
	static int (*f)(void);

	if (!f)
		f = zt__entry(zt_control_snapshot, "zt_control_snapshot");
	return f ? f() : -1;
}

#ifdef __cplusplus
}
#endif

#endif
