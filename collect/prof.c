/*
 * prof.c — libzt-prof.so's start and stop, the sampling signal and its
 * handler, and the endings that must still leave a dump.
 *
 * zt-collect preloads this library with ZT_OUT (the dump's path), ZT_HZ and
 * ZT_PID (the process to profile) in the environment, and ZT_FOLLOW and
 * ZT_GZIP when asked. The constructor starts a timer on the main thread
 * before main runs; exit, _exit, and the fatal signals the program leaves at
 * their default complete the dump. Processes other than ZT_PID that inherit
 * the environment are left alone unless ZT_FOLLOW is set.
 */
#include "prof.h"
#include "alloc.h"
#include "arch.h"
#include "control.h"
#include "offcpu.h"
#include "dump.h"
#include "files.h"
#include "fmt.h"
#include "intercept.h"
#include "labels.h"
#include "seccomp.h"
#include "sigmask.h"
#include "snapshot.h"
#include "store.h"
#include "tables.h"
#include "thread.h"
#include "timer.h"
#include "unwind.h"
#include "launch.h"
#include "rawfmt.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * Signals whose default action kills: a dump is written before dying.
 * (SIGTRAP is left to debuggers. SIGPROF is the program's: zt samples on a
 * real-time signal of its own.)
 */
static const int fatal_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL,
	SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
	SIGSTKFLT, SIGPWR, SIGPROF,
};

/* Signals whose default action zt's on_fatal stands in for right now. */
static volatile uint64_t fatal_ours;

/* Set while a signal's handler ends the program. */
volatile int zt_prof_fatal_depth;

int zt_prof_fatal_is_ours(int sig)
{
	return sig > 0 && sig < 64 && (__atomic_load_n(&fatal_ours, __ATOMIC_ACQUIRE) >> sig & 1);
}

/*
 * The stacks a walk from r->sp may read: the thread's own (from the
 * interrupted stack pointer up, when it is there), zt's alternate signal
 * stack, and, when the stack pointer is on neither (a coroutine's stack, a
 * split stack's segment, the program's own alternate stack), a copy of up
 * to ZT_WINDOW bytes above it. The copy is made by process_vm_readv, one
 * page per element, so it stops at the first unmapped page instead of
 * faulting; its frames are unwound as far as the copy goes, and back into
 * the thread's stack if they lead there.
 */
void zt_prof_stacks_of(struct zt_thread *t, struct zt_regs *r)
{
	struct iovec local = { t->window, ZT_WINDOW }, remote[ZT_WINDOW / 4096 + 1];
	uintptr_t a = r->sp & ~(uintptr_t)7, to = a + ZT_WINDOW;
	int in_thread = r->sp >= t->stack_lo && r->sp < t->stack_hi, n = 0;
	long got;

	r->low = in_thread ? r->sp : t->stack_lo;
	r->high = t->stack_hi;
	if (t->alt) {
		r->extra[0].lo = (uintptr_t)t->alt;
		r->extra[0].hi = (uintptr_t)t->alt + ZT_ALTSTACK;
	}
	if (in_thread || zt_thread_on_alt(t, r->sp) || to < a)
		return;
	while (a < to) {
		uintptr_t next = (a | 4095) + 1;

		remote[n].iov_base = (void *)a;
		remote[n].iov_len = (next < to ? next : to) - a;
		a += remote[n++].iov_len;
	}
	got = zt_sys_call(SYS_process_vm_readv, zt_state.pid, (long)&local, 1, (long)remote,
			  n, 0);
	if (got > 0) {
		r->extra[1].lo = r->sp & ~(uintptr_t)7;
		r->extra[1].hi = r->extra[1].lo + (uintptr_t)got;
		r->extra[1].copy = t->window;
	}
}

/*
 * The code of the loader and of zt itself ([lo, hi) of each one's executable
 * segments), and whether the main thread has been seen outside them. zt's
 * constructor runs under the loader and arms the main thread's timer last,
 * but a first period (a random part of one) can still end before the loader
 * hands over to the program: in zt's own start, or in the loader's last
 * steps, whose entry code has no CFI. Such a stack is partial and rooted in
 * ld.so or zt; it is not the program's time, and it is not recorded. The
 * first sample of the main thread that is anything else ends this for good.
 */
static struct { uintptr_t base, lo, hi; } start_code[2];
static volatile int main_started;

static int start_segments(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size;
	(void)unused;
	for (int k = 0; k < 2; k++) {
		if (info->dlpi_addr != start_code[k].base)
			continue;
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

			if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
				continue;
			if (!start_code[k].hi || lo < start_code[k].lo)
				start_code[k].lo = lo;
			if (lo + ph->p_memsz > start_code[k].hi)
				start_code[k].hi = lo + ph->p_memsz;
		}
	}
	return 0;
}

static void start_code_find(void)
{
	Dl_info self;

	start_code[0].base = (uintptr_t)getauxval(AT_BASE);
	if (dladdr((void *)start_code_find, &self))
		start_code[1].base = (uintptr_t)self.dli_fbase;
	if (start_code[0].base)
		dl_iterate_phdr(start_segments, NULL);
}

/* Whether a main-thread sample is still the loader's or zt's start (start_code). */
static int in_start(const struct zt_thread *t, const uint64_t *addr, size_t n,
		    enum zt_unwind_end end)
{
	uint64_t root;

	if (__atomic_load_n(&main_started, __ATOMIC_RELAXED) || t->tid != zt_state.pid)
		return 0;
	root = n ? addr[n - 1] & ~ZT_UNWIND_EXACT : 0;
	for (int k = 0; k < 2 && end == ZT_UNWIND_PARTIAL; k++)
		if (root >= start_code[k].lo && root < start_code[k].hi)
			return 1;
	__atomic_store_n(&main_started, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * The address a signal handler returns to (the trampoline that makes the
 * rt_sigreturn call), where CFI does not say it (arch.h's
 * ZT_ARCH_SIGRETURN_PROBE): learnt at start from a signal zt sends itself
 * with a handler of its own, before the program runs; its old disposition
 * and mask come back. 0 when not known.
 */
static uintptr_t sigreturn_at;

static void on_probe(int sig)
{
	(void)sig;
	sigreturn_at = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

static void sigreturn_find(void)
{
	struct sigaction sa, old;
	sigset_t one, was;

	if (!ZT_ARCH_SIGRETURN_PROBE)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_probe;
	sigemptyset(&sa.sa_mask);
	if (zt_sys_sigaction(zt_state.signo, &sa, &old) < 0)
		return;
	sigemptyset(&one);
	sigaddset(&one, zt_state.signo);
	zt_sys_call(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&one, (long)&was, 8, 0, 0);
	zt_sys_call(SYS_tgkill, getpid(), zt_sys_gettid(), zt_state.signo, 0, 0, 0);
	zt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&was, 0, 8, 0, 0);
	zt_sys_sigaction(zt_state.signo, &old, NULL);
}

/*
 * The six rules: do little; make only async-signal-safe calls (system calls
 * made directly: clock_gettime, the counter's period ioctl, the store's write
 * in zt_store_flush; never a libc function that may lock or allocate); keep
 * errno; the buffer is this thread's
 * own, and "busy" tells the stopping thread to wait for it; shared counters
 * are atomic. A signal that did not come from zt's timers is the program's
 * (kill, sigqueue, or its own use of a signal zt had): it is handled as the
 * program asked (intercept.c).
 */
static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	struct zt_thread *t = zt_thread_self();
	ucontext_t *uc = ucv;
	uint64_t *addr, weight = 1;
	struct zt_regs r;
	const struct zt_cfi_set *set;
	enum zt_unwind_end end;
	size_t n;
	int skip;

	if (si->si_code == POLL_IN && zt_state.timer == ZT_TIMER_PERF) {
		/* Ours: a perf counter overflow (possibly after its thread left).
		 * A thread adopted at start has no record in its TLS, or its
		 * creator's (a raw clone that shares it): found by the counter. */
		if (!t || si->si_fd != t->perf_fd)
			t = zt_thread_by_fd(si->si_fd);
		if (!t || si->si_fd != t->perf_fd) {
			/* Not a counter of zt's now: a late one's (dropped), or
			 * the program's own descriptor on a signal it took. */
			if (zt_intercept_program_handles(sig))
				zt_intercept_foreign(sig, si, ucv);
			goto done;
		}
		if (t->adopted && !t->alt_checked)
			zt_thread_alt_adopted(t, uc);
		if (t->period_pending) {
			/* The random first period is over: whole periods from now on. */
			uint64_t p = zt_state.period_ns;

			t->period_pending = 0;
			ioctl(t->perf_fd, PERF_EVENT_IOC_PERIOD, &p);
		}
	} else if (!zt_timer_signal_is(t, si)) {
		if (!zt_sigmask_foreign(si, uc))
			zt_intercept_foreign(sig, si, ucv);
		goto done;
	}
	if (si->si_code == SI_TIMER && !t->has_timer)
		goto done;	/* queued before its timer was deleted */
	if (!__atomic_load_n(&zt_state.active, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&zt_state.paused, __ATOMIC_ACQUIRE))
		goto done;
	__atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
	/* Whoever stops or holds sampling sets the flag, then waits for busy. */
	if (!__atomic_load_n(&zt_state.active, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&zt_state.paused, __ATOMIC_SEQ_CST) || t->closed)
		goto out;
	addr = t->addr;
	zt_offcpu_stack_filling(t);	/* addr changes: the wall sampler must not copy it now */
	memset(&r, 0, sizeof r);
	zt_arch_ucontext_regs(uc, &r.pc, &r.sp, &r.fp, &r.x);
	r.sigreturn = sigreturn_at;
	if (t->adopted && !t->stack_hi)
		zt_thread_find_stack(t, r.sp);
	zt_prof_stacks_of(t, &r);
	set = zt_tables_enter();
	r.no_code = !zt_tables_code_readable();
	n = zt_unwind(&r, set, zt_state.unwind, addr, zt_state.max_depth, &end);
	zt_tables_leave();
	skip = in_start(t, addr, n, end);
	zt_offcpu_stack_filled(t, skip ? 0 : (uint32_t)n, zt_store_end_mark(end));
	if (skip)
		goto out;
	if (end == ZT_UNWIND_DEPTH)
		__atomic_fetch_add(&zt_state.truncated, 1, __ATOMIC_RELAXED);
	if (end != ZT_UNWIND_COMPLETE)
		__atomic_fetch_add(&zt_state.partial, 1, __ATOMIC_RELAXED);
	/* Code no snapshot of the maps shows: the next interposed call, or
	 * the end, reads them again (snapshot.c). Only pcs that were really
	 * running are checked: a return address a walk misread must not cost
	 * a read of the maps. */
	for (size_t i = 0; i < n; i++)
		if ((i == 0 || (addr[i] & ZT_UNWIND_EXACT)) &&
		    !zt_snap_pc_known(addr[i] & ~ZT_UNWIND_EXACT))
			break;
	/*
	 * A thread on the POSIX timer beside perf threads (fallback): its
	 * timer ticks at most at the kernel's rate, and each signal says how
	 * many periods passed (si_overrun), so its sample stands for them all.
	 */
	if (si->si_code == SI_TIMER && t->fallback && si->si_overrun > 0)
		weight += si->si_overrun < 1000 ? (uint64_t)si->si_overrun : 1000;
	zt_store_sample(t, zt_sys_clock_ns(CLOCK_MONOTONIC), weight, addr, n,
			zt_store_end_mark(end));
	t->nsamples++;
out:
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
done:
	errno = saved;
}

/* zt's handler on sig, for good: a signal still in flight after stop must not kill. */
static int install_handler(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sample;
	/* On the thread's alternate stack: never on a stack it could overflow. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/*
	 * No other handler runs on top of this one on the same thread: the
	 * endings' would wait for a buffer this handler holds, and one of the
	 * program's that leaves with longjmp (a SIGALRM time-out) would leave
	 * this handler's mask blocked for good, since only sigreturn restores
	 * it. So every signal is blocked while it runs, but those a fault in
	 * the handler raises (blocked, the kernel would kill without a dump).
	 */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGFPE);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGTRAP);
	sigdelset(&sa.sa_mask, SIGSYS);
	if (zt_sys_sigaction(sig, &sa, NULL) < 0)
		return -1;
	__atomic_or_fetch(&zt_state.owned, (uint64_t)1 << (sig - 1), __ATOMIC_RELEASE);
	return 0;
}

/*
 * Whether a timer can signal sig: qemu-user refuses the guest's highest
 * real-time signals (63 and 64 with qemu 7.2), which its host side keeps.
 * Not tried under a seccomp filter that would refuse timer_create.
 */
static int timer_takes(int sig)
{
	struct sigevent sev;
	timer_t timer;

	if (zt_state.seccomp != ZT_SECCOMP_NONE && zt_state.seccomp != ZT_SECCOMP_ALLOWED &&
	    zt_state.seccomp != ZT_SECCOMP_FALLBACK)
		return 1;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = sig;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0)
		return errno != EINVAL;
	timer_delete(timer);
	return 1;
}

/*
 * A real-time signal nobody handles: the highest with SIG_DFL that zt has
 * not had and a timer can send, between SIGRTMIN and SIGRTMAX (glibc keeps
 * the ones below SIGRTMIN for itself). 0 when every one is taken.
 */
static int signal_free(void)
{
	for (int sig = SIGRTMAX; sig >= SIGRTMIN && sig <= 64; sig--) {
		struct sigaction old;

		if (zt_state_signal_owned(sig) || zt_sys_sigaction(sig, NULL, &old) < 0)
			continue;
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL && timer_takes(sig))
			return sig;
	}
	return 0;
}

/*
 * The program installed a handler on zt's signal (intercept.c, which keeps
 * its disposition and passes it every signal not zt's). zt moves its
 * counters to another free real-time signal; its handler stays on this one
 * for the signals still in flight and the POSIX timers created on it. With
 * none free, zt stays on it and shares it: the program's masks of it are
 * then real (a thread that blocks it is not sampled, and counted). Both
 * are recorded for the dump.
 */
void zt_prof_signal_taken(int sig)
{
	int to = sig == zt_state.signo && !zt_state.shared ? signal_free() : -1;
	unsigned k;

	if (to < 0)
		return;
	if (to && install_handler(to) < 0)
		to = 0;
	k = __atomic_fetch_add(&zt_state.ntaken, 1, __ATOMIC_RELAXED);
	if (k < ZT_TAKEN_MAX) {
		zt_state.taken[k].from = sig;
		zt_state.taken[k].to = to;
	}
	if (!to) {
		__atomic_store_n(&zt_state.shared, 1, __ATOMIC_SEQ_CST);
		zt_sigmask_reveal();
		return;
	}
	__atomic_store_n(&zt_state.signo, to, __ATOMIC_SEQ_CST);
	{
		int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

		for (int i = 0; i < n; i++) {
			struct zt_thread *t = zt_state.threads[i];

			if (t && t->live)
				zt_timer_resignal(t, to);
		}
	}
	/* The calling thread's request to block the old signal becomes real. */
	zt_sigmask_reveal();
}

/*
 * A fatal signal the program left at its default: finish the dump, then die
 * of the same signal, so the exit status is what it would have been.
 */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;
	sigset_t set;

	(void)si;
	(void)uc;
	zt_prof_fatal_depth++;
	zt_prof_stop();
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	zt_prof_fatal_release(sig);
	zt_sys_sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	/* Raised now, delivered (and fatal) when this handler returns. A fault
	 * (SIGSEGV, ...) simply happens again on return. */
	zt_sys_call(SYS_tgkill, getpid(), zt_sys_gettid(), sig, 0, 0, 0);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * Stand in for sig's default action, which kills. Returns 0 when installed.
 * The program still sees SIG_DFL (intercept.c), and its own handler, once
 * it sets one, replaces this.
 */
int zt_prof_fatal_take(int sig, struct sigaction *old)
{
	struct sigaction sa;
	int fatal = 0;

	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		fatal |= fatal_signals[i] == sig;
	if (!fatal)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	/* On the thread's alternate stack: a stack overflow leaves no other. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	if (zt_sys_sigaction(sig, &sa, old) < 0)
		return -1;
	__atomic_or_fetch(&fatal_ours, (uint64_t)1 << sig, __ATOMIC_RELEASE);
	return 0;
}

void zt_prof_fatal_release(int sig)
{
	__atomic_and_fetch(&fatal_ours, ~((uint64_t)1 << sig), __ATOMIC_RELEASE);
}

static void install_fatal_handlers(void)
{
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
		struct sigaction old;

		if (zt_sys_sigaction(fatal_signals[i], NULL, &old) < 0)
			continue;
		/* A signal the program (or its parent: nohup) ignores stays so. */
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			zt_prof_fatal_take(fatal_signals[i], NULL);
	}
}

/*
 * Frames kept per sample, from ZT_MAX_DEPTH (ZT_DEPTH_DEFAULT when unset or
 * empty), and the sizes that follow from it (state.h): -1 when it is not a
 * number from ZT_DEPTH_MIN to ZT_DEPTH_MAX (zt-collect checked it; another
 * launcher's bad value samples nothing rather than guess).
 */
static int depth_init(const char *s)
{
	unsigned long v = ZT_DEPTH_DEFAULT;
	char *end;

	if (s && *s) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (*end || errno || v < ZT_DEPTH_MIN || v > ZT_DEPTH_MAX)
			return -1;
	}
	zt_state.max_depth = (unsigned)v;
	zt_state.line_max = zt_line_max(zt_state.max_depth);
	zt_state.buf_size = 2 * (zt_state.line_max + ZT_LINE_WALL);
	if (zt_state.buf_size < ZT_BUF_SIZE)
		zt_state.buf_size = ZT_BUF_SIZE;
	return 0;
}

static unsigned parse_hz(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return ZT_HZ_DEFAULT;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > ZT_HZ_MAX)
		return 0;
	return (unsigned)v;
}

/*
 * Open the dump for this process and give the calling thread a timer, not
 * yet running: zt_prof_arm starts it once zt's own set-up is done, so that
 * no sample falls in zt's own code.
 */
int zt_prof_begin(void)
{
	struct zt_thread *t;
	struct rusage ru;

	zt_state.pid = zt_state_pid_cache = getpid();
	zt_state.name_pid = zt_state.follow ? zt_files_name_pid() : zt_state.pid;
	if (zt_state.name_pid == zt_state.root_pid ||
	    !zt_state.follow) {
		if (strlen(zt_state.base) >= sizeof zt_state.out)
			return -1;
		strcpy(zt_state.out, zt_state.base);
	} else {
		char *p = zt_state.out + strlen(zt_state.base);

		if (strlen(zt_state.base) + 16 >= sizeof zt_state.out)
			return -1;
		strcpy(zt_state.out, zt_state.base);
		*p++ = '.';
		*zt_fmt_u64(p, (uint64_t)zt_state.name_pid, 10) = '\0';
	}
	zt_state.signo_start = zt_state.signo;
	t = zt_thread_attach();
	if (!t)
		return -1;
	if (zt_timer_prepare(t) < 0) {
		zt_thread_close(t);
		return -1;
	}
	if (zt_dump_open() < 0) {
		zt_timer_stop(t);
		return -1;
	}
	zt_state.cpu_start_ns = zt_sys_cpu_ns();
	zt_state.cpu_stop_ns = 0;
	zt_state.exit_cpu0 = zt_state.summary_cpu = 0;
	/* The children reaped from now on (intercept.c): not a parent's, nor an image's before an exec. */
	zt_state.nreaped = 0;
	zt_state.children_ns = 0;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		zt_state.children_ns = zt_rusage_ns(&ru);
	zt_state.user_start_ns = zt_state.sys_start_ns = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		zt_state.user_start_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
					 (uint64_t)ru.ru_utime.tv_usec * 1000u;
		zt_state.sys_start_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
					(uint64_t)ru.ru_stime.tv_usec * 1000u;
	}
	zt_snap_take();
	zt_control_begin();
	__atomic_store_n(&zt_state.active, 1, __ATOMIC_RELEASE);
	zt_offcpu_start();
	return 0;
}

/* Start the calling thread's timer that zt_prof_begin gave it. */
void zt_prof_arm(void)
{
	struct zt_thread *t = zt_thread_self();

	/* The CPU time zt's own start took is not the program's unsampled time:
	 * the dump's CPU time starts with the timer. */
	zt_state.cpu_start_ns = zt_sys_cpu_ns();
	if (!zt_state.control)
		zt_state.window_cpu0 = zt_state.cpu_start_ns;
	if (t && zt_timer_arm(t) < 0)
		__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
}

extern void __tsan_init(void) __attribute__((weak));

__attribute__((constructor)) static void zt_prof_start(void)
{
	int64_t entry = zt_sys_cpu_ns();	/* zt's own set-up is said apart */
	uint64_t faults = zt_sys_minflt();	/* and so are its page faults */
	const char *out = getenv(ZT_ENV_OUT);
	const char *pid = getenv(ZT_ENV_PID);
	const char *timer = getenv(ZT_ENV_TIMER);
	const char *follow = getenv(ZT_ENV_FOLLOW);
	const char *gz = getenv(ZT_ENV_GZIP);
	const char *unwind = getenv(ZT_ENV_UNWIND);
	const char *clock = getenv(ZT_ENV_CLOCK);

	if (!out || !pid || strlen(out) >= sizeof zt_state.base - 32)
		return;
	zt_state.follow = follow && strcmp(follow, ZT_ENV_ON) == 0;
	/* Kept now: the program may clear its environment before it forks. */
	zt_state.root_pid = (pid_t)strtol(pid, NULL, 10);
	if (zt_state.root_pid != getpid() && !zt_state.follow)
		return;
	zt_state.hz = parse_hz(getenv(ZT_ENV_HZ));
	if (!zt_state.hz || depth_init(getenv(ZT_ENV_MAX_DEPTH)) < 0)
		return;
	zt_state.period_ns = 1000000000ull / zt_state.hz;
	/*
	 * ThreadSanitizer's runtime wraps signal handlers and defers them. A
	 * weak reference, which the loader binds: a dlsym that fails takes
	 * memory from the program's malloc for its message (sys.h).
	 */
	zt_state.deferring = __tsan_init != NULL;
	if (clock && strcmp(clock, ZT_RAW_PROFILE_WALL) == 0) {
		const char *hz = getenv(ZT_ENV_OFF_CPU_HZ);
		char *end;
		unsigned long v = hz && *hz ? strtoul(hz, &end, 10) : ZT_OFF_CPU_HZ_DEFAULT;

		if (hz && *hz && (*end || v < 1 || v > ZT_OFF_CPU_HZ_MAX))
			return;
		zt_state.wall = 1;
		zt_state.off_cpu_hz = (unsigned)v;
		zt_offcpu_init();
	}
	if (zt_alloc_init() < 0)
		return;
	zt_state.gzip = gz && strcmp(gz, ZT_ENV_ON) == 0;
	zt_labels_init();
	if (timer && strcmp(timer, ZT_ENV_TIMER_PERF) == 0)
		zt_state.want_timer = 1;
	else if (timer && strcmp(timer, ZT_ENV_TIMER_POSIX) == 0)
		zt_state.want_timer = 2;
	if (unwind && strcmp(unwind, ZT_RAW_UNWIND_FP) == 0)
		zt_state.unwind = ZT_UNWIND_FP;
	else if (unwind && strcmp(unwind, ZT_RAW_UNWIND_CFI) == 0)
		zt_state.unwind = ZT_UNWIND_CFI;
	strcpy(zt_state.base, out);
	zt_files_status_init();
	if (zt_seccomp_start() < 0)
		return;
	/* After the seccomp check: the pick tries timer_create. */
	zt_state.signo = zt_state.signo_start = signal_free();
	if (!zt_state.signo)
		return;
	zt_intercept_init();
	zt_sigmask_init();
	zt_snap_init();
	start_code_find();
	zt_tables_update();
	zt_thread_init();
	sigreturn_find();
	if (install_handler(zt_state.signo) < 0)
		return;
	if (zt_prof_begin() < 0)
		return;
	zt_state.setup_ns = zt_state.cpu_start_ns > entry ? (uint64_t)(zt_state.cpu_start_ns - entry) : 0;
	/* A mask inherited through exec. */
	zt_sigmask_thread_start(0);
	zt_thread_adopt_running();
	zt_dump_buildids_scan();
	install_fatal_handlers();
	zt_control_init();
	/* The table update's own count is in this one. */
	zt_state.own_minflt = zt_sys_minflt() - faults;
	/* Last: no sample falls in zt's own start (under the loader, its
	 * stacks would be partial: ld.so's entry has no CFI). */
	zt_prof_arm();
}

/* Stop every thread's timer and make the handler record nothing more. */
static void stop_sampling(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	__atomic_store_n(&zt_state.active, 0, __ATOMIC_SEQ_CST);
	if (!zt_state.cpu_stop_ns)
		zt_state.cpu_stop_ns = zt_sys_cpu_ns();
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (t && t->live)
			zt_timer_stop(t);
	}
}

/*
 * Stop sampling, wait for handlers in flight, flush every buffer, finish
 * the dump. Runs once, in the process that owns the dump: a forked or
 * vforked child that exits must not touch it.
 */
void zt_prof_stop(void)
{
	static pid_t stopping;	/* the thread writing the dump, 0 when none */
	pid_t me = zt_sys_gettid(), busy = 0;
	int n;

	if (!zt_state_owner())
		return;
	if (!__atomic_compare_exchange_n(&stopping, &busy, me, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST)) {
		/*
		 * Another thread is writing the dump (a fatal signal while the
		 * program exits): wait for it, bounded, so that this thread does
		 * not kill the process with the dump half-written. The same
		 * thread, re-entered from a signal handler, just returns.
		 */
		if (busy == me)
			return;
		for (long spin = 0; __atomic_load_n(&stopping, __ATOMIC_ACQUIRE) &&
				    spin < 2000000000L; spin++)
			zt_arch_pause();
		return;
	}
	zt_state.stop_minflt0 = zt_sys_minflt();
	/* zt's exit work starts here: said apart (dump.c, put_summary). */
	zt_state.exit_cpu0 = zt_sys_cpu_ns();
	zt_control_end(!zt_prof_fatal_depth);
	stop_sampling();
	zt_offcpu_stop();
	/* The thread that ends the program: did it block zt's signal? (A fatal
	 * signal's handler runs with everything blocked: not counted.) */
	if (!zt_prof_fatal_depth)
		zt_sigmask_thread_end(zt_thread_self());
	n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (!zt_store_claim(t))
			continue;
		zt_thread_name_record(t->tid);
		zt_store_flush(t);
	}
	zt_dump_finish();
	__atomic_store_n(&stopping, 0, __ATOMIC_SEQ_CST);
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
ZT_INTERPOSE __attribute__((noreturn)) void _exit(int status)
{
	zt_prof_stop();
	for (;;)
		zt_sys_call(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

ZT_INTERPOSE __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}
