/*
 * prof.c — libzt-prof.so's entry and exit, and the SIGPROF handler.
 *
 * zt-collect preloads this library with ZT_OUT (the dump's path), ZT_HZ and
 * ZT_PID (the pid of the process to profile) in the environment. The
 * constructor starts a timer on the main thread before main runs; the
 * destructor stops it and completes the dump. Processes other than ZT_PID
 * (children that inherited the environment) are left alone.
 */
#include "prof.h"
#include "walk.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

struct zt_state zt_state = { .fd = -1 };

/* This thread's record; initial-exec TLS, so reading it never allocates. */
static __thread struct zt_thread *self __attribute__((tls_model("initial-exec")));

pid_t zt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int64_t zt_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The six rules: do little; call only async-signal-safe functions (write is
 * the only call, in zt_store_flush); keep errno; the buffer is this thread's
 * own, and "busy" tells the exit path to wait for it; shared counters are
 * atomic.
 */
static void on_sigprof(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	struct zt_thread *t = self;
	ucontext_t *uc = ucv;
	uint64_t addr[ZT_MAX_DEPTH];
	uintptr_t pc, fp, sp, low;
	size_t n;
	int truncated;

	(void)sig;
	(void)si;
	if (!t || !__atomic_load_n(&zt_state.active, __ATOMIC_ACQUIRE)) {
		errno = saved;
		return;
	}
	__atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&zt_state.active, __ATOMIC_SEQ_CST))
		goto out;
	pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	/*
	 * Frames lie between the interrupted stack pointer and the top of the
	 * thread's stack, all of it mapped. Code running on another stack
	 * (a coroutine, an alternate signal stack) gets its pc only.
	 */
	low = sp;
	if (sp < t->stack_lo || sp >= t->stack_hi)
		low = t->stack_hi;
	n = zt_walk(pc, fp, low, t->stack_hi, addr, ZT_MAX_DEPTH, &truncated);
	if (truncated)
		__atomic_fetch_add(&zt_state.truncated, 1, __ATOMIC_RELAXED);
	zt_store_sample(t, addr, n);
out:
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
	errno = saved;
}

/* The bounds of the main thread's stack, from the [stack] mapping. */
static void main_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	pthread_attr_t attr;
	void *addr;
	size_t size;

	*lo = *hi = 0;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		*lo = (uintptr_t)addr;
		*hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
	if (here < *lo || here >= *hi)
		*lo = *hi = 0;
}

static unsigned parse_hz(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 997;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 10000)
		return 0;
	return (unsigned)v;
}

__attribute__((constructor)) static void zt_prof_start(void)
{
	const char *out = getenv("ZT_OUT");
	const char *pid = getenv("ZT_PID");
	const char *timer = getenv("ZT_TIMER");
	struct sigaction sa;
	struct zt_thread *t;

	if (!out || !pid || strtol(pid, NULL, 10) != getpid())
		return;
	if (strlen(out) >= sizeof zt_state.out)
		return;
	zt_state.hz = parse_hz(getenv("ZT_HZ"));
	if (!zt_state.hz)
		return;
	if (timer && strcmp(timer, "perf") == 0)
		zt_state.want_timer = 1;
	else if (timer && strcmp(timer, "posix") == 0)
		zt_state.want_timer = 2;
	strcpy(zt_state.out, out);
	zt_state.pid = getpid();

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* Installed for good: a SIGPROF still in flight after stop must not kill. */
	if (sigaction(SIGPROF, &sa, NULL) < 0)
		return;

	t = zt_thread_new(zt_gettid());
	if (!t)
		return;
	main_stack_bounds(&t->stack_lo, &t->stack_hi);
	self = t;
	if (zt_timer_start(t) < 0)
		return;
	if (zt_dump_open() < 0) {
		zt_timer_stop(t);
		return;
	}
	zt_state.cpu_start_ns = zt_cpu_ns();
	__atomic_store_n(&zt_state.active, 1, __ATOMIC_RELEASE);
}

/*
 * Stop every timer, wait for handlers in flight, flush, finish the dump.
 * Runs once, in the process that owns the dump: a forked or vforked child
 * that exits must not touch it.
 */
static void zt_prof_stop(void)
{
	static int stopping;
	int n;

	if (getpid() != zt_state.pid || zt_state.fd < 0)
		return;
	if (__atomic_exchange_n(&stopping, 1, __ATOMIC_SEQ_CST))
		return;
	__atomic_store_n(&zt_state.active, 0, __ATOMIC_SEQ_CST);
	n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (!t)
			continue;
		zt_timer_stop(t);
		/* A handler that saw active before it dropped finishes quickly. */
		for (long spin = 0; __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE) &&
				    spin < 100000000; spin++)
			__builtin_ia32_pause();
		zt_store_flush(t);
	}
	zt_dump_finish();
}

__attribute__((destructor)) static void zt_prof_fini(void)
{
	zt_prof_stop();
}

/*
 * _exit and _Exit skip destructors, and some programs (dash, for one) end
 * that way, so they are interposed: finish the dump, then leave as asked.
 * exit() reaches the destructor above instead; glibc's own internal calls to
 * _exit do not come through here.
 */
__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	zt_prof_stop();
	for (;;)
		syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	_exit(status);
}
