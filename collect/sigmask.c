/*
 * sigmask.c — zt's signal reaches every thread whatever mask the program
 * sets, and never reaches the program's own signal waits.
 *
 * zt's signal is a real-time one that nobody handled when zt started
 * (zt_state.signo, prof.c); "SIGPROF" below is that signal. (zt once
 * sampled on SIGPROF itself; SIGPROF is now wholly the program's.)
 *
 * Many programs block every signal before they create workers (liblzma's
 * threads, thread pools, glib) or in a signal thread that takes signals with
 * sigwait or a signalfd. A thread that blocks SIGPROF is never sampled, and
 * the counter's overflow signal queued to it is taken by its sigwait. So,
 * while the program does not use SIGPROF itself (no handler of its own, no
 * ITIMER_PROF), zt keeps SIGPROF out of each thread's real mask and keeps,
 * per thread, whether the program asked to block it ("hidden"):
 *
 *   sigprocmask,          block what the program asks but SIGPROF, and
 *   pthread_sigmask       report the mask it asked for (the old mask too)
 *   pthread_create        the new thread inherits its creator's request; a
 *                         thread that starts with SIGPROF blocked (a mask
 *                         set with a raw system call, or inherited through
 *                         exec) is unblocked and hidden the same way
 *   sigwait, sigwaitinfo, never return zt's signal (taken, counted as lost,
 *   sigtimedwait          and waited again); a SIGPROF not zt's that the
 *                         program did not wait for is given back
 *   signalfd              never reads SIGPROF for a program that does not
 *                         use it
 *   sigsuspend, pselect,  the temporary mask also blocks SIGPROF, so that
 *   ppoll, epoll_pwait(2) zt's signal never ends the wait
 *
 * A SIGPROF that is not zt's (kill, raise) reaching a thread that hides it
 * is blocked for real on return from the handler (its ucontext's mask) and
 * queued again, so it stays pending, as it would have.
 *
 * Once the program uses SIGPROF, masks are real again, so that a program
 * that blocks SIGPROF around its own handler keeps that behaviour: each
 * thread is set back when it next changes its mask or a foreign SIGPROF
 * reaches it. A thread that really blocks SIGPROF is not sampled: the CPU
 * time it spends so, measured by its CPU clock where zt sees the mask
 * change, or estimated at its end (CPU time less sampled periods) when it
 * was set by a raw system call, is counted in the dump.
 */
#include "sigmask.h"
#include "thread.h"
#include "timer.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The program asked this thread to block zt's signal, which zt keeps
 * unblocked: that signal's number (0: none). One that is no longer zt's
 * (it moved, prof.c) is blocked for real at the thread's next mask change.
 */
static __thread int hidden __attribute__((tls_model("initial-exec")));
/* SIGPROF is really blocked, as zt saw it happen; since this CPU time. */
static __thread int blocked __attribute__((tls_model("initial-exec")));
static __thread uint64_t blocked_since __attribute__((tls_model("initial-exec")));

static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*real_signalfd)(int, const sigset_t *, int);
static int (*real_sigsuspend)(const sigset_t *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static int (*real_epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *,
				const sigset_t *);

#define RESOLVE(name) \
	do { if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name); } while (0)

void zt_sigmask_init(void)
{
	RESOLVE(pthread_sigmask);
	RESOLVE(sigprocmask);
	RESOLVE(sigtimedwait);
	RESOLVE(signalfd);
	RESOLVE(sigsuspend);
	RESOLVE(pselect);
	RESOLVE(ppoll);
	RESOLVE(epoll_pwait);
	RESOLVE(epoll_pwait2);
}

/* zt's signal now. */
static int zt_sig(void)
{
	return __atomic_load_n(&zt_state.signo, __ATOMIC_RELAXED);
}

/* Whether zt keeps its signal unblocked for the program now. */
static int hiding(void)
{
	return zt_state_owner() && !__atomic_load_n(&zt_state.shared, __ATOMIC_RELAXED);
}

/* The calling thread's CPU time. Async-signal-safe. */
static uint64_t thread_cpu(void)
{
	return zt_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void blocked_begin(void)
{
	if (!blocked) {
		blocked_since = thread_cpu();
		blocked = 1;
	}
}

static void blocked_end(void)
{
	if (blocked) {
		uint64_t now = thread_cpu();

		if (now > blocked_since && zt_state_owner())
			__atomic_fetch_add(&zt_state.unsampled_cpu_ns, now - blocked_since,
					   __ATOMIC_RELAXED);
		blocked = 0;
	}
}

/* Whether the calling thread's real mask blocks zt's signal. */
static int really_blocked(void)
{
	sigset_t cur;

	RESOLVE(pthread_sigmask);
	return real_pthread_sigmask && real_pthread_sigmask(SIG_SETMASK, NULL, &cur) == 0 &&
	       sigismember(&cur, zt_sig()) == 1;
}

static void block_really(int how, int sig)
{
	sigset_t s;

	RESOLVE(pthread_sigmask);
	sigemptyset(&s);
	sigaddset(&s, sig);
	if (real_pthread_sigmask)
		real_pthread_sigmask(how, &s, NULL);
}

void zt_sigmask_reveal(void)
{
	int sig = hidden;

	if (!sig)
		return;
	block_really(SIG_BLOCK, sig);
	hidden = 0;
	if (sig == zt_sig())
		blocked_begin();
}

void zt_sigmask_thread_start(int inherit)
{
	hidden = inherit;
	blocked = 0;
	if (hidden && hidden != zt_sig())
		zt_sigmask_reveal();
	if (!zt_state_owner()) {
		zt_sigmask_reveal();
		return;
	}
	if (!hiding()) {
		if (really_blocked())
			blocked_begin();
		return;
	}
	if (really_blocked()) {
		int sig = zt_sig();

		block_really(SIG_UNBLOCK, sig);
		hidden = sig;
	}
}

int zt_sigmask_hidden(void)
{
	return hidden;
}

void zt_sigmask_thread_end(const struct zt_thread *t)
{
	uint64_t cpu, covered;

	if (!really_blocked()) {
		blocked_end();
		return;
	}
	__atomic_fetch_add(&zt_state.sigprof_blocked, 1, __ATOMIC_RELAXED);
	if (blocked) {
		blocked_end();
		return;
	}
	/* Blocked where zt could not see it: what the samples do not cover. */
	cpu = thread_cpu();
	covered = t ? t->nsamples * (1000000000u / (zt_state.hz ? zt_state.hz : 1)) : 0;
	if (cpu > covered)
		__atomic_fetch_add(&zt_state.unsampled_cpu_ns, cpu - covered, __ATOMIC_RELAXED);
}

int zt_sigmask_foreign(siginfo_t *si, ucontext_t *uc)
{
	int sig = si->si_signo;

	if (!hidden || hidden != sig)
		return 0;
	sigaddset(&uc->uc_sigmask, sig);
	hidden = 0;
	if (sig == zt_sig())
		blocked_begin();
	if (si->si_code == SI_TKILL)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), zt_sys_gettid(), sig, si);
	else
		syscall(SYS_rt_sigqueueinfo, getpid(), sig, si);
	return 1;
}

/*
 * A change of the calling thread's mask as the program asked for it, through
 * real (pthread_sigmask or sigprocmask: both return 0 on success).
 */
static int change(int (*real)(int, const sigset_t *, sigset_t *), int how,
		  const sigset_t *set, sigset_t *old)
{
	sigset_t s;
	int sig, was, want, rc;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (hidden && hidden != zt_sig())
		zt_sigmask_reveal();	/* a request for a signal that is no longer zt's */
	sig = zt_sig();
	was = hidden;
	if (!hiding() || blocked) {
		/* Real masks: the program uses SIGPROF, or this thread blocks it
		 * for a foreign SIGPROF that waits. */
		zt_sigmask_reveal();
		rc = real(how, set, old);
		if (rc == 0 && set && zt_state_owner()) {
			if (really_blocked())
				blocked_begin();
			else
				blocked_end();
		}
		return rc;
	}
	if (!set) {
		rc = real(how, NULL, old);
		if (rc == 0 && old && was)
			sigaddset(old, sig);
		return rc;
	}
	switch (how) {
	case SIG_BLOCK:
		want = was || sigismember(set, sig) == 1;
		break;
	case SIG_UNBLOCK:
		want = was && sigismember(set, sig) != 1;
		break;
	case SIG_SETMASK:
		want = sigismember(set, sig) == 1;
		break;
	default:
		return real(how, set, old);
	}
	s = *set;
	if (how != SIG_UNBLOCK)
		sigdelset(&s, sig);
	/* A foreign signal arriving meanwhile finds the request already. */
	if (want)
		hidden = sig;
	rc = real(how, &s, old);
	if (rc != 0) {
		hidden = was;
		return rc;
	}
	hidden = want ? sig : 0;
	if (old && was)
		sigaddset(old, sig);
	return rc;
}

ZT_INTERPOSE int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	RESOLVE(pthread_sigmask);
	return change(real_pthread_sigmask, how, set, old);
}

ZT_INTERPOSE int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	RESOLVE(sigprocmask);
	return change(real_sigprocmask, how, set, old);
}

/* Whether si is the signal of one of zt's own timers. */
static int signal_is_ours(const siginfo_t *si)
{
	struct zt_thread *t = zt_thread_self();

	if (!zt_state_signal_owned(si->si_signo))
		return 0;
	if (si->si_code == POLL_IN && zt_state.timer == ZT_TIMER_PERF)
		return zt_thread_counter_is_ours(si->si_fd);
	return zt_timer_signal_is(t, si);
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*
 * sigtimedwait as the program asked, without zt's signals: zt's signal is
 * always waited for, zt's own are taken and waited again (on a signal zt
 * moved away from too), and a foreign one the program did not wait for is
 * queued again (it then pends if the thread blocks it, or interrupts the
 * wait as it would have: EINTR).
 */
static int wait_signal(const sigset_t *set, siginfo_t *info, const struct timespec *timeout,
		       int again_on_eintr)
{
	const struct timespec *tp = timeout;
	struct timespec left;
	siginfo_t si;
	sigset_t s;
	uint64_t deadline = 0;
	int sig, rc;

	RESOLVE(sigtimedwait);
	if (!real_sigtimedwait) {
		errno = ENOSYS;
		return -1;
	}
	if (!set || !zt_state_owner())
		return real_sigtimedwait(set, info, timeout);
	s = *set;
	sig = zt_sig();
	sigaddset(&s, sig);
	if (timeout && timeout->tv_sec >= 0 && timeout->tv_nsec >= 0 &&
	    timeout->tv_nsec < 1000000000)
		deadline = zt_sys_clock_ns(CLOCK_MONOTONIC) + ts_ns(timeout);
	for (;;) {
		rc = real_sigtimedwait(&s, &si, tp);
		if (rc < 0 && errno == EINTR && again_on_eintr)
			continue;
		if (rc <= 0)
			break;
		if (signal_is_ours(&si)) {
			__atomic_fetch_add(&zt_state.lost[ZT_LOST_WAIT], 1, __ATOMIC_RELAXED);
		} else if (rc != sig || sigismember(set, sig) == 1) {
			break;
		} else {
			syscall(SYS_rt_tgsigqueueinfo, getpid(), zt_sys_gettid(), sig, &si);
			if (!really_blocked()) {
				errno = EINTR;
				rc = -1;
				if (!again_on_eintr)
					break;
			}
			sigdelset(&s, sig);
		}
		if (deadline) {
			uint64_t now = zt_sys_clock_ns(CLOCK_MONOTONIC);
			uint64_t rest = now < deadline ? deadline - now : 0;

			left.tv_sec = (time_t)(rest / 1000000000u);
			left.tv_nsec = (long)(rest % 1000000000u);
			tp = &left;
		}
	}
	if (rc > 0 && info)
		*info = si;
	return rc;
}

ZT_INTERPOSE int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	return wait_signal(set, info, timeout, 0);
}

ZT_INTERPOSE int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return wait_signal(set, info, NULL, 0);
}

ZT_INTERPOSE int sigwait(const sigset_t *set, int *sig)
{
	int saved = errno, rc = wait_signal(set, NULL, NULL, 1);

	if (rc < 0) {
		rc = errno;
		errno = saved;
		return rc;
	}
	errno = saved;
	*sig = rc;
	return 0;
}

ZT_INTERPOSE int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t s;

	RESOLVE(signalfd);
	if (!real_signalfd) {
		errno = ENOSYS;
		return -1;
	}
	if (!hiding())
		return real_signalfd(fd, mask, flags);
	s = *mask;
	sigdelset(&s, zt_sig());
	return real_signalfd(fd, &s, flags);
}

/* A temporary mask that also blocks SIGPROF when zt hides it; mask when not. */
static const sigset_t *with_sigprof(const sigset_t *mask, sigset_t *buf)
{
	if (!mask || !hiding())
		return mask;
	*buf = *mask;
	sigaddset(buf, zt_sig());
	return buf;
}

ZT_INTERPOSE int sigsuspend(const sigset_t *mask)
{
	sigset_t s;

	RESOLVE(sigsuspend);
	if (!real_sigsuspend) {
		errno = ENOSYS;
		return -1;
	}
	if (!hiding())
		return real_sigsuspend(mask);
	s = *mask;
	sigaddset(&s, zt_sig());
	return real_sigsuspend(&s);
}

ZT_INTERPOSE int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
			 const sigset_t *mask)
{
	sigset_t s;

	RESOLVE(pselect);
	if (!real_pselect) {
		errno = ENOSYS;
		return -1;
	}
	return real_pselect(n, r, w, e, timeout, with_sigprof(mask, &s));
}

ZT_INTERPOSE int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		       const sigset_t *mask)
{
	sigset_t s;

	RESOLVE(ppoll);
	if (!real_ppoll) {
		errno = ENOSYS;
		return -1;
	}
	return real_ppoll(fds, n, timeout, with_sigprof(mask, &s));
}

ZT_INTERPOSE int epoll_pwait(int fd, struct epoll_event *ev, int n, int timeout,
			     const sigset_t *mask)
{
	sigset_t s;

	RESOLVE(epoll_pwait);
	if (!real_epoll_pwait) {
		errno = ENOSYS;
		return -1;
	}
	return real_epoll_pwait(fd, ev, n, timeout, with_sigprof(mask, &s));
}

ZT_INTERPOSE int epoll_pwait2(int fd, struct epoll_event *ev, int n, const struct timespec *timeout,
			      const sigset_t *mask)
{
	sigset_t s;

	RESOLVE(epoll_pwait2);
	if (!real_epoll_pwait2) {
		errno = ENOSYS;
		return -1;
	}
	return real_epoll_pwait2(fd, ev, n, timeout, with_sigprof(mask, &s));
}
