/*
 * state.h — the state the pieces of libzt-prof.so share (the bottom of
 * collect/, with sys.h and fmt.h): the limits, one record per sampled
 * thread, and struct zt_state, the one process-wide record. Which piece
 * writes which field is said at the field; the README's HACKING section
 * draws the layers, and who may call whom.
 */
#ifndef ZT_STATE_H
#define ZT_STATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "sys.h"

enum {
	ZT_MAX_THREADS = 4096,	/* threads alive at once that get a buffer */
	ZT_BUF_SIZE = 16 * 1024,/* per-thread buffer, written out when full */
	ZT_MAX_NAMES = 65536,	/* thread names remembered */
	ZT_MAX_BUILDIDS = 1024,	/* ELF objects whose build-id is kept */
	ZT_ALTSTACK = 64 * 1024,	/* each thread's alternate signal stack, a guard page below */
	ZT_WINDOW = 16 * 1024,	/* bytes of a foreign stack copied for one walk */
	ZT_LINE_WALL = 2 * 22 + 2 + 4 * 64,	/* a wall dump's " ^weight" and " !wait" */
};

/*
 * One sample line of depth frames at most, without a wall dump's marks:
 * "TID COUNT @NS", " =HEX" a frame, " -" or " +", the newline.
 */
static inline size_t zt_line_max(unsigned depth)
{
	return 24 + 22 + (size_t)depth * 18 + 3;
}

/* Why samples were lost; each has a counter and a name in the dump. */
enum zt_loss { ZT_LOST_WRITE, ZT_LOST_FD, ZT_LOST_WAIT, ZT_LOST_DEFERRED, ZT_NLOSS };

/* A descriptor zt opened, with the identity of what it opened (files.c). */
struct zt_owned {
	int fd;			/* -1 when none */
	dev_t dev;
	ino_t ino;
	int fl;			/* its file status flags (F_GETFL), as opened */
};

/* What a seccomp filter leaves zt (seccomp.c); the dump's "seccomp" key. */
enum zt_seccomp {
	ZT_SECCOMP_NONE, ZT_SECCOMP_ALLOWED, ZT_SECCOMP_FALLBACK /* to the POSIX timer */,
	ZT_SECCOMP_NO_TIMERS, ZT_SECCOMP_STOPPED
};

/* The timer actually running; written to the dump as "timer NAME". */
enum zt_timer_kind { ZT_TIMER_NONE, ZT_TIMER_PERF, ZT_TIMER_POSIX };

struct zt_alloc_tls;
struct zt_spill_head;

/* One sampled thread. Mapped outside signal context; reused after exit. */
struct zt_thread {
	volatile int live;	/* claimed by a running thread */
	volatile int busy;	/* the handler is filling buf */
	volatile int closed;	/* the final flush happened or is happening */
	int adopted;		/* running before zt started: no TLS, stack found late */
	volatile int alt_checked;	/* adopted: its first signal saw to its alternate stack */
	pid_t tid;
	uintptr_t stack_lo, stack_hi;
	int perf_fd;		/* -1 when the POSIX timer runs */
	uint64_t perf_id;	/* its event id (PERF_EVENT_IOC_ID), to know it is still ours */
	enum zt_timer_kind timer_kind;	/* the process's timer before this counter was opened */
	int fallback;		/* on the POSIX timer because perf could not be had */
	int has_timer;
	int timer_gone;		/* timer was zt's and is deleted: its queued signal is still zt's */
	timer_t timer;
	volatile int period_pending;	/* the counter's first period was a random part of one */
	uint64_t cpu0;		/* the thread's CPU clock when its timer started */
	uint64_t user0, sys0;	/* its user and system time then (the kernel's split) */
	int times_self;		/* user0 and sys0 are its own getrusage's, not /proc's */
	unsigned char *alt;	/* zt's alternate signal stack, ZT_ALTSTACK bytes; NULL if none */
	uint64_t nsamples;	/* samples taken of this thread */
	/* Its schedstat and clock as it ended (offcpu.c, a wall profile); end_ns 0 until then. */
	volatile uint64_t end_ns, end_exec_ns, end_delay_ns;
	/*
	 * Its last CPU stack, for the sampler's "waiting for a CPU" (a wall
	 * profile): addr[0..cpu_n), written by the handler between two steps
	 * of cpu_seq (odd while addr is being filled: offcpu.h's
	 * zt_offcpu_stack_filling and _filled), read by offcpu.c.
	 */
	volatile uint32_t cpu_seq;
	uint32_t cpu_n;
	int cpu_partial;
	size_t len;
	uint64_t flush_ns;	/* its next sample past this time (CLOCK_MONOTONIC) writes buf out */
	/*
	 * Mapped with the record, after it (thread.c): buf, zt_state.buf_size
	 * bytes, and addr, the handler's zt_state.max_depth frames, kept off
	 * the interrupted stack. Sized at start, never in the handler.
	 */
	char *buf;
	uint64_t *addr;
	/* buf's slot in the file zt-collect reads after a death (spill.h); NULL if private. */
	struct zt_spill_head *spill;
	/* alloc.c's: its own max_depth frames (mapped after addr with --alloc,
	   else addr itself, unused), kept apart from the handler's; the counts of the allocator's interposers in the
	   thread's storage (allochook.h), NULL until its first sample point;
	   the counts of threads that ended in this slot, and its mmap calls. */
	uint64_t *alloc_addr;
	struct zt_alloc_tls *alloc_tl;
	uint64_t alloc_calls, alloc_bytes;
	unsigned char window[ZT_WINDOW];	/* a copy of a stack zt does not know */
};

/*
 * A thread's name as the kernel's comm holds it (15 bytes and a NUL), kept
 * in a fixed table because it is recorded without malloc; written as the
 * dump's "threads" section (lib/raw.h's struct zt_tname is the reader's).
 */
struct zt_name_slot {
	pid_t tid;
	char name[16];
};

struct zt_bid {
	uint64_t addr;		/* start of the object's first PT_LOAD */
	uint64_t ns;		/* when it was first seen, since the dump's start */
	unsigned len;
	unsigned char id[64];
	char path[256];
};

enum { ZT_UNREACHED_MAX = 16, ZT_TAKEN_MAX = 8, ZT_REAPED_MAX = 4096 };

struct zt_state {
	volatile int active;	/* the handler records samples */
	/*
	 * Sampling windows (control.c). paused: the handler records nothing
	 * though the timers run; start_paused: what each new dump starts with
	 * (--paused); control: windows are in use (the summary says so).
	 * The window_* figures are this dump's: windows opened, their CPU
	 * time (process clock) and wall-clock time, the open window's start.
	 */
	volatile int paused;
	int start_paused;
	volatile int control;
	uint64_t windows, window_cpu_ns, window_wall_ns, window_user_ns, window_sys_ns;
	int64_t window_cpu0;
	uint64_t window_wall0, window_user0, window_sys0;
	unsigned snapshot;	/* in a snapshot being written: its number N (FILE.N) */
	unsigned snapshots;	/* snapshots written by this process so far */
	struct zt_owned control_fd;	/* the control socket, listening (control.c) */
	volatile pid_t control_tid;	/* the thread that serves it, 0 if none (not sampled) */
	pid_t pid;		/* the process that owns the dump */
	pid_t root_pid;		/* ZT_PID: the process zt-collect started */
	struct zt_owned dump;	/* the temporary dump, O_APPEND; fd >= 0 while one is open */
	struct zt_owned maps;	/* maps seen before each dlclose */
	struct zt_owned dir;	/* the output directory (O_PATH) */
	struct zt_owned status;	/* zt-collect's status pipe */
	struct zt_owned namer;	/* zt-collect's namer socket, with -f (files.c) */
	uint64_t pidns_dev, pidns_ino;	/* ZT_PIDNS: zt-collect's PID namespace; 0 if not given */
	pid_t name_pid;		/* the pid zt-collect knows the dump's process by */
	struct zt_owned maps_now;	/* /proc/self/maps, kept open (dump.c) */
	volatile int write_errno;	/* the first failed write to the dump */
	volatile int fd_lost;	/* the dump's descriptor was taken and the file could not be reopened */
	volatile uint64_t fd_reopened;	/* times the dump was reopened after the program closed it */
	volatile uint64_t sigprof_blocked;	/* threads seen with SIGPROF blocked */
	volatile uint64_t timers_lost;	/* perf counters the program closed */
	unsigned hz;
	enum zt_timer_kind timer;
	int want_timer;		/* ZT_TIMER: 0 auto, 1 perf only, 2 posix only */
	int follow;		/* ZT_FOLLOW: profile descendants too */
	int gzip;		/* ZT_GZIP: compress the dump */
	int wall;		/* ZT_CLOCK=wall: a wall-clock profile (offcpu.c), dump version 5 */
	unsigned off_cpu_hz;	/* ZT_OFF_CPU_HZ: the off-CPU sampler's ticks per second */
	int unwind;		/* ZT_UNWIND: auto, cfi or fp (enum zt_unwind_mode, unwind.h) */
	/*
	 * ZT_MAX_DEPTH: frames kept per sample, ZT_DEPTH_MIN to ZT_DEPTH_MAX
	 * (rawfmt.h); set by the constructor before any thread is mapped, and
	 * never changed after. line_max is zt_line_max(max_depth); buf_size a
	 * thread's buffer, at least two of the longest lines (wall marks too).
	 */
	unsigned max_depth;
	size_t line_max, buf_size;
	/*
	 * zt's sampling signal (prof.c): a real-time signal that has no
	 * handler when zt starts, the highest free one; moved to another free
	 * one when the program installs a handler on it (intercept.c), or kept
	 * and shared with the program's handler when none is left (shared:
	 * masks are then the program's own for it, sigmask.c). signo_start is
	 * the dump's "signal"; owned has bit N-1 set for every signal N zt's
	 * handler is installed on (zt_state_signal_owned); taken[] the
	 * moves, to 0 for "shared".
	 */
	volatile int signo;
	int signo_start;
	volatile int shared;
	int deferring;		/* a runtime defers the handler's signals (TSan): losses counted */
	volatile uint64_t owned;
	struct { int from, to; } taken[ZT_TAKEN_MAX];
	volatile unsigned ntaken;
	volatile enum zt_seccomp seccomp;	/* a filter is in place, and what it leaves zt */
	const char *seccomp_refused;	/* the first of zt's calls it kills, or NULL */
	int64_t cpu_start_ns, cpu_stop_ns;	/* process CPU clock while sampling */
	uint64_t setup_ns;	/* process CPU time of zt's constructor before sampling began */
	/* Minor page faults zt took itself, counted on the thread that took
	   them: its constructor, each table update, and from the end's start
	   (stop_minflt0, that thread's count then) to the summary. */
	uint64_t own_minflt, stop_minflt0;
	int64_t exit_cpu0;	/* process CPU clock when zt's exit work began (0: not begun) */
	int64_t summary_cpu;	/* process CPU clock when the end's summary took its figures */
	/*
	 * The children this process reaped (intercept.c, the wait family),
	 * each with its CPU time as the kernel accounts it: the growth of
	 * RUSAGE_CHILDREN (children_ns, its last reading) at its reaping. The
	 * first ZT_REAPED_MAX are kept, the rest only counted.
	 */
	struct { int pid; uint64_t ns; } reaped[ZT_REAPED_MAX];
	volatile unsigned nreaped;
	volatile uint64_t children_ns;
	/* The process's user and system time when sampling began: the loader's
	   start, and after an exec the images before this one. */
	uint64_t user_start_ns, sys_start_ns;
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the dump was opened */
	uint64_t start_time_ns;	/* CLOCK_REALTIME then: the wall-clock start */
	char base[4096];	/* ZT_OUT as given */
	char out[4096];		/* final path: base, or base.PID for descendants */
	char tmp[4096];		/* path written during the run */
	char maps_tmp[4096];	/* the dlclose maps side file */
	char exec_path[256];	/* what the process exec'd, if it did */
	/*
	 * Programs that vforked children exec'd and that the loader will not
	 * preload zt into. A vforked child runs in this process's memory and
	 * has no dump of its own, so it writes them here and this dump names
	 * them; the first ZT_UNREACHED_MAX are kept, the rest only counted.
	 */
	struct zt_unreached {
		volatile int pid;	/* 0: a slot given back (the exec failed) */
		char why[16];		/* ZT_RAW_UNREACHED_STATIC, ... */
		char path[256];
	} unreached[ZT_UNREACHED_MAX];
	volatile unsigned nunreached;
	volatile uint64_t samples;
	volatile uint64_t truncated;	/* stacks cut at max_depth (also counted in partial) */
	volatile uint64_t partial;	/* stacks that did not reach the thread's entry */
	uint64_t cfi_objects, cfi_rows, cfi_bytes;	/* the unwind tables published last */
	uint64_t cfi_lazy;	/* of those, the lazy ones (cfi.h) */
	uint64_t cfi_build_ns, cfi_skipped;	/* CPU time spent building, FDEs skipped */
	uint64_t maps_snapshots;	/* maps sections written (snapshot.c) */
	volatile uint64_t maps_lost;	/* snapshots that could not be kept */
	uint64_t perfmap_lines, perfmap_skipped;	/* /tmp/perf-PID.map (perfmap.c) */
	int perfmap_truncated;	/* it was longer than the bound */
	int perfmap_state;	/* 0 none, 1 copied, 2 refused (not a file of ours) */
	volatile uint64_t unsampled;	/* threads that got no buffer or timer */
	volatile uint64_t unsampled_cpu_ns;	/* CPU time of threads while zt could not sample them */
	uint64_t period_ns;	/* the sampling period, 1e9 / hz */
	volatile int perf_fds;	/* perf counters open: at most zt_timer_budget() */
	volatile uint64_t timer_fallback;	/* threads given the POSIX timer instead */
	volatile uint64_t sampled_cpu_ns;	/* CPU time of threads while their timer ran, summed at stop */
	volatile uint64_t sampled_user_ns, sampled_sys_ns;	/* its user and system parts */
	volatile uint64_t lost[ZT_NLOSS];
	volatile int nthreads;	/* slots used in threads[] */
	struct zt_thread *threads[ZT_MAX_THREADS];
	volatile uint32_t nnames;
	struct zt_name_slot names[ZT_MAX_NAMES];
	volatile uint32_t nbids;
	struct zt_bid bids[ZT_MAX_BUILDIDS];
};

extern struct zt_state zt_state ZT_HIDDEN;

/* Whether zt's handler is on signal sig (1 to 64). Async-signal-safe. */
static inline int zt_state_signal_owned(int sig)
{
	return sig > 0 && sig <= 64 &&
	       (__atomic_load_n(&zt_state.owned, __ATOMIC_ACQUIRE) >> (sig - 1) & 1);
}

/* Whether this process owns a dump in progress. Async-signal-safe. */
ZT_HIDDEN int zt_state_owner(void);

/*
 * zt_state_owner without a system call, for the interposers the program
 * may call at a high rate (close, sigaction, signal: a getpid on each was
 * most of their cost). The pid is the one cached at start and in the child
 * of every fork zt sees (pthread_atfork), where a child that is not
 * followed has closed its copy of the dump. A child made by vfork or by a
 * raw clone system call runs no atfork handler: these three interposers
 * then act on its copy of zt's state as in its parent (a vforked child
 * shares it: a disposition it sets for zt's signal or for a fatal signal
 * zt stands in for before it execs is what its parent reads back). The
 * endings (exit, exec, stop) keep zt_state_owner.
 */
extern pid_t zt_state_pid_cache ZT_HIDDEN;
ZT_HIDDEN int zt_state_owner_cached(void);

#endif
