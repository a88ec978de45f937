/*
 * intercept.c — the libc functions the collector must see, interposed by
 * being preloaded:
 *
 *   dlopen, dlclose      record the new objects' build-ids; keep the maps of
 *                        a library about to be unloaded, so that its frames
 *                        can still be named
 *   execve, execv,       finish the dump before the image is replaced (exec
 *   execvp, execvpe      skips destructors); restart it if the exec fails
 *   sigaction, signal,   a program that takes SIGPROF for itself gets it:
 *   setitimer            sampling stops, and the dump says why
 *
 * Each passes through to the next definition (RTLD_NEXT).
 */
#include "prof.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_setitimer)(__itimer_which_t, const struct itimerval *,
			      struct itimerval *);
static sighandler_t (*real_signal)(int, sighandler_t);

#define RESOLVE(name) \
	do { if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name); } while (0)

void zt_intercept_init(void)
{
	RESOLVE(sigaction);
	RESOLVE(dlopen);
	RESOLVE(dlclose);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(setitimer);
	RESOLVE(signal);
}

int zt_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	RESOLVE(sigaction);
	if (!real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaction(sig, act, old);
}

/* The program wants SIGPROF: stop sampling for good and say so. */
static void give_up_sigprof(int why)
{
	if (!zt_owner() || zt_state.conflict)
		return;
	zt_state.conflict = why;
	zt_stop_sampling();
}

ZT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig == SIGPROF && act && zt_owner())
		give_up_sigprof(1);
	return zt_real_sigaction(sig, act, old);
}

ZT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	RESOLVE(signal);
	if (sig == SIGPROF && zt_owner())
		give_up_sigprof(1);
	return real_signal(sig, handler);
}

ZT_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *v,
			 struct itimerval *old)
{
	RESOLVE(setitimer);
	if (which == ITIMER_PROF && v && (v->it_value.tv_sec || v->it_value.tv_usec) &&
	    zt_owner())
		give_up_sigprof(2);
	return real_setitimer(which, v, old);
}

ZT_EXPORT void *dlopen(const char *file, int mode)
{
	void *h;

	RESOLVE(dlopen);
	h = real_dlopen(file, mode);
	if (h && zt_owner())
		zt_buildids_scan();
	return h;
}

ZT_EXPORT int dlclose(void *h)
{
	RESOLVE(dlclose);
	if (zt_owner())
		zt_maps_snapshot();
	return real_dlclose(h);
}

/* Finish the dump before exec replaces this image; restart it on failure. */
static void before_exec(const char *path)
{
	size_t n;

	if (!zt_owner())
		return;
	n = strlen(path);
	if (n >= sizeof zt_state.exec_path)
		n = sizeof zt_state.exec_path - 1;
	memcpy(zt_state.exec_path, path, n);
	zt_state.exec_path[n] = '\0';
	zt_prof_stop();
}

static void after_failed_exec(void)
{
	int saved = errno;

	if (zt_state.pid == getpid() && zt_state.fd < 0 && !zt_state.conflict) {
		zt_state.exec_path[0] = '\0';
		zt_begin();
	}
	errno = saved;
}

ZT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE(execve);
	before_exec(path);
	real_execve(path, argv, envp);
	after_failed_exec();
	return -1;
}

ZT_EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;

	return execve(path, argv, environ);
}

ZT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE(execvpe);
	before_exec(file);
	real_execvpe(file, argv, envp);
	after_failed_exec();
	return -1;
}

ZT_EXPORT int execvp(const char *file, char *const argv[])
{
	extern char **environ;

	return execvpe(file, argv, environ);
}
