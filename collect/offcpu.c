/*
 * offcpu.c — the wall-clock sampler (zt-collect --clock=wall): where the
 * threads that are not running wait, without root and without a signal.
 *
 * A thread of zt's own ticks at off-cpu-hz (97 by default, each interval
 * drawn from [0.5, 1.5) periods so that it never keeps step with periodic
 * work). At each tick it visits the threads zt samples (zt_state.threads)
 * and reads /proc/self/task/TID/schedstat (CPU time, run delay, times put
 * on a CPU), kept open and re-read with pread; a thread blocked at the last
 * visit is first asked its thread CPU clock, cheaper, and its schedstat is
 * read only if that moved. A thread that has not run since is where it
 * was: more ticks at its last stack, without a walk. A quiet thread
 * (blocked and not run for a tenth of a second) is visited in turn, at
 * most QUIET_PER_TICK of them a tick, its time since its last visit
 * carried whole (tick): the work of a tick does not grow with the threads
 * that only wait. One that has run is read further:
 * /proc/self/task/TID/syscall, which the kernel fills while the thread is
 * off-CPU, says "nr a0..a5 sp pc" for a thread blocked in a system call,
 * "-1 sp pc" for one blocked outside one (a page fault), "running" for one
 * on a CPU or runnable (left to its CPU samples). For a blocked one the
 * sampler copies up to ZT_WINDOW bytes of its stack from sp with
 * process_vm_readv on its own pid (EFAULT, not a fault, when the stack went
 * away), unwinds the copy from (pc, sp) with the CPU samples' tables
 * (unwind.c; rbp is not given, so frame-pointer code gets it from a frame
 * record found in the copy), and reads both files again: a thread that woke
 * meanwhile is dropped as torn (counted).
 *
 * A thread's ticks at one stack are written as one line when it runs again
 * (visit() says how they are weighed: by the thread's schedstat, so that
 * its off-CPU time adds up), with its wait: the system call and, where
 * cheap, its object ("read fd 3 pipe", "poll 2 fds"). formats/raw.md,
 * version 5.
 *
 * The sampler is invisible to the program as far as it can be: it is made
 * with the real pthread_create (so it has no zt record, no timer and no
 * name in the dump), all signals blocked (no signal of the program's is
 * ever delivered to it), no lock the program could hold is taken on its
 * path (no malloc: its memory is mapped once at start), and it ends the
 * process as glibc would (exit(0)) when it is the last thread left. It is
 * still in /proc/self/task, named "zt-offcpu".
 */
#include "offcpu.h"
#include "arch.h"
#include "dump.h"
#include "spill.h"
#include "files.h"
#include "fmt.h"
#include "snapshot.h"
#include "store.h"
#include "syscalls.h"
#include "tables.h"
#include "thread.h"
#include "hex.h"
#include "rawfmt.h"
#include "unwind.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum {
	WAIT_MAX = 64,		/* bytes of a wait's text, before escaping (formats/raw.md) */
	HIGH_FD = 512,		/* where zt's descriptors go (files.c) */
	TEXT_MAX = 256,		/* /proc/self/task/TID/syscall's line */
	TRIES = 3,		/* walks of one thread at one tick, when it woke during them */
	FOREIGN_MAX = 64,	/* threads without a zt record visited at once */
	KNOWN_BITS = 14,	/* the hash set of zt's threads' ids: 2^14 slots */
	SCAN_EVERY = 16,	/* ticks between listings of /proc/self/task, when no clone is seen */
	QUIET_PER_TICK = 16,	/* quiet threads visited at one tick, at most */
};

/* One thread zt samples, as the sampler last saw it; indexed as zt_state.threads. */
struct rec {
	pid_t tid;		/* 0: none */
	int sfd, qfd, tfd;	/* its syscall, schedstat and stat files, kept open; -1: opened each tick */
	uint64_t exec_ns, delay_ns, runs;	/* schedstat at the last tick */
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last tick that visited it */
	uint64_t tick;		/* that tick's number (ticks) */
	uint64_t stop_seen;	/* stop_total when it was last visited */
	uint32_t quiet;		/* visits in a row that found it blocked and not run */
	int64_t balance;	/* off-CPU ns not yet in a sample (negative: paid back) */
	int have;		/* it was blocked at the last tick: the stack below */
	int good;		/* the stack below is a whole walk's (not a torn one's) */
	uint32_t pend, walked;	/* ticks at that stack not yet written; 1 if the first was a walk */
	uint64_t pend_ns;	/* the last of those ticks */
	int resync;		/* sampling was paused: its account starts again (2: if it ran) */
	int partial;		/* the stack's end mark (zt_store_end_mark), 0 when whole */
	uint32_t n;
	uint64_t carry;		/* run delay not yet written: no CPU stack to put it at (cpu_wait) */
	uint64_t stime;		/* its system time (stat's stime, clock ticks) at the last reading */
	uint64_t kcarry;	/* system time (ns) not yet written: no CPU stack to put it at */
	uint64_t scarry;	/* stopped time (ns) not yet written, likewise */
	int blind;		/* its syscall file cannot be opened (not dumpable): no off-CPU stacks */
	char wait[WAIT_MAX * 4 + 1];	/* the sample's wait, escaped */
	uint64_t *addr;		/* zt_state.max_depth frames, mapped with S (zt_offcpu_start) */
};

struct sampler {
	char *buf;		/* lines not yet written to the dump, zt_state.buf_size bytes */
	size_t len;
	unsigned char window[ZT_WINDOW];	/* the stack being unwound, copied */
	uint64_t *cpu;		/* a thread's last CPU stack, copied (cpu_wait): max_depth frames */
	struct rec walk;	/* a walk's stack and wait, until the thread is seen still there */
	struct rec rec[ZT_MAX_THREADS];
	/* Threads in /proc/self/task that zt has no record of (foreign_tick). */
	struct rec foreign[FOREIGN_MAX];
	uint32_t seen[FOREIGN_MAX];	/* the scan that last listed foreign[i] */
	pid_t known[1 << KNOWN_BITS];	/* zt's threads' ids, open addressing; 0: empty */
	unsigned char slot[ZT_MAX_THREADS];	/* how tick() takes each slot: SLOT_* */
	unsigned char moved[ZT_MAX_THREADS];	/* its thread began or ended since */
	char dents[16384];
};

/* The wait of a thread woken but not yet on a CPU, escaped. */
#define WAITING "waiting\\040for\\040a\\040CPU"
/* Not a wait: a thread's system time, on a CPU in the kernel, escaped. */
#define KERNEL "in\\040the\\040kernel"
/* The wait of a thread whose process was stopped (SIGSTOP, SIGTSTP, a debugger), escaped. */
#define STOPPED "stopped"

enum { STOP_MIN_NS = 20000000 };	/* a tick this much later than its run delay says: stopped */
static uint64_t stop_total;	/* how long the process was found stopped, in all */
static uint64_t ticks, last_now;	/* ticks so far; the last one's CLOCK_MONOTONIC */
static uint32_t cursor;		/* the next quiet thread's index (tick) */

static struct sampler *S;	/* mapped once; the sampler thread's alone */
static volatile int gen;	/* a sampler of an older generation ends at its next tick */
static volatile int busy;	/* the sampler is in a tick */
static volatile int hold;	/* zt_offcpu_flush is reading the records: no tick begins */
static volatile pid_t sampler_tid;
static volatile int kept_fds;	/* descriptors kept open, at most budget */
static int budget;
static uint64_t nsamples, nrepeated, ntorn, nforeign, nblind, cpu_ns, stop_ns;
static int task_dir = -1;	/* /proc/self/task, kept open by the sampler */
static unsigned ntracked;	/* records of zt's threads (S->rec) with a thread */
static int own_fd = -1;		/* the sampler's own schedstat, kept open by it */
static uint32_t scan;

/* "/proc/self/task/TID/" NAME, opened, and moved out of the program's way. */
static int open_task_file(pid_t tid, const char *name, int keep)
{
	char path[64] = "/proc/self/task/", *p = path + strlen(path);
	int fd, high;

	p = zt_fmt_u64(p, (uint64_t)tid, 10);
	*p++ = '/';
	strcpy(p, name);
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !keep)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (high >= 0) {
		zt_sys_close(fd);
		fd = high;
	}
	zt_files_mark(fd, 1);
	return fd;
}

static void close_fd(int *fd)
{
	if (*fd < 0)
		return;
	zt_files_mark(*fd, 0);
	zt_sys_close(*fd);
	*fd = -1;
	__atomic_fetch_sub(&kept_fds, 1, __ATOMIC_RELAXED);
}

static void emit_pending(struct rec *c);

/* A thread zt has no record of: no known stack bounds and no CPU samples. */
static const struct zt_thread no_record;

/* Whether c is one of S->rec (a thread of zt's), not a foreign thread's. */
static int zt_rec(const struct rec *c)
{
	return c >= S->rec && c < S->rec + ZT_MAX_THREADS;
}

/* Forget a thread: what it gathered written, its descriptors closed. */
static void forget(struct rec *c)
{
	if (c->tid && c->have && S->len + zt_state.line_max + ZT_LINE_WALL <= zt_state.buf_size)
		emit_pending(c);
	if (c->tid && zt_rec(c) && ntracked)
		ntracked--;
	close_fd(&c->sfd);
	close_fd(&c->qfd);
	close_fd(&c->tfd);
	c->tid = 0;
	c->have = 0;
}

/*
 * One of c's files into buf (NUL-terminated): the kept descriptor re-read
 * from offset 0, or (beyond the budget) opened, read and closed. Its
 * length, or -1 when the thread is gone.
 */
static ssize_t read_task_file(struct rec *c, int fd, const char *name, char *buf, size_t len)
{
	ssize_t n;

	if (fd >= 0) {
		n = pread(fd, buf, len - 1, 0);
	} else {
		if ((fd = open_task_file(c->tid, name, 0)) < 0)
			return -1;
		n = read(fd, buf, len - 1);
		zt_sys_close(fd);
	}
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static const char *dec(const char *p, uint64_t *v)
{
	const char *s = p;

	*v = 0;
	while (*p >= '0' && *p <= '9')
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	return p > s ? p : NULL;
}

/* schedstat: "exec_ns delay_ns runs\n". 0, or -1 when unreadable. */
static int read_sched(struct rec *c, uint64_t *exec, uint64_t *delay, uint64_t *runs)
{
	char buf[96];
	const char *p;

	if (read_task_file(c, c->qfd, "schedstat", buf, sizeof buf) < 0)
		return -1;
	if (!(p = dec(buf, exec)) || *p++ != ' ' || !(p = dec(p, delay)) || *p++ != ' ' ||
	    !dec(p, runs))
		return -1;
	return 0;
}

/*
 * stat's stime (field 15): the thread's system time in clock ticks, as the
 * kernel splits its CPU time between user and system (the split getrusage
 * and times(2) give). 0, or -1 when unreadable.
 */
static int read_stime(struct rec *c, uint64_t *stime)
{
	char buf[1024];
	const char *p;

	if (read_task_file(c, c->tfd, "stat", buf, sizeof buf) < 0)
		return -1;
	/* Counted after the command's closing parenthesis (field 2). */
	p = strrchr(buf, ')');
	for (int f = 2; p && f < 15; f++)
		p = strchr(p + 1, ' ');
	return p && dec(p + 1, stime) ? 0 : -1;
}

/*
 * Thread tid's CPU time (the kernel's sum_exec_runtime, schedstat's first
 * field while the thread is off a CPU) from its thread CPU clock: one
 * system call, no descriptor, and the kernel answers only for a thread of
 * this process. 0, or -1 when it has gone.
 */
static int thread_exec_ns(pid_t tid, uint64_t *ns)
{
	/* The kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED). */
	clockid_t clock = (clockid_t)((~(unsigned)tid << 3) | 4 | 2);
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

/* What a syscall line says: running (1), blocked (0), or unreadable (-1). */
static int parse_syscall(const char *s, long *nr, uint64_t *arg, uint64_t *sp, uint64_t *pc)
{
	uint64_t v[8];
	int n = 0, neg = 0;
	uint64_t u;

	if (strncmp(s, "running", 7) == 0)
		return 1;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!(s = dec(s, &u)))
		return -1;
	*nr = neg ? -(long)u : (long)u;
	while (*s == ' ' && n < 8) {
		const char *q = s + 1;

		if (q[0] != '0' || q[1] != 'x' ||
		    !(q = (const char *)zt_hex(q + 2, q + strlen(q), &v[n])))
			return -1;
		s = q;
		n++;
	}
	if (*s != '\n' && *s != '\0')
		return -1;
	if (*nr < 0 ? n != 2 : n != 8)
		return -1;
	for (int i = 0; i < 6 && *nr >= 0; i++)
		arg[i] = v[i];
	*sp = v[n - 2];
	*pc = v[n - 1];
	return 0;
}

/* The system calls a thread commonly blocks in, by name; how the wait names its object. */
enum obj { OBJ_NONE, OBJ_FD, OBJ_NFDS };

static const struct call {
	long nr;
	const char *name;
	enum obj obj;
} calls[] = {
	{ SYS_futex, "futex", OBJ_NONE },
	{ SYS_read, "read", OBJ_FD },
	{ SYS_write, "write", OBJ_FD },
	{ SYS_readv, "readv", OBJ_FD },
	{ SYS_writev, "writev", OBJ_FD },
	{ SYS_pread64, "pread64", OBJ_FD },
	{ SYS_pwrite64, "pwrite64", OBJ_FD },
	{ SYS_ppoll, "ppoll", OBJ_NFDS },
	{ SYS_epoll_pwait, "epoll_pwait", OBJ_NONE },
	{ SYS_pselect6, "pselect6", OBJ_NONE },
	{ SYS_clock_nanosleep, "clock_nanosleep", OBJ_NONE },
	{ SYS_nanosleep, "nanosleep", OBJ_NONE },
	{ SYS_accept, "accept", OBJ_FD },
	{ SYS_accept4, "accept4", OBJ_FD },
	{ SYS_connect, "connect", OBJ_FD },
	{ SYS_recvfrom, "recvfrom", OBJ_FD },
	{ SYS_recvmsg, "recvmsg", OBJ_FD },
	{ SYS_recvmmsg, "recvmmsg", OBJ_FD },
	{ SYS_sendto, "sendto", OBJ_FD },
	{ SYS_sendmsg, "sendmsg", OBJ_FD },
	{ SYS_sendmmsg, "sendmmsg", OBJ_FD },
	{ SYS_wait4, "wait4", OBJ_NONE },
	{ SYS_waitid, "waitid", OBJ_NONE },
	{ SYS_fsync, "fsync", OBJ_FD },
	{ SYS_fdatasync, "fdatasync", OBJ_FD },
	{ SYS_flock, "flock", OBJ_FD },
	{ SYS_fcntl, "fcntl", OBJ_FD },
	{ SYS_openat, "openat", OBJ_NONE },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait", OBJ_NONE },
	{ SYS_rt_sigsuspend, "rt_sigsuspend", OBJ_NONE },
	{ SYS_semtimedop, "semtimedop", OBJ_NONE },
	{ SYS_msgrcv, "msgrcv", OBJ_NONE },
	{ SYS_mq_timedreceive, "mq_timedreceive", OBJ_NONE },
	{ SYS_io_getevents, "io_getevents", OBJ_NONE },
	{ SYS_splice, "splice", OBJ_NONE },
	{ SYS_sendfile, "sendfile", OBJ_NONE },
#ifdef SYS_vfork	/* none on aarch64: glibc's vfork is a clone there */
	{ SYS_vfork, "vfork", OBJ_NONE },
#endif
#ifdef SYS_poll
	{ SYS_poll, "poll", OBJ_NFDS },
	{ SYS_select, "select", OBJ_NONE },
	{ SYS_epoll_wait, "epoll_wait", OBJ_NONE },
	{ SYS_pause, "pause", OBJ_NONE },
#endif
#ifdef SYS_epoll_pwait2
	{ SYS_epoll_pwait2, "epoll_pwait2", OBJ_NONE },
#endif
#ifdef SYS_futex_waitv
	{ SYS_futex_waitv, "futex_waitv", OBJ_NONE },
#endif
};

static char *put(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/*
 * The kind of the program's descriptor fd, from /proc/self/fd/FD's link:
 * pipe, socket, file (a path), or NULL (an anonymous inode, a device).
 */
static const char *fd_kind(uint64_t fd)
{
	char path[48] = "/proc/self/fd/", link[64];
	ssize_t n;

	if (fd > INT32_MAX)
		return NULL;
	*zt_fmt_u64(path + strlen(path), fd, 10) = '\0';
	n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	if (strncmp(link, "pipe:", 5) == 0)
		return "pipe";
	if (strncmp(link, "socket:", 7) == 0)
		return "socket";
	if (link[0] == '/')
		return strncmp(link, "/dev/", 5) == 0 ? "device" : "file";
	return NULL;
}

/* The wait's text, escaped (space as \040), into out; its end. */
static char *wait_text(char *out, long nr, const uint64_t *arg)
{
	char text[WAIT_MAX + 1], *p = text, *o = out;
	const struct call *c = NULL;

	for (size_t i = 0; i < sizeof calls / sizeof calls[0] && !c; i++)
		if (calls[i].nr == nr)
			c = &calls[i];
	if (nr < 0) {
		p = put(p, "page fault");
	} else if (!c) {
		/* Any other call by the kernel's name for it (syscalls.h). */
		const char *name = NULL;

		for (size_t i = 0; i < sizeof zt_syscall_names / sizeof *zt_syscall_names && !name; i++)
			if (zt_syscall_names[i].nr == nr)
				name = zt_syscall_names[i].name;
		if (name) {
			p = put(p, name);
		} else {
			p = put(p, "syscall ");
			p = zt_fmt_u64(p, (uint64_t)nr, 10);
		}
	} else {
		p = put(p, c->name);
		if (c->obj == OBJ_FD && arg[0] <= INT32_MAX) {
			const char *kind = fd_kind(arg[0]);

			p = put(p, " fd ");
			p = zt_fmt_u64(p, arg[0], 10);
			if (kind) {
				*p++ = ' ';
				p = put(p, kind);
			}
		} else if (c->obj == OBJ_NFDS && arg[1] <= 1000000) {
			*p++ = ' ';
			p = zt_fmt_u64(p, arg[1], 10);
			p = put(p, arg[1] == 1 ? " fd" : " fds");
		}
	}
	for (char *q = text; q < p; q++) {
		if (*q == ' ') {
			o = put(o, "\\040");
		} else {
			*o++ = *q;
		}
	}
	*o = '\0';
	return o;
}

/* Write the sampler's buffer to the dump. */
static void flush(void)
{
	int fd = S->len ? zt_files_dump_fd() : -1;

	/* Its slot says a write is under way: after a death, taken by no one. */
	zt_spill_set_writing(zt_spill_sampler_head(), 1);
	if (fd >= 0)
		zt_files_write_all(fd, S->buf, S->len);
	S->len = 0;
	zt_spill_set_writing(zt_spill_sampler_head(), 0);
}

/*
 * One off-CPU line of thread tid: count samples at when, each weighing
 * weight ns, waiting in wait (escaped), at the stack addr[0..n).
 */
static void emit_line(pid_t tid, uint64_t when, uint64_t count, uint64_t weight,
		      const char *wait, const uint64_t *addr, uint32_t n, int partial)
{
	/* Its first address is the thread's pc as the kernel gave it: exact, and said so. */
	struct zt_store_line l = { .tid = tid, .count = count, .when = when, .weighed = 1,
				   .weight = weight, .wait = wait, .addr = addr, .n = n,
				   .mark_first = 1, .end = partial };

	if (S->len + zt_state.line_max + ZT_LINE_WALL > zt_state.buf_size)
		flush();
	S->len = (size_t)(zt_store_line(S->buf + S->len, &l) - S->buf);
	zt_spill_set_len(zt_spill_sampler_head(), S->len);
	__atomic_fetch_add(&nsamples, count, __ATOMIC_RELAXED);
}

/* One off-CPU line of c, at its stack and wait. */
static void emit(const struct rec *c, uint64_t when, uint64_t count, uint64_t weight)
{
	emit_line(c->tid, when, count, weight, c->wait, c->addr, c->n, c->partial);
}

/*
 * Thread t's last CPU stack (t->addr, which the handler fills between two
 * steps of t->cpu_seq), copied into S->cpu with its first address marked
 * exact (the interrupted pc, as an off-CPU line's first). Its depth, or 0
 * when it has none yet (less than one period of CPU time) or its handler
 * is filling it just now.
 */
static uint32_t last_cpu_stack(const struct zt_thread *t, int *partial)
{
	uint32_t seq, n;

	seq = __atomic_load_n(&t->cpu_seq, __ATOMIC_ACQUIRE);
	n = t->cpu_n;
	if ((seq & 1) || n == 0 || n > zt_state.max_depth)
		return 0;
	memcpy(S->cpu, (const void *)t->addr, n * sizeof *S->cpu);
	*partial = t->cpu_partial;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&t->cpu_seq, __ATOMIC_RELAXED) != seq)
		return 0;	/* a sample was taken meanwhile: next tick */
	S->cpu[0] |= ZT_UNWIND_EXACT;
	return n;
}

/*
 * Time *carry (ns) of thread t (c), when, written as one line at its last
 * CPU stack with wait (escaped); kept in *carry for its next tick when
 * there is no such stack now (what is still carried when the thread ends
 * is not written).
 */
static void at_cpu_stack(struct rec *c, const struct zt_thread *t, uint64_t when,
			 uint64_t *carry, const char *wait)
{
	uint32_t n;
	int partial = 0;

	if (!*carry || !(n = last_cpu_stack(t, &partial)))
		return;
	emit_line(c->tid, when, 1, *carry, wait, S->cpu, n, partial);
	__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
	*carry = 0;
}

/*
 * Run delay that thread t (c) gained while it was not blocked, by the last
 * tick or since: it was preempted, or woken and queued, while computing.
 * It is written as "waiting for a CPU" at the thread's last CPU stack: a
 * thread is preempted in its code in proportion to the CPU time it spends
 * there, so its last CPU sample is an unbiased draw of where it stood, and
 * the wait shows above the work it held up (the thread's root alone would
 * say which thread, not which work).
 */
static void cpu_wait(struct rec *c, const struct zt_thread *t, uint64_t when, uint64_t waited)
{
	c->carry += waited;
	at_cpu_stack(c, t, when, &c->carry, WAITING);
}

/*
 * System time that thread t (c) gained since its last reading: time on a
 * CPU in the kernel (system calls, page faults), which the CPU samples
 * (user-space counters) do not see and the off-CPU account does not hold
 * either (it is CPU time). Read from stat's stime when the thread has run,
 * and written as "in the kernel" at its last CPU stack: a thread that
 * spends its time in system calls takes its CPU samples where they return
 * (the wrapper that made them), so that is where the kernel's time shows.
 * Whole clock ticks of the kernel's account (10 ms each at USER_HZ 100):
 * the kernel splits a thread's CPU time by ticks, so the split is exact
 * over a run, not over one tick's gap.
 */
static void kernel_time(struct rec *c, const struct zt_thread *t, uint64_t when)
{
	static long hz;
	uint64_t stime;

	if (!hz && (hz = sysconf(_SC_CLK_TCK)) <= 0)
		hz = 100;
	if (read_stime(c, &stime) < 0)
		return;
	if (stime > c->stime)
		c->kcarry += (stime - c->stime) * (1000000000u / (uint64_t)hz);
	c->stime = stime;
	at_cpu_stack(c, t, when, &c->kcarry, KERNEL);
}

/*
 * The part of c's time since its last visit that the process spent stopped
 * (stop_total gained since: every thread stops with it, the sampler too),
 * written as "stopped" at the stack c was blocked in, or else at its last
 * CPU stack, and returned, to be taken out of its off-CPU account: a
 * stopped program's time shows as stopped, and its wall time adds up.
 */
static uint64_t stopped_part(struct rec *c, const struct zt_thread *t, uint64_t now)
{
	uint64_t part = stop_total - c->stop_seen;

	c->stop_seen = stop_total;
	if (now <= c->last_ns)
		part = 0;
	else if (part > now - c->last_ns)
		part = now - c->last_ns;
	if (part && c->have) {
		emit_line(c->tid, now, 1, part, STOPPED, c->addr, c->n, c->partial);
		__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
	} else {
		/* Also what an earlier visit carried (no CPU stack to hand then). */
		c->scarry += part;
		at_cpu_stack(c, t, now, &c->scarry, STOPPED);
	}
	return part;
}

/*
 * A quiet thread: blocked, and found not run for a tenth of a second of
 * ticks in a row (most threads of a thread-per-connection server, a pool's
 * idle workers).
 */
static uint32_t quiet_after(void)
{
	return zt_state.off_cpu_hz / 10 > 3 ? zt_state.off_cpu_hz / 10 : 3;
}

static int is_quiet(const struct rec *c)
{
	return c->have && c->resync != 1 && c->quiet >= quiet_after();
}

/*
 * Copy the stack of t from sp (up to ZT_WINDOW bytes, and not past its top
 * when zt knows it) into the window, one page per element so that the copy
 * stops at the first unmapped page. The bytes copied, 0 if none.
 */
static size_t copy_stack(const struct zt_thread *t, uintptr_t sp)
{
	struct iovec local = { S->window, ZT_WINDOW }, remote[ZT_WINDOW / 4096 + 1];
	uintptr_t a = sp & ~(uintptr_t)7, to = a + ZT_WINDOW;
	unsigned long n = 0;
	long got;

	if (t->stack_hi && sp >= t->stack_lo && sp < t->stack_hi && to > t->stack_hi)
		to = t->stack_hi;
	if (to <= a)
		return 0;
	while (a < to) {
		uintptr_t next = (a | 4095) + 1;

		remote[n].iov_base = (void *)a;
		remote[n].iov_len = (next < to ? next : to) - a;
		a += remote[n++].iov_len;
	}
	got = syscall(SYS_process_vm_readv, zt_state.pid, &local, 1UL, remote, n, 0UL);
	return got > 0 ? (size_t)got : 0;
}

/* Unwind the copy of the stack at sp from pc into c. */
static void walk(struct rec *c, uintptr_t pc, uintptr_t sp, size_t got, long nr)
{
	const struct zt_cfi_set *set;
	struct zt_regs r;
	enum zt_unwind_end end = ZT_UNWIND_PARTIAL;

#ifdef SYS_vfork
	if (nr == SYS_vfork)
		got = 0;
#else
	(void)nr;
#endif
	if (got == 0) {
		/* vfork keeps its return address in a register: not unwound. */
		c->addr[0] = pc | ZT_UNWIND_EXACT;
		c->n = 1;
		c->partial = ZT_RAW_PARTIAL_MARK;
		return;
	}
	memset(&r, 0, sizeof r);
	r.pc = pc;
	r.sp = sp;
	r.extra[0].lo = sp & ~(uintptr_t)7;
	r.extra[0].hi = r.extra[0].lo + got;
	r.extra[0].copy = S->window;
	set = zt_tables_enter();
	r.no_code = !zt_tables_code_readable();
	c->n = (uint32_t)zt_unwind_blocked(&r, set, zt_state.unwind, c->addr, zt_state.max_depth, &end);
	zt_tables_leave();
	c->partial = zt_store_end_mark(end);
	/* Code no snapshot of the maps shows: read them again later (snapshot.c). */
	zt_snap_pc_known(pc);
}

/*
 * The off-CPU time c has gathered at its stack since its last line, as one
 * line of c->pend samples, each weighing an equal part. Nothing is written
 * while the balance is not positive (a run delay paid back).
 */
static void emit_pending(struct rec *c)
{
	uint64_t per;

	if (c->pend && c->balance > 0 && (per = (uint64_t)c->balance / c->pend) > 0) {
		emit(c, c->pend_ns, c->pend, per);
		c->balance -= (int64_t)(per * c->pend);
		__atomic_fetch_add(&nrepeated, c->pend - c->walked, __ATOMIC_RELAXED);
	}
	c->pend = 0;
	c->walked = 0;
}

/*
 * The account of c as its sampling ends (its thread ended, or sampling
 * stops), at when: off-CPU time gathered since its last line while no
 * tick found it blocked (its blocks were shorter than the ticks' gaps, as
 * a reader of a disk's are) would have gone to the next stack seen; there
 * is none, so it goes to the last one, if a walk gave one.
 */
static void settle(struct rec *c, uint64_t when)
{
	if (c->have || !c->good || c->balance <= 0)
		return;
	c->pend = 1;
	c->walked = 0;
	c->pend_ns = when;
	emit_pending(c);
}

/*
 * One thread at one tick. Its schedstat is read first (the cheaper file):
 * the thread's off-CPU time since the last tick is the wall-clock time
 * minus the CPU time and the run delay it gained, and that, not the tick's
 * length, is what its samples weigh, so that the off-CPU time of a thread
 * adds up to what the kernel accounts however the ticks fall (the sampler
 * gets a CPU when one is free, which is when threads block: tick-length
 * weights overstated blocked threads by up to 12 points on a loaded
 * machine).
 *
 * A thread that has not run since the last tick (CPU time and times on a
 * CPU unchanged) is still where it was, or woken and waiting for a CPU (a
 * run delay is added only when the CPU comes): one more sample of its
 * stack, without a walk, written once the thread has run (its delay then
 * known, and written apart as "waiting for a CPU" at the same stack) or
 * after a second of them. A thread that ran is read again: "running" (on a
 * CPU: its CPU samples have it), or blocked, and then its stack is copied
 * and unwound. The run delay of one that was not blocked at the last tick
 * (preempted while computing) goes to its last CPU stack (cpu_wait).
 */
static void visit(struct rec *c, const struct zt_thread *t, uint64_t now)
{
	char text[TEXT_MAX], again[TEXT_MAX];
	uint64_t exec, delay, runs, exec2, arg[6] = { 0 }, sp, pc, waited;
	long nr = 0;
	int st, ran, counted = 0;	/* this tick is in a line already (the old stack's) */
	size_t got;
	uint32_t missed = (uint32_t)(ticks - c->tick);	/* ticks since its last visit, this one's too */

	c->tick = ticks;

	/*
	 * Blocked at the last tick and no CPU time since: it has not run, so
	 * its schedstat is as it was (a run delay comes with the CPU). Its
	 * thread clock says so for a fifth of what the schedstat file costs
	 * (most of a mostly idle program's ticks).
	 */
	if (c->have && c->resync != 1 && thread_exec_ns(c->tid, &exec) == 0 && exec == c->exec_ns) {
		c->resync = 0;	/* blocked since before the pause: its account goes on from it */
		c->balance += (int64_t)(now - c->last_ns) - (int64_t)stopped_part(c, t, now);
		c->last_ns = now;
		c->pend += missed;
		c->pend_ns = now;
		if (c->quiet < quiet_after())
			c->quiet++;
		if (c->pend >= zt_state.off_cpu_hz)
			emit_pending(c);
		return;
	}
	if (read_sched(c, &exec, &delay, &runs) < 0) {
		forget(c);	/* gone: written as of the last tick that saw it */
		return;
	}
	if (c->resync) {
		c->resync = 0;
		c->last_ns = now;
		c->exec_ns = exec;
		c->delay_ns = delay;
		c->runs = ~(uint64_t)0;	/* its syscall line read now */
		if (read_stime(c, &c->stime) < 0)
			c->stime = 0;	/* its system time during the pause is not written */
	}
	ran = exec != c->exec_ns || runs != c->runs;
	if (ran)
		c->quiet = 0;
	else if (c->have && c->quiet < quiet_after())
		c->quiet++;
	waited = delay - c->delay_ns;
	c->balance += (int64_t)(now - c->last_ns) - (int64_t)(exec - c->exec_ns) -
		      (int64_t)waited - (int64_t)stopped_part(c, t, now);
	c->last_ns = now;
	c->exec_ns = exec;
	c->delay_ns = delay;
	c->runs = runs;
	if (ran && t != &no_record)
		kernel_time(c, t, now);
	if (c->have) {
		c->pend += missed;
		c->pend_ns = now;
		if (!ran) {
			if (c->pend >= zt_state.off_cpu_hz)
				emit_pending(c);
			return;
		}
		/* Woken since the last tick: where it waited, then for how long a CPU. */
		emit_pending(c);
		counted = 1;
		if (waited) {
			emit_line(c->tid, now, 1, waited, WAITING, c->addr, c->n, c->partial);
			__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
		}
		c->have = 0;
	} else {
		/* Not blocked at the last tick: its run delay since is a preemption's. */
		cpu_wait(c, t, now, waited);
	}
	/*
	 * A thread that blocks briefly and often (a reader of a disk) wakes
	 * during most walks: it is tried again, up to TRIES times a tick, while
	 * it is blocked (each try from the schedstat the last one ended with).
	 */
	if (c->blind)
		return;
	for (int try = 0;; try++) {
		if (read_task_file(c, c->sfd, "syscall", text, sizeof text) < 0) {
			/*
			 * A live thread whose file cannot be opened: the program
			 * made itself not dumpable (PR_SET_DUMPABLE 0, or a
			 * change of credentials) after zt opened the files it
			 * keeps, and the kernel now refuses a new open of the
			 * file that needs ptrace access (schedstat and stat stay
			 * readable). Its CPU, system and run delay are still
			 * written; its off-CPU time, whose stack cannot be had,
			 * is not, and the thread is counted (off-cpu-blind).
			 */
			if (c->sfd < 0 && (errno == EACCES || errno == EPERM)) {
				c->blind = 1;
				__atomic_fetch_add(&nblind, 1, __ATOMIC_RELAXED);
				return;
			}
			forget(c);
			return;
		}
		st = parse_syscall(text, &nr, arg, &sp, &pc);
		if (st != 0 || (nr < 0 && sp == 0 && pc == 0)) {
			if (try)	/* woke during the last try: this tick's sample is dropped */
				__atomic_fetch_add(&ntorn, 1, __ATOMIC_RELAXED);
			return;	/* on a CPU (its CPU samples have it), exited, or a line zt does not read */
		}
		got = copy_stack(t, (uintptr_t)sp);
		walk(&S->walk, (uintptr_t)pc, (uintptr_t)sp, got, nr);
		wait_text(S->walk.wait, nr, arg);
		/* Still there? A thread that woke during the walk is not where the copy says. */
		if (read_task_file(c, c->sfd, "syscall", again, sizeof again) < 0 ||
		    thread_exec_ns(c->tid, &exec2) < 0)
			return;	/* gone: the next tick forgets it */
		/* Ran meanwhile (its CPU time moved): the walk may be torn. */
		if (strcmp(text, again) == 0 && exec2 == exec)
			break;
		if (try + 1 == TRIES) {
			__atomic_fetch_add(&ntorn, 1, __ATOMIC_RELAXED);
			return;	/* its balance goes to the next stack seen; c's last stands */
		}
		exec = exec2;
	}
	c->n = S->walk.n;
	c->partial = S->walk.partial;
	memcpy(c->addr, S->walk.addr, c->n * sizeof *c->addr);
	memcpy(c->wait, S->walk.wait, sizeof c->wait);
	c->have = 1;
	c->good = 1;
	c->pend = counted ? 0 : 1;
	c->pend_ns = now;
	c->walked = c->pend;
}

/*
 * A quiet thread that the last tick did not visit (tick), brought to that
 * tick (last_now) as a visit would have, so that a dump holds every
 * thread's time up to the same tick: still blocked where it was (its thread
 * clock has not moved), its time since its last visit is one more stretch
 * at its stack. One that ran meanwhile is left to its next visit, or, when
 * sampling stops (whole), its schedstat is read and the time goes to its
 * old stack, its run delay apart, as a visit that found it woken does (its
 * new stack, if any, is not walked).
 */
static void catch_up(struct rec *c, int whole)
{
	uint64_t exec, delay, runs, waited;

	if (!c->tid || !is_quiet(c) || c->tick == ticks || last_now <= c->last_ns ||
	    thread_exec_ns(c->tid, &exec) < 0)
		return;
	delay = c->delay_ns;
	if (exec != c->exec_ns && (!whole || read_sched(c, &exec, &delay, &runs) < 0))
		return;
	waited = delay > c->delay_ns ? delay - c->delay_ns : 0;
	c->balance += (int64_t)(last_now - c->last_ns) - (int64_t)(exec - c->exec_ns) -
		      (int64_t)waited - (int64_t)stopped_part(c, &no_record, last_now);
	c->pend += (uint32_t)(ticks - c->tick);
	c->tick = ticks;
	c->pend_ns = last_now;
	c->last_ns = last_now;
	c->exec_ns = exec;
	c->delay_ns = delay;
	if (waited) {
		emit_pending(c);
		emit_line(c->tid, last_now, 1, waited, WAITING, c->addr, c->n, c->partial);
		__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
	}
}

/*
 * When thread tid started, CLOCK_MONOTONIC: its stat's starttime (field
 * 22, in clock ticks of the boot-time clock), to 1/USER_HZ.
 */
static int thread_start(pid_t tid, uint64_t *ns)
{
	char buf[1024];
	int fd = open_task_file(tid, "stat", 0);
	ssize_t n;
	const char *p;
	uint64_t ticks = 0, boot, mono;
	long hz = sysconf(_SC_CLK_TCK);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	zt_sys_close(fd);
	if (n <= 0 || hz <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int f = 2; p && f < 22; f++)
		p = strchr(p + 1, ' ');
	if (!p || !dec(p + 1, &ticks))
		return -1;
	boot = zt_sys_clock_ns(CLOCK_BOOTTIME);
	mono = zt_sys_clock_ns(CLOCK_MONOTONIC);
	*ns = ticks * (1000000000u / (uint64_t)hz) - (boot > mono ? boot - mono : 0);
	return 0;
}

/* Start keeping thread tid's files, within the descriptor budget. */
static void track(struct rec *c, pid_t tid, uint64_t since)
{
	uint64_t start;

	forget(c);
	c->tid = tid;
	if (zt_rec(c))
		ntracked++;
	c->last_ns = since;
	c->tick = ticks - 1;	/* as if visited at the last tick */
	c->quiet = 0;
	c->stop_seen = stop_total;
	c->balance = 0;
	c->carry = 0;
	c->good = 0;
	c->pend = c->walked = 0;
	c->kcarry = c->scarry = 0;
	c->blind = 0;
	c->sfd = c->qfd = c->tfd = -1;
	if (__atomic_add_fetch(&kept_fds, 3, __ATOMIC_RELAXED) > budget) {
		__atomic_fetch_sub(&kept_fds, 3, __ATOMIC_RELAXED);
	} else {
		c->sfd = open_task_file(tid, "syscall", 1);
		c->qfd = open_task_file(tid, "schedstat", 1);
		c->tfd = open_task_file(tid, "stat", 1);
		if (c->sfd < 0)
			__atomic_fetch_sub(&kept_fds, 1, __ATOMIC_RELAXED);
		if (c->qfd < 0)
			__atomic_fetch_sub(&kept_fds, 1, __ATOMIC_RELAXED);
		if (c->tfd < 0)
			__atomic_fetch_sub(&kept_fds, 1, __ATOMIC_RELAXED);
	}
	/*
	 * Where its account starts: at the thread's start, when that came
	 * after the dump's (all its CPU time and delay are since then),
	 * however late the sampler comes to it (a new thread's first tick
	 * may come long after its start on a loaded machine); otherwise as
	 * if it had been here since the last tick.
	 */
	c->exec_ns = c->delay_ns = 0;
	c->stime = 0;
	if (thread_start(tid, &start) < 0 || start < zt_state.start_ns || start > last_now) {
		if (read_sched(c, &c->exec_ns, &c->delay_ns, &c->runs) < 0)
			c->exec_ns = c->delay_ns = 0;
		if (read_stime(c, &c->stime) < 0)
			c->stime = 0;
	} else {
		c->last_ns = start;
	}
	c->runs = ~(uint64_t)0;	/* so that the first visit reads its syscall line */
}

/*
 * Whether a thread of the program is still alive, once its main thread
 * has ended with pthread_exit (which leaves it a zombie that
 * /proc/self/stat's num_threads still counts, beside the sampler).
 */
static int others_alive(void)
{
	char buf[512];
	const char *p;
	uint64_t v = 3;

	if (zt_sys_read_file("/proc/self/stat", buf, sizeof buf) < 0)
		return 1;
	/* Field 20, counted after the command's closing parenthesis (field 2). */
	p = strrchr(buf, ')');
	for (int f = 2; p && f < 20; f++)
		p = strchr(p + 1, ' ');
	if (p)
		dec(p + 1, &v);
	return v > 2;
}

/* The main thread ended with pthread_exit (a key's destructor runs then, not at exit). */
static volatile int main_exited;
static pthread_key_t main_key;
static int have_main_key;

static void on_main_exit(void *p)
{
	(void)p;
	main_exited = 1;
}

/*
 * Thread t ended (zt_offcpu_thread_end took its schedstat): the rest of its
 * account, to its end, goes to the stack it was blocked in, its last run
 * delay apart.
 */
static void close_account(struct rec *c, const struct zt_thread *t)
{
	uint64_t end = __atomic_load_n(&t->end_ns, __ATOMIC_ACQUIRE), waited;

	if (!end || end < c->last_ns)
		return;
	waited = t->end_delay_ns > c->delay_ns ? t->end_delay_ns - c->delay_ns : 0;
	if (!c->have) {
		cpu_wait(c, t, end, waited);	/* it ended running: its last preemptions */
		if (c->carry && c->good) {
			/*
			 * No CPU stack to put them at (it ran less than a period
			 * in all: a thread that waited all its life, woken to
			 * end): at the stack it was woken from.
			 */
			emit_line(c->tid, end, 1, c->carry, WAITING, c->addr, c->n, c->partial);
			__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
			c->carry = 0;
		}
		settle(c, end);
		return;
	}
	c->balance += (int64_t)(end - c->last_ns) - (int64_t)(t->end_exec_ns - c->exec_ns) -
		      (int64_t)waited;
	/* The ticks since its last visit (a quiet thread's may be many), one at least. */
	c->pend += (uint32_t)(ticks - c->tick);
	if (!c->pend)
		c->pend = 1;
	c->tick = ticks;
	c->pend_ns = end;
	emit_pending(c);
	if (waited) {
		emit_line(c->tid, end, 1, waited, WAITING, c->addr, c->n, c->partial);
		__atomic_fetch_add(&nrepeated, 1, __ATOMIC_RELAXED);
	}
	c->have = 0;
}

static void foreign_tick(uint64_t now, uint64_t prev, int n);

/* Every record: zt's threads' (rec), then the foreign ones. */
enum { ALL_RECS = ZT_MAX_THREADS + FOREIGN_MAX };

static struct rec *rec_at(int i)
{
	return i < ZT_MAX_THREADS ? &S->rec[i] : &S->foreign[i - ZT_MAX_THREADS];
}

/*
 * Each slot of zt_state.threads, as the last tick left it (S->slot): a
 * slot is looked at at every tick (SLOT_EACH), or is a quiet thread's,
 * visited in turn (SLOT_QUIET), or empty (SLOT_EMPTY: no live thread); the
 * last two are looked at anew when their thread began or ended (S->moved),
 * and at a full pass.
 */
enum { SLOT_EACH, SLOT_QUIET, SLOT_EMPTY };

static uint32_t pass_skip;	/* ticks since the last full pass */

void zt_offcpu_thread_moved(const struct zt_thread *t)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	if (!zt_state.wall || !S)
		return;
	for (int i = 0; i < n; i++)
		if (__atomic_load_n(&zt_state.threads[i], __ATOMIC_ACQUIRE) == t) {
			__atomic_store_n(&S->moved[i], 1, __ATOMIC_RELEASE);
			return;
		}
}

/* The ticks between full passes, and between listings of /proc/self/task, for n threads. */
static uint32_t rarely(int n)
{
	return n / 8 > SCAN_EVERY ? (uint32_t)n / 8 : SCAN_EVERY;
}

/*
 * Slot i at this tick: its thread's end (its account closed), a new thread
 * in it (tracked), or a visit, unless the thread is quiet and this is not
 * its turn (turn 0).
 */
static void at_slot(int i, uint64_t now, uint64_t prev, int turn)
{
	struct zt_thread *t = __atomic_load_n(&zt_state.threads[i], __ATOMIC_ACQUIRE);
	struct rec *c = &S->rec[i];
	pid_t tid;

	if (!t || !__atomic_load_n(&t->live, __ATOMIC_ACQUIRE) || t->closed ||
	    (tid = t->tid) <= 0) {
		if (c->tid && t && t->tid == c->tid)
			close_account(c, t);
		if (c->tid)
			forget(c);
		S->slot[i] = SLOT_EMPTY;
		return;
	}
	if (c->tid != tid) {
		track(c, tid, prev);
		/* Listed as foreign before it reached zt's code: zt's record has it from its start. */
		for (int f = 0; f < FOREIGN_MAX; f++)
			if (S->foreign[f].tid == tid) {
				S->foreign[f].have = 0;
				forget(&S->foreign[f]);
			}
	}
	if (c->tick != ticks && (turn || !is_quiet(c)))
		visit(c, t, now);
	S->slot[i] = c->tid && is_quiet(c) ? SLOT_QUIET : SLOT_EACH;
}

/*
 * One tick. Every thread is visited but the quiet ones: of those, at most
 * QUIET_PER_TICK, in turn from where the last tick stopped (cursor), so
 * that a tick's work is bounded by the threads that run, not by all the
 * threads there are; each quiet thread is visited every ceil(quiet /
 * QUIET_PER_TICK) ticks. A visit carries the thread's time since its last
 * one, whole (its schedstat's account: visit), and its samples count the
 * ticks it stood for, so that nothing is lost or weighed twice: a quiet
 * thread's off-CPU time is exact, only a change of stack between two of
 * its visits is seen late (the time between goes to the old stack). A
 * visit of a quiet thread costs a read of its thread CPU clock (3 to 9 us
 * in a VM) and, about once a second, a line: at 97 Hz, at most 16 x 97 of
 * them a second, whatever the number of threads.
 *
 * Nor is a quiet thread's record, or an empty slot's, read at every tick
 * (a read of each of thousands of records costs a cache and TLB miss
 * apiece): only when its thread began or ended (S->moved, which the thread
 * sets: zt_offcpu_thread_moved), and at a full pass every rarely(n) ticks
 * whatever happened.
 */
static void tick(uint64_t now, uint64_t prev)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS, i, k;
	int left = QUIET_PER_TICK, full = 0;

	ticks++;
	last_now = now;
	if (++pass_skip >= rarely(n)) {
		full = 1;
		pass_skip = 0;
	}
	for (i = 0; i < n; i++)
		if (full || S->slot[i] == SLOT_EACH ||
		    (S->moved[i] && __atomic_exchange_n(&S->moved[i], 0, __ATOMIC_ACQ_REL)))
			at_slot(i, now, prev, 0);
	/* The quiet ones, in turn. */
	for (k = 0, i = (int)(cursor < (uint32_t)n ? cursor : 0); k < n && left > 0; k++) {
		if (S->slot[i] == SLOT_QUIET && S->rec[i].tick != ticks) {
			at_slot(i, now, prev, 1);
			left--;
		}
		if (++i == n)
			i = 0;
	}
	cursor = (uint32_t)i;
	foreign_tick(now, prev, n);
}

static unsigned known_bits = KNOWN_BITS;
static unsigned nlive_foreign, scan_skip;	/* of this scan's set: twice the threads, at least */

static uint32_t known_slot(pid_t tid)
{
	return ((uint32_t)tid * 2654435761u) >> (32 - known_bits);
}

static void known_add(pid_t tid)
{
	uint32_t i = known_slot(tid), mask = (1u << known_bits) - 1;

	for (uint32_t k = 0; k <= mask; k++, i = (i + 1) & mask)
		if (S->known[i] == 0 || S->known[i] == tid) {
			S->known[i] = tid;
			return;
		}
}

static int known_has(pid_t tid)
{
	uint32_t i = known_slot(tid), mask = (1u << known_bits) - 1;

	for (uint32_t k = 0; k <= mask && S->known[i]; k++, i = (i + 1) & mask)
		if (S->known[i] == tid)
			return 1;
	return 0;
}

/*
 * The threads zt cannot sample by signal: made with a raw clone (the
 * clone(2) wrapper, or the system call itself), they never pass through
 * pthread_create, so they have no zt record, no timer and no CPU samples
 * (their CPU time is counted as not sampled). Each tick lists
 * /proc/self/task and visits every thread that is neither one of zt's
 * records nor zt's own (the sampler, the control channel's) as the others
 * are: its off-CPU stacks are recorded from its syscall file and a copy of
 * its stack (bounds unknown: the copy stops at the first unmapped page).
 * Its run delay has no CPU stack to go to and is not written. A thread
 * first listed here that turns out to be zt's (a pthread not yet at its
 * first instruction when the directory was read) is dropped from this
 * table without writing what it gathered (it ran nothing of its own yet).
 * At most FOREIGN_MAX at once; nforeign counts those that ended foreign
 * (the summary adds those still listed).
 */
/* Whether this tick lists /proc/self/task (foreign_tick). */
static int scan_due(int n)
{
	struct stat st;
	unsigned expect = ntracked + nlive_foreign + 1 + (zt_state.control_tid > 0) +
			  (main_exited != 0);
	uint32_t wait;

	/* The directory's link count: 2, and one for each thread. */
	if (fstat(task_dir, &st) == 0 && st.st_nlink == 2 + (nlink_t)expect)
		wait = rarely(n);
	else if (nlive_foreign || __atomic_load_n(&zt_state.unsampled, __ATOMIC_RELAXED))
		wait = (uint32_t)n / 64;
	else
		wait = n / 64 > SCAN_EVERY ? (uint32_t)n / 64 : SCAN_EVERY;
	if (++scan_skip < wait)
		return 0;
	scan_skip = 0;
	return 1;
}

static void foreign_tick(uint64_t now, uint64_t prev, int n)
{
	long got;
	int listed;

	if (task_dir < 0)
		return;
	/*
	 * Listing the directory costs 0.5 to 2 us a thread. The directory's
	 * thread count (its link count, which costs no listing) tells whether
	 * there may be a thread to find: when it is that of zt's threads, the
	 * foreign ones known and zt's own, there is none (unless one began as
	 * one of zt's ended unseen), and the listing is done every rarely(n)
	 * ticks (16, or one for 8 threads). Otherwise it is done at every
	 * tick while foreign threads are seen, or zt counted a clone(2) call,
	 * and at every 16th else, which finds a thread made by the system call
	 * itself within a few tenths of a second; beside more than 1,024
	 * threads, at every n / 64-th (a bounded cost a tick: a second or so
	 * beside 4,000 threads). A thread's account starts at its start all
	 * the same (track). The foreign threads known are visited at every
	 * tick.
	 */
	listed = scan_due(n);
	if (listed) {
		for (known_bits = 6; known_bits < KNOWN_BITS && (1 << known_bits) < 2 * n; known_bits++)
			;
		memset(S->known, 0, sizeof *S->known << known_bits);
		for (int i = 0; i < n; i++) {
			struct zt_thread *t = __atomic_load_n(&zt_state.threads[i], __ATOMIC_ACQUIRE);

			if (t && t->tid > 0)
				known_add(t->tid);	/* live or not: a dead one is gone from the list */
		}
		scan++;
		if (lseek(task_dir, 0, SEEK_SET) < 0)
			return;
	}
	while (listed && (got = syscall(SYS_getdents64, task_dir, S->dents, sizeof S->dents)) > 0) {
		for (long off = 0; off < got;) {
			const char *name = S->dents + off + 19;	/* struct linux_dirent64's d_name */
			unsigned short reclen;
			uint64_t v;
			pid_t tid;
			int free_slot = -1, i;

			memcpy(&reclen, S->dents + off + 16, sizeof reclen);
			off += reclen;
			if (!reclen || !dec(name, &v) || v == 0 || v > INT32_MAX)
				continue;
			tid = (pid_t)v;
			if (known_has(tid) || zt_offcpu_is_sampler(tid) ||
			    tid == __atomic_load_n(&zt_state.control_tid, __ATOMIC_ACQUIRE))
				continue;
			for (i = 0; i < FOREIGN_MAX && S->foreign[i].tid != tid; i++)
				if (!S->foreign[i].tid && free_slot < 0)
					free_slot = i;
			if (i == FOREIGN_MAX) {
				if (free_slot < 0)
					continue;	/* more than FOREIGN_MAX at once */
				i = free_slot;
				track(&S->foreign[i], tid, prev);
			}
			S->seen[i] = scan;
		}
	}
	nlive_foreign = 0;
	for (int i = 0; i < FOREIGN_MAX; i++) {
		struct rec *c = &S->foreign[i];

		if (!c->tid)
			continue;
		if (listed && (S->seen[i] != scan || known_has(c->tid))) {
			if (known_has(c->tid))
				c->have = 0;	/* zt's own record has it from its start */
			else
				nforeign++;	/* it ended foreign */
			forget(c);
			continue;
		}
		visit(c, &no_record, now);
		if (c->tid)
			nlive_foreign++;
	}
}

static uint64_t jitter_seed;

/* An interval in [period / 2, 3 period / 2): xorshift64*. */
static uint64_t next_interval(uint64_t period)
{
	uint64_t x = jitter_seed;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	jitter_seed = x;
	return period / 2 + (x * 0x2545f4914f6cdd1dull) % (period ? period : 1);
}

/*
 * After a pause, at now: no thread's account goes on across it, each
 * starts again from its schedstat of its next visit. A thread blocked
 * before it keeps its stack and its turn (a quiet one is not visited at
 * the next tick): if its thread clock has not moved at its next visit, it
 * was blocked there all along, and its account starts at now; if it has,
 * its account starts at that visit, as any other thread's.
 */
static void resync_all(uint64_t now)
{
	for (int i = 0; i < ALL_RECS; i++) {
		struct rec *c = rec_at(i);

		if (!c->tid)
			continue;
		c->pend = c->walked = 0;
		c->balance = 0;
		c->carry = c->kcarry = c->scarry = 0;
		c->stop_seen = stop_total;
		if (c->have) {
			c->last_ns = now;
			c->tick = ticks;
			c->resync = 2;
			continue;
		}
		c->good = 0;
		c->quiet = 0;
		c->resync = 1;
		if (i < ZT_MAX_THREADS && S->slot[i] == SLOT_QUIET)
			S->slot[i] = SLOT_EACH;
	}
}

/* The sampler's run delay so far, from its schedstat kept at fd. 0, or -1. */
static int own_delay(int fd, uint64_t *delay)
{
	char buf[96];
	const char *p;
	uint64_t exec;
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!(p = dec(buf, &exec)) || *p++ != ' ' || !dec(p, delay))
		return -1;
	return 0;
}

static void *sampler_main(void *arg)
{
	int mine = (int)(intptr_t)arg, paused = 0;
	uint64_t period = 1000000000ull / zt_state.off_cpu_hz, prev, next, after, delay = 0;
	struct timespec ts;

	prctl(PR_SET_NAME, "zt-offcpu", 0, 0, 0);
	__atomic_store_n(&sampler_tid, zt_sys_gettid(), __ATOMIC_RELEASE);
	if (task_dir < 0 && (task_dir = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
						   O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		int high = fcntl(task_dir, F_DUPFD_CLOEXEC, HIGH_FD);

		if (high >= 0) {
			zt_sys_close(task_dir);
			task_dir = high;
		}
		zt_files_mark(task_dir, 1);
	}
	/* The sampler's own schedstat: its run delay tells a late tick's cause. */
	if (own_fd < 0)
		own_fd = open_task_file(zt_sys_gettid(), "schedstat", 1);
	own_delay(own_fd, &delay);
	jitter_seed = zt_sys_clock_ns(CLOCK_MONOTONIC) | 1;
	prev = after = zt_sys_clock_ns(CLOCK_MONOTONIC);
	next = prev + next_interval(period);
	for (;;) {
		uint64_t now, late, was = delay;

		ts.tv_sec = (time_t)(next / 1000000000u);
		ts.tv_nsec = (long)(next % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (__atomic_load_n(&gen, __ATOMIC_ACQUIRE) != mine)
			break;
		now = zt_sys_clock_ns(CLOCK_MONOTONIC);
		/*
		 * Woken later than asked by more than its run delay says: the
		 * process was stopped meanwhile (a stopped thread is not
		 * runnable, so its wait is no run delay).
		 */
		late = now > (next > after ? next : after) ? now - (next > after ? next : after) : 0;
		if (own_delay(own_fd, &delay) < 0)
			late = 0;
		if (late > delay - was && late - (delay - was) >= STOP_MIN_NS)
			stop_total += late - (delay - was);
		__atomic_store_n(&busy, 1, __ATOMIC_SEQ_CST);
		/* A snapshot reads the records (zt_offcpu_flush): the tick waits. */
		while (__atomic_load_n(&hold, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&busy, 0, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
				sched_yield();
			__atomic_store_n(&busy, 1, __ATOMIC_SEQ_CST);
		}
		if (__atomic_load_n(&gen, __ATOMIC_SEQ_CST) != mine ||
		    !__atomic_load_n(&zt_state.active, __ATOMIC_SEQ_CST)) {
			;
		} else if (__atomic_load_n(&zt_state.paused, __ATOMIC_SEQ_CST)) {
			paused = 1;	/* outside a sampling window (zt-ctl) */
		} else {
			if (paused)
				resync_all(now);
			paused = 0;
			tick(now, prev);
		}
		__atomic_store_n(&busy, 0, __ATOMIC_SEQ_CST);
		prev = now;
		own_delay(own_fd, &delay);
		after = zt_sys_clock_ns(CLOCK_MONOTONIC);
		next += next_interval(period);
		if (next < now)
			next = now + next_interval(period);	/* ticks missed: not made up */
		/*
		 * The program's threads have all ended (the main thread by
		 * pthread_exit): glibc would now end the process, but this
		 * thread counts as one of its threads, so it does as glibc does.
		 */
		if (main_exited && __atomic_load_n(&gen, __ATOMIC_ACQUIRE) == mine &&
		    !others_alive())
			exit(0);
	}
	return NULL;
}

/* The sampler's share of the descriptors: a quarter of the soft limit, as timer.c's. */
static int fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 3 * ZT_MAX_THREADS;
	return (int)(rl.rlim_cur / 4 < 3 * ZT_MAX_THREADS ? rl.rlim_cur / 4 : 3 * ZT_MAX_THREADS);
}

int zt_offcpu_start(void)
{
	static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;
	int rc, mine;

	if (!zt_state.wall)
		return 0;
	if (!real_create)
		*(void **)&real_create = dlsym(RTLD_NEXT, "pthread_create");
	if (zt_spill_sampler_gone())
		return -1;
	if (!S) {
		/*
		 * The sampler, then every record's frames, the copy's, the
		 * walk's; on the next page, the buffer's slot (spill.h).
		 */
		size_t head = (sizeof *S + 63) & ~(size_t)63;
		size_t frames = (size_t)zt_state.max_depth * sizeof(uint64_t);
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t front = (head + (ALL_RECS + 2) * frames + page - 1) / page * page;
		char *m = mmap(NULL, front + zt_spill_slot_size(zt_state.buf_size),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		char *slot = m + front;

		if (m == MAP_FAILED)
			return -1;
		S = (struct sampler *)m;
		m += head;
		for (int i = 0; i < ALL_RECS; i++, m += frames) {
			rec_at(i)->sfd = rec_at(i)->qfd = rec_at(i)->tfd = -1;
			rec_at(i)->addr = (uint64_t *)m;
		}
		S->cpu = (uint64_t *)m;
		S->walk.addr = (uint64_t *)(m + frames);
		S->buf = slot + sizeof(struct zt_spill_head);
		zt_spill_sampler(slot);
	}
	if (!real_create)
		return -1;
	budget = fd_budget();
	main_exited = 0;
	if (zt_sys_gettid() == getpid()) {
		if (!have_main_key)
			have_main_key = pthread_key_create(&main_key, on_main_exit) == 0;
		if (have_main_key)
			pthread_setspecific(main_key, (void *)1);
	}
	nsamples = nrepeated = ntorn = nforeign = nblind = cpu_ns = stop_ns = 0;
	S->len = 0;
	zt_spill_set_len(zt_spill_sampler_head(), 0);
	mine = __atomic_add_fetch(&gen, 1, __ATOMIC_SEQ_CST);
	sampler_tid = 0;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* Every signal blocked from its first instruction: the program's go to its own threads. */
	sigfillset(&all);
	/* But glibc's own two (cancellation, and setuid's SIGSETXID, which every thread must take). */
	sigdelset(&all, SIGRTMIN - 1);
	sigdelset(&all, SIGRTMIN - 2);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, (size_t)_NSIG / 8);
	rc = real_create(&th, &attr, sampler_main, (void *)(intptr_t)mine);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)_NSIG / 8);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return -1;
	/* Its id known before anything lists the process's threads (zt_thread_adopt_running). */
	for (int spin = 0; !__atomic_load_n(&sampler_tid, __ATOMIC_ACQUIRE) && spin < 100000; spin++)
		sched_yield();
	return 0;
}

int zt_offcpu_is_sampler(pid_t tid)
{
	return tid > 0 && tid == __atomic_load_n(&sampler_tid, __ATOMIC_ACQUIRE);
}

void zt_offcpu_stop(void)
{
	pid_t me = zt_sys_gettid();
	uint64_t c;

	if (!zt_state.wall || !S)
		return;
	__atomic_add_fetch(&gen, 1, __ATOMIC_SEQ_CST);
	if (me != __atomic_load_n(&sampler_tid, __ATOMIC_ACQUIRE))
		for (long spin = 0; __atomic_load_n(&busy, __ATOMIC_ACQUIRE) && spin < 100000000;
		     spin++)
			zt_arch_pause();
	/* Its own CPU clock, read from here (the kernel's encoding, as glibc's). */
	if (sampler_tid > 0 && (c = zt_sys_clock_ns((clockid_t)((~(unsigned)sampler_tid << 3) | 6))))
		cpu_ns = c;
	stop_ns = zt_sys_clock_ns(CLOCK_MONOTONIC);
	/*
	 * What each thread gathered since its last line, as of the last tick:
	 * a thread that ended unseen (a quiet one waits for its turn) to its
	 * end, a quiet one not visited at the last tick to that tick.
	 */
	for (int i = 0; i < ZT_MAX_THREADS; i++) {
		struct rec *r = &S->rec[i];
		const struct zt_thread *t = i < zt_state.nthreads ?
			__atomic_load_n(&zt_state.threads[i], __ATOMIC_ACQUIRE) : NULL;

		if (r->tid && t && t->tid == r->tid && __atomic_load_n(&t->end_ns, __ATOMIC_ACQUIRE)) {
			close_account(r, t);
			forget(r);
		} else {
			catch_up(r, 1);
		}
	}
	for (int i = 0; i < ALL_RECS; i++)
		if (rec_at(i)->tid && rec_at(i)->have)
			emit_pending(rec_at(i));
		else if (rec_at(i)->tid)
			settle(rec_at(i), rec_at(i)->last_ns);
	flush();
}

void zt_offcpu_flush(void)
{
	if (!zt_state.wall || !S)
		return;
	__atomic_store_n(&hold, 1, __ATOMIC_SEQ_CST);
	for (long spin = 0; __atomic_load_n(&busy, __ATOMIC_SEQ_CST) && spin < 100000000; spin++)
		zt_arch_pause();
	for (int i = 0; i < ZT_MAX_THREADS; i++)
		catch_up(&S->rec[i], 0);
	for (int i = 0; i < ALL_RECS; i++)
		if (rec_at(i)->tid && rec_at(i)->have)
			emit_pending(rec_at(i));
	flush();
	__atomic_store_n(&hold, 0, __ATOMIC_SEQ_CST);
}

void zt_offcpu_next_dump(void)
{
	nsamples = nrepeated = ntorn = nforeign = nblind = 0;
}

void zt_offcpu_after_fork(void)
{
	/* The parent's threads' files, inherited: not the child's threads. */
	__atomic_add_fetch(&gen, 1, __ATOMIC_SEQ_CST);
	busy = 0;
	hold = 0;
	sampler_tid = 0;
	if (!S)
		return;
	for (int i = 0; i < ALL_RECS; i++)
		if (rec_at(i)->tid || rec_at(i)->sfd >= 0 || rec_at(i)->qfd >= 0 ||
		    rec_at(i)->tfd >= 0) {
			rec_at(i)->have = 0;	/* the parent's to write, not the child's */
			forget(rec_at(i));
		}
	if (task_dir >= 0) {
		zt_files_mark(task_dir, 0);
		zt_sys_close(task_dir);
		task_dir = -1;
	}
	if (own_fd >= 0) {
		zt_files_mark(own_fd, 0);
		zt_sys_close(own_fd);
		own_fd = -1;
	}
	kept_fds = 0;
	ntracked = 0;
	S->len = 0;
	memset(S->slot, SLOT_EACH, sizeof S->slot);
}

void zt_offcpu_thread_end(struct zt_thread *t)
{
	char buf[96];
	uint64_t exec, delay, runs;
	const char *p;

	if (!zt_state.wall || !S ||
	    zt_sys_read_file("/proc/thread-self/schedstat", buf, sizeof buf) < 0)
		return;
	if (!(p = dec(buf, &exec)) || *p++ != ' ' || !(p = dec(p, &delay)) || *p++ != ' ' ||
	    !dec(p, &runs))
		return;
	t->end_exec_ns = exec;
	t->end_delay_ns = delay;
	__atomic_store_n(&t->end_ns, zt_sys_clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELEASE);
}

/* The sampler thread's CPU time, as zt_offcpu_stop read it (0 before). */
static uint64_t own_cpu_ns(void)
{
	return zt_state.wall ? cpu_ns : 0;
}

/* The summary keys of a wall dump, written to fd. */
static void put_summary(int fd)
{
	uint64_t n = nforeign;

	if (!zt_state.wall)
		return;
	zt_dump_put_key(fd, ZT_RAW_OFF_CPU_SAMPLES, nsamples);
	zt_dump_put_key(fd, ZT_RAW_OFF_CPU_REPEATED, nrepeated);
	zt_dump_put_key(fd, ZT_RAW_OFF_CPU_TORN, ntorn);
	for (int i = 0; S && i < FOREIGN_MAX; i++)
		if (S->foreign[i].tid)
			n++;
	if (n)
		zt_dump_put_key(fd, ZT_RAW_OFF_CPU_FOREIGN, n);
	if (nblind)
		zt_dump_put_key(fd, ZT_RAW_OFF_CPU_BLIND, nblind);
	if (!stop_ns && sampler_tid > 0) {
		uint64_t c = zt_sys_clock_ns((clockid_t)((~(unsigned)sampler_tid << 3) | 6));

		if (c)
			cpu_ns = c;	/* a snapshot's: the sampler runs on */
	}
	zt_dump_put_key(fd, ZT_RAW_SAMPLER_CPU_NS, cpu_ns);
	zt_dump_put_key(fd, ZT_RAW_WALL_NS, (stop_ns ? stop_ns : zt_sys_clock_ns(CLOCK_MONOTONIC)) -
				    zt_state.start_ns);
}

void zt_offcpu_init(void)
{
	static const struct zt_dump_part part = { .own_cpu_ns = own_cpu_ns,
						  .put_summary = put_summary };

	zt_dump_register(&part);
}
