/*
 * timer.c — one sampling timer per thread, counting that thread's CPU time.
 *
 * The first choice is a perf_event task-clock counter in user space only
 * (allowed at perf_event_paranoid=2 for one's own threads): each overflow
 * sends zt's signal (a real-time one, zt_state.signo) to the thread through
 * fcntl F_SETSIG/F_SETOWN_EX, and it
 * delivers the requested rate. setitimer and POSIX CPU-time timers are tied
 * to the kernel tick, so on a HZ=250 kernel they stop at 250 signals per
 * CPU-second whatever is asked; they are only the fallback, and the dump says
 * so.
 */
#include "timer.h"
#include "files.h"
#include "fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A random point of the period, in (0, period]: each thread's first sample
 * comes after that much of its CPU time, so that a thread shorter than a
 * period is sampled with probability (its CPU time / period), as a long
 * one is, instead of never. Not for signal handlers (a shared seed).
 */
static uint64_t first_period(uint64_t period)
{
	static uint64_t seed;
	uint64_t z = __atomic_add_fetch(&seed, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);

	if (z == 0x9e3779b97f4a7c15ull)	/* first call: start from the clock */
		z ^= zt_sys_clock_ns(CLOCK_MONOTONIC) ^ (uint64_t)zt_sys_gettid() << 32;
	z ^= (uint64_t)zt_sys_gettid() * 0xbf58476d1ce4e5b9ull;
	/* splitmix64's finalizer */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return period ? 1 + z % period : 1;
}

/*
 * The shortest first period a counter is given: 100 us, or half a period
 * at rates above 5 kHz. After its first overflow the kernel re-arms the
 * task clock's hrtimer with the same period until the handler sets the
 * whole one (PERF_EVENT_IOC_PERIOD), and a period shorter than the
 * interrupt and the signal take (the kernel allows 10 us) fires again and
 * again before the handler runs: on a loaded 2-CPU VM, 10 us periods cost
 * samples/shortthreads 300,000 to 1,000,000 hrtimer interrupts for its
 * 2,900 samples, and 2 to 30 s of system time; at 25 us some overflowed
 * twice; at 50 and 100 us none (4,300 expiries: the samples' and the
 * ticks'), and 0.9 to 1.1 s of system time (bare: 0.5 to 1). The draw is
 * still uniform in (0, period]: a draw below the floor waits for it, so a
 * thread of at least that much CPU time is sampled with the same
 * probability (its CPU time / period); a thread of less is never sampled
 * (with 10 us, one of 50 us had a 5% chance at 997 Hz).
 */
static uint64_t first_floor(uint64_t period)
{
	uint64_t f = period / 2 < 100000 ? period / 2 : 100000;

	return f < 10000 ? 10000 : f;
}

/* The CPU clock of thread tid of this process (the kernel's encoding, as glibc's pthread_getcpuclockid). */
static clockid_t thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

/*
 * Thread t's user and system time (ns), as the kernel splits its CPU time:
 * its own getrusage(RUSAGE_THREAD) when t is the calling thread (to the
 * microsecond), otherwise /proc/self/task/TID/stat's utime and stime (in
 * clock ticks of 10 ms: USER_HZ is 100 on every Linux ABI). 1 if they are
 * the thread's own, 0 from /proc, -1 if neither could be read.
 * Async-signal-safe (a fatal signal's handler may end the dump).
 */
static int thread_times(const struct zt_thread *t, uint64_t *user, uint64_t *sys)
{
	char path[64] = "/proc/self/task/", buf[1024], *p, *end;
	uint64_t v[2] = { 0, 0 };
	ssize_t n;
	int field = 2;

	if (t->tid == zt_sys_gettid()) {
		struct rusage ru;

		if (getrusage(RUSAGE_THREAD, &ru) < 0)
			return -1;
		*user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
		*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
		return 1;
	}
	strcpy(zt_fmt_u64(path + strlen(path), (uint64_t)t->tid, 10), "/stat");
	n = zt_sys_read_file(path, buf, sizeof buf);
	/* The name, in parentheses, may hold anything: fields follow the last ')'. */
	for (p = n > 0 ? buf + n : buf; n > 0 && p > buf && p[-1] != ')'; p--)
		;
	if (n <= 0 || p == buf)
		return -1;
	end = buf + n;
	/* Field 3 (the state) follows; utime and stime are fields 14 and 15. */
	for (; p < end && field < 15; p++) {
		if (*p == ' ') {
			field++;
			continue;
		}
		if (field >= 14) {
			if (*p < '0' || *p > '9')
				return -1;
			v[field - 14] = v[field - 14] * 10 + (uint64_t)(*p - '0');
		}
	}
	if (field < 15)
		return -1;
	*user = v[0] * 10000000u;
	*sys = v[1] * 10000000u;
	return 0;
}

/* Thread t's CPU clock (ns), read from any thread of the process; 0 if gone. */
static uint64_t thread_cpu(const struct zt_thread *t)
{
	return zt_sys_clock_ns(t->tid == zt_sys_gettid() ? CLOCK_THREAD_CPUTIME_ID
							 : thread_clock(t->tid));
}

/* What thread t has run when its timer starts: the base of ran_end() below. */
static void ran_begin(struct zt_thread *t)
{
	t->cpu0 = thread_cpu(t);
	t->times_self = thread_times(t, &t->user0, &t->sys0);
}

/*
 * What thread t ran while its timer ran, by its own CPU clock, split into
 * user and system time as the kernel accounts them, added to the
 * process's sums (the dump's sampled-cpu-ns, sampled-user-ns,
 * sampled-sys-ns). Its own getrusage at both ends gives the split of that
 * time; otherwise (a thread still running when another ends the dump, an
 * adopted one) its whole life's split from /proc, applied to the clock's
 * time: /proc's ticks are too coarse for a difference. A thread whose
 * split cannot be read (/proc refused, or it ran under two ticks in all)
 * counts as user time. A thread that is gone (adopted at the start, it
 * ended without zt's exit hook) has no clock: its counter's count, which
 * outlives it, stands in (counted, 0 if none), as user time.
 */
static void ran_end(struct zt_thread *t, uint64_t counted)
{
	uint64_t now = thread_cpu(t), ran, user = 0, sys = 0, u = 0, k = 0;
	int self = -1;

	if (!now && counted) {
		ran = counted;
		t->times_self = -1;
	} else if (!now || now <= t->cpu0) {
		return;
	} else {
		ran = now - t->cpu0;
		self = thread_times(t, &user, &sys);
	}
	if (self == 1 && t->times_self == 1) {
		u = user > t->user0 ? user - t->user0 : 0;
		k = sys > t->sys0 ? sys - t->sys0 : 0;
		/* The clock is the measure; the kernel's split says which part is which. */
		if (u + k) {
			k = (uint64_t)((double)ran * (double)k / (double)(u + k));
			u = ran - k;
		} else {
			u = ran;
		}
	} else if (self >= 0 && user + sys >= 20000000u) {
		k = (uint64_t)((double)ran * (double)sys / (double)(user + sys));
		u = ran - k;
	} else {
		u = ran;
	}
	__atomic_fetch_add(&zt_state.sampled_cpu_ns, ran, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zt_state.sampled_user_ns, u, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zt_state.sampled_sys_ns, k, __ATOMIC_RELAXED);
}

static int perf_start(struct zt_thread *t)
{
	struct perf_event_attr attr;
	struct f_owner_ex owner = { F_OWNER_TID, t->tid };
	int fd, high;

	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	zt_state.period_ns = 1000000000ull / zt_state.hz;
	attr.sample_period = first_period(zt_state.period_ns);
	if (attr.sample_period < first_floor(zt_state.period_ns))
		attr.sample_period = first_floor(zt_state.period_ns);
	t->period_pending = attr.sample_period != zt_state.period_ns;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	attr.wakeup_events = 1;
	fd = (int)zt_sys_call(SYS_perf_event_open, (long)&attr, t->tid, -1, -1,
			      PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* Keep out of the way of a program's own low descriptors. */
	high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
	if (high >= 0) {
		zt_sys_close(fd);
		fd = high;
	}
	if (fcntl(fd, F_SETFL, O_ASYNC) < 0 ||
	    fcntl(fd, F_SETSIG, zt_state.signo) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &t->perf_id) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0) {
		zt_sys_close(fd);
		return -1;
	}
	/*
	 * The handler must know the counter as zt's before it can overflow:
	 * the first period may be as short as 10 us, and a signal it does not
	 * recognise is the program's, whose default kills (exit 155).
	 */
	t->timer_kind = zt_state.timer;
	__atomic_store_n(&t->perf_fd, fd, __ATOMIC_SEQ_CST);
	__atomic_store_n(&zt_state.timer, ZT_TIMER_PERF, __ATOMIC_SEQ_CST);
	return 0;
}

/* Let t's counter count. -1 (and no counter) when the kernel refuses. */
static int perf_arm(struct zt_thread *t)
{
	ran_begin(t);
	if (ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0) == 0)
		return 0;
	/* Never counted: no signal of its can come. */
	zt_state.timer = t->timer_kind;
	__atomic_fetch_sub(&zt_state.perf_fds, 1, __ATOMIC_RELAXED);
	zt_sys_close(t->perf_fd);
	t->perf_fd = -1;
	return -1;
}

/*
 * How many perf counters zt may hold: a quarter of the soft descriptor
 * limit (256 of the usual 1024), so that a program with many threads still
 * has three quarters for its own files; threads beyond it get the POSIX
 * timer, which takes no descriptor.
 */
static int budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return (int)(rl.rlim_cur / 4 < (1 << 20) ? rl.rlim_cur / 4 : 1 << 20);
}

static int posix_start(struct zt_thread *t)
{
	struct sigevent sev;
	long ns = 1000000000L / zt_state.hz;

	/* Called on the thread itself, so its own CPU clock is the one. */
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = zt_state.signo;
	sev._sigev_un._tid = t->tid;
	/* Its signals carry the record: how qemu-user's (whose si_timerid is
	 * the host's id, not the guest's) are known as zt's too. */
	sev.sigev_value.sival_ptr = t;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) < 0)
		return -1;
	zt_state.period_ns = (uint64_t)ns;
	/* Known to the handler before it can fire (it_value may be 1 ns). */
	t->timer_gone = 0;
	__atomic_store_n(&t->has_timer, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Set t's POSIX timer going. -1 (and no timer) when it cannot be. */
static int posix_arm(struct zt_thread *t)
{
	struct itimerspec its;
	long ns = (long)zt_state.period_ns;

	its.it_interval.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = ns % 1000000000L;
	its.it_value.tv_sec = 0;
	its.it_value.tv_nsec = (long)first_period((uint64_t)ns);
	if (its.it_value.tv_nsec >= 1000000000L) {
		its.it_value.tv_sec = its.it_value.tv_nsec / 1000000000L;
		its.it_value.tv_nsec %= 1000000000L;
	}
	ran_begin(t);
	if (timer_settime(t->timer, 0, &its, NULL) < 0) {
		t->has_timer = 0;
		timer_delete(t->timer);
		return -1;
	}
	return 0;
}

/*
 * Give thread t a timer, not yet running (zt_timer_arm starts it); must run
 * on that thread. The process uses one kind of timer for all its threads:
 * the first thread decides, later ones follow.
 */
int zt_timer_prepare(struct zt_thread *t)
{
	int seat = 0;

	t->perf_fd = -1;
	t->fallback = 0;
	/*
	 * A seat in the budget is taken before the counter is opened, not
	 * counted after: threads starting together each see the others'
	 * (a load then an add let two take the last seat).
	 */
	if (zt_state.timer != ZT_TIMER_POSIX && zt_state.want_timer != 2) {
		seat = __atomic_add_fetch(&zt_state.perf_fds, 1, __ATOMIC_RELAXED) <= budget();
		if (seat && perf_start(t) == 0) {
			zt_state.timer = ZT_TIMER_PERF;
			return 0;
		}
		__atomic_fetch_sub(&zt_state.perf_fds, 1, __ATOMIC_RELAXED);
	}
	if (zt_state.want_timer == 1)
		return -1;
	if (zt_state.timer == ZT_TIMER_PERF) {
		/*
		 * The process runs on perf counters, but this thread cannot
		 * have one (the budget is spent, or the descriptors are): the
		 * POSIX timer, on the thread itself only, its samples weighted
		 * by the periods each stands for. Counted.
		 */
		if (t->adopted || posix_start(t) < 0)
			return -1;
		t->fallback = 1;
		__atomic_fetch_add(&zt_state.timer_fallback, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (posix_start(t) == 0) {
		zt_state.timer = ZT_TIMER_POSIX;
		return 0;
	}
	return -1;
}

/*
 * Start the timer zt_timer_prepare gave t. On failure t has no timer
 * (it_value and the counter's enable are refused only for want of memory).
 */
int zt_timer_arm(struct zt_thread *t)
{
	if (t->perf_fd >= 0)
		return perf_arm(t);
	if (t->has_timer)
		return posix_arm(t);
	return -1;
}

int zt_timer_start(struct zt_thread *t)
{
	if (zt_timer_prepare(t) < 0)
		return -1;
	return zt_timer_arm(t);
}

/*
 * Send t's counter overflows as signal sig from now on (zt's signal moved).
 * A POSIX timer keeps its signal: zt's handler stays on the old one too.
 */
void zt_timer_resignal(struct zt_thread *t, int sig)
{
	if (t->perf_fd >= 0 && zt_files_perf_ok(t))
		fcntl(t->perf_fd, F_SETSIG, sig);
}

int zt_timer_signal_is(const struct zt_thread *t, const siginfo_t *si)
{
	return si->si_code == SI_TIMER && t && (t->has_timer || t->timer_gone) &&
	       (si->si_timerid == (int)(intptr_t)t->timer || si->si_value.sival_ptr == (void *)t);
}

/*
 * Under a runtime that defers asynchronous signals to its next intercepted
 * call and keeps one of each pending (TSan wraps the handler zt installs),
 * the counter overflowed more often than zt's handler ran: the periods the
 * counter counted beyond the samples taken are lost, and counted so. (Not
 * with sampling windows: the counter also counts paused time.)
 */
static void deferred(const struct zt_thread *t, uint64_t ran)
{
	uint64_t periods = zt_state.period_ns ? ran / zt_state.period_ns : 0;

	if (zt_state.deferring && !zt_state.control && periods > t->nsamples)
		__atomic_fetch_add(&zt_state.lost[ZT_LOST_DEFERRED], periods - t->nsamples,
				   __ATOMIC_RELAXED);
}

void zt_timer_stop(struct zt_thread *t)
{
	int saved = errno;

	if (t->perf_fd >= 0) {
		/*
		 * A program that closes descriptors it did not open (daemons do)
		 * may have closed ours and reused the number: touch it only if it
		 * is still our counter.
		 */
		__atomic_fetch_sub(&zt_state.perf_fds, 1, __ATOMIC_RELAXED);
		if (zt_files_perf_ok(t)) {
			uint64_t ran;

			ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
			/*
			 * The task clock's count, for the periods it passed. Not
			 * the thread's CPU time: it leaves out each switch to and
			 * from the thread (redis's busy thread, switched 70,000
			 * times in 6.3 CPU-s, ran 0.4 s more than its count).
			 */
			if (read(t->perf_fd, &ran, sizeof ran) == (ssize_t)sizeof ran)
				deferred(t, ran);
			else
				ran = 0;
			zt_sys_close(t->perf_fd);
			ran_end(t, ran);
		} else if (zt_state_owner()) {
			/* Its thread was not sampled after the program closed it. */
			__atomic_fetch_add(&zt_state.timers_lost, 1, __ATOMIC_RELAXED);
		}
		t->perf_fd = -1;
	}
	if (t->has_timer) {
		ran_end(t, 0);
		timer_delete(t->timer);
		/* A signal it queued before may still come (kernels before 6.13
		 * deliver it after timer_delete): still zt's. */
		t->timer_gone = 1;
		t->has_timer = 0;
	}
	errno = saved;
}
