/*
 * prof.h — internals shared by the pieces of libzt-prof.so, the sampler that
 * zt-collect preloads into the profiled program.
 *
 * The pieces: prof.c (start, stop, the SIGPROF handler, the endings),
 * thread.c (threads: pthread_create, thread exit, fork), intercept.c (the
 * libc functions zt must see: dlopen, dlclose, exec, sigaction, setitimer,
 * mmap, munmap, mprotect), timer.c (one sampling timer per thread), store.c
 * (per-thread sample buffers written to the dump with write(2)), dump.c
 * (the dump file), snapshot.c (the maps as they were when each sample was
 * taken), perfmap.c (the program's /tmp/perf-PID.map, copied at the end),
 * unwind.c (the unwinder), cfi.c (CFI compiled into unwind rows), tables.c
 * (the rows of every loaded object, published to the handler). Everything
 * that runs inside a signal handler is async-signal-safe: no malloc, no
 * stdio, no locks.
 */
#ifndef ZT_PROF_H
#define ZT_PROF_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <ucontext.h>

#include "unwind.h"

#define ZT_HIDDEN __attribute__((visibility("hidden")))
#define ZT_EXPORT __attribute__((visibility("default")))

enum {
	ZT_MAX_DEPTH = 128,	/* frames kept per sample, leaf first */
	ZT_MAX_THREADS = 4096,	/* threads alive at once that get a buffer */
	ZT_BUF_SIZE = 16 * 1024,/* per-thread buffer, written out when full */
	ZT_LINE_MAX = 24 + 22 + ZT_MAX_DEPTH * 18 + 2,	/* one sample line */
	ZT_MAX_NAMES = 65536,	/* thread names remembered */
	ZT_MAX_BUILDIDS = 1024,	/* ELF objects whose build-id is kept */
	ZT_ALTSTACK = 64 * 1024,	/* each thread's alternate signal stack, a guard page below */
	ZT_WINDOW = 16 * 1024,	/* bytes of a foreign stack copied for one walk */
	ZT_LINE_WALL = 2 * 22 + 2 + 4 * 64,	/* a wall dump's " ^weight" and " !wait" */
};

/* Why samples were lost; each has a counter and a name in the dump. */
enum zt_loss { ZT_LOST_WRITE, ZT_LOST_FD, ZT_LOST_WAIT, ZT_NLOSS };

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

/* One sampled thread. Mapped outside signal context; reused after exit. */
struct zt_thread {
	volatile int live;	/* claimed by a running thread */
	volatile int busy;	/* the handler is filling buf */
	volatile int closed;	/* the final flush happened or is happening */
	int adopted;		/* running before zt started: no TLS, stack found late */
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
	uint64_t cpu0;		/* the thread's CPU clock when its POSIX timer started */
	unsigned char *alt;	/* zt's alternate signal stack, ZT_ALTSTACK bytes; NULL if none */
	uint64_t nsamples;	/* samples taken of this thread */
	/* Its schedstat and clock as it ended (offcpu.c, a wall profile); end_ns 0 until then. */
	volatile uint64_t end_ns, end_exec_ns, end_delay_ns;
	size_t len;
	char buf[ZT_BUF_SIZE];
	uint64_t addr[ZT_MAX_DEPTH];	/* the handler's frames: kept off the interrupted stack */
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

enum { ZT_UNREACHED_MAX = 16 };

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
	pid_t pid;		/* the process that owns the dump */
	pid_t root_pid;		/* ZT_PID: the process zt-collect started */
	struct zt_owned dump;	/* the temporary dump, O_APPEND; fd >= 0 while one is open */
	struct zt_owned maps;	/* maps seen before each dlclose */
	struct zt_owned dir;	/* the output directory (O_PATH) */
	struct zt_owned status;	/* zt-collect's status pipe */
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
	enum zt_unwind_mode unwind;	/* ZT_UNWIND: auto, cfi or fp */
	int wall;		/* ZT_CLOCK=wall: a wall-clock profile (offcpu.c), dump version 5 */
	unsigned off_cpu_hz;	/* ZT_OFF_CPU_HZ: the off-CPU sampler's ticks per second */
	volatile int program_sigprof;	/* the program uses SIGPROF: 1 handler, 2 timer */
	volatile enum zt_seccomp seccomp;	/* a filter is in place, and what it leaves zt */
	const char *seccomp_refused;	/* the first of zt's calls it kills, or NULL */
	int64_t cpu_start_ns, cpu_stop_ns;	/* process CPU clock while sampling */
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
	volatile uint64_t truncated;	/* stacks cut at ZT_MAX_DEPTH */
	volatile uint64_t partial;	/* stacks that did not reach the thread's entry */
	uint64_t cfi_objects, cfi_rows, cfi_bytes;	/* the unwind tables published last */
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
	volatile uint64_t lost[ZT_NLOSS];
	volatile int nthreads;	/* slots used in threads[] */
	struct zt_thread *threads[ZT_MAX_THREADS];
	volatile uint32_t nnames;
	struct zt_name_slot names[ZT_MAX_NAMES];
	volatile uint32_t nbids;
	struct zt_bid bids[ZT_MAX_BUILDIDS];
};

extern struct zt_state zt_state ZT_HIDDEN;
/* Set while a signal's handler is ending the program. */
extern volatile int zt_prof_fatal_depth ZT_HIDDEN;

/* prof.c */
ZT_HIDDEN void zt_prof_stop(void);
ZT_HIDDEN int zt_prof_begin(void);
ZT_HIDDEN void zt_prof_arm(void);
ZT_HIDDEN void zt_prof_stop_sampling(void);
ZT_HIDDEN void zt_prof_install_handler(void);
ZT_HIDDEN int zt_prof_owner(void);
ZT_HIDDEN int zt_prof_fatal_is_ours(int sig);
ZT_HIDDEN int zt_prof_fatal_take(int sig);
ZT_HIDDEN void zt_prof_fatal_release(int sig);

/* thread.c */
ZT_HIDDEN struct zt_thread *zt_thread_attach(void);
ZT_HIDDEN void zt_thread_init(void);
ZT_HIDDEN void zt_thread_close(struct zt_thread *t);
ZT_HIDDEN void zt_thread_name_record(pid_t tid);
ZT_HIDDEN struct zt_thread *zt_thread_self(void);
ZT_HIDDEN void zt_thread_adopt_running(void);
ZT_HIDDEN struct zt_thread *zt_thread_by_fd(int fd);
ZT_HIDDEN void zt_thread_find_stack(struct zt_thread *t, uintptr_t sp);
ZT_HIDDEN void zt_thread_note_sigprof_blocked(void);
ZT_HIDDEN int zt_thread_on_alt(const struct zt_thread *t, uintptr_t sp);
ZT_HIDDEN int zt_thread_counter_is_ours(int fd);

/* seccomp.c */
/* At start: a filter inherited through exec; -1 when zt must not start. */
ZT_HIDDEN int zt_seccomp_start(void);

/* sigmask.c */
ZT_HIDDEN void zt_sigmask_init(void);
/* The calling thread starts being sampled; inherit: its creator hid SIGPROF. */
ZT_HIDDEN void zt_sigmask_thread_start(int inherit);
/* Whether the program asked the calling thread to block SIGPROF and zt hides it. */
ZT_HIDDEN int zt_sigmask_hidden(void);
/* Block SIGPROF for real where the program asked for it (exec, fork, SIGPROF used). */
ZT_HIDDEN void zt_sigmask_reveal(void);
/* The calling thread ends (t its record, or NULL): count what was not sampled. */
ZT_HIDDEN void zt_sigmask_thread_end(const struct zt_thread *t);
/* In the handler, a SIGPROF not zt's: 1 when it was kept pending for the program. */
ZT_HIDDEN int zt_sigmask_foreign(siginfo_t *si, ucontext_t *uc);

/* timer.c */
/* A timer for thread t (prepare: not running yet; arm: running; start: both). */
ZT_HIDDEN int zt_timer_prepare(struct zt_thread *t);
ZT_HIDDEN int zt_timer_arm(struct zt_thread *t);
ZT_HIDDEN int zt_timer_start(struct zt_thread *t);
ZT_HIDDEN void zt_timer_stop(struct zt_thread *t);

/* store.c */
ZT_HIDDEN void zt_store_sample(struct zt_thread *t, uint64_t when, uint64_t count,
			       const uint64_t *addr, size_t n, int partial);
ZT_HIDDEN void zt_store_flush(struct zt_thread *t);
ZT_HIDDEN char *zt_store_fmt_u64(char *p, uint64_t v, int base);

/* files.c */
/* Close one of zt's own descriptors: the raw system call, never the close() interposer. */
ZT_HIDDEN int zt_sys_close(int fd);
ZT_HIDDEN int zt_files_own(struct zt_owned *o, int fd);
ZT_HIDDEN int zt_files_ok(const struct zt_owned *o);
ZT_HIDDEN void zt_files_close(struct zt_owned *o);
ZT_HIDDEN int zt_files_open_in_dir(const char *path, int flags, mode_t mode);
ZT_HIDDEN int zt_files_unlink_in_dir(const char *path);
ZT_HIDDEN int zt_files_rename_in_dir(const char *from, const char *to);
ZT_HIDDEN void zt_files_dir_open(const char *path);
ZT_HIDDEN int zt_files_dump_fd(void);
ZT_HIDDEN void zt_files_write_failed(int err);
ZT_HIDDEN void zt_files_status_init(void);
ZT_HIDDEN int zt_files_fd_is_ours(int fd);
ZT_HIDDEN int zt_files_perf_ok(const struct zt_thread *t);
ZT_HIDDEN int zt_files_fds_ours(int *out, int max);
extern struct zt_owned zt_dump_maps_now ZT_HIDDEN;	/* /proc/self/maps, kept open (dump.c) */
ZT_HIDDEN void zt_files_status(const char *what, int err, uint64_t count);

/* dump.c */
ZT_HIDDEN int zt_dump_write_all(int fd, const char *p, size_t n);
ZT_HIDDEN void zt_dump_puts(int fd, const char *s);
ZT_HIDDEN void zt_dump_put_text(int fd, const char *s, size_t n);
ZT_HIDDEN int zt_dump_open(void);
ZT_HIDDEN void zt_dump_finish(void);
ZT_HIDDEN void zt_dump_abandon(void);
ZT_HIDDEN void zt_dump_buildids_scan(void);
/*
 * Snapshots (control.c): with sampling held and every buffer flushed,
 * finish the dump in progress and publish it as path (0, or an errno);
 * then zt_dump_reopen starts the next one on the same time origin.
 */
ZT_HIDDEN int zt_dump_snapshot(const char *path);
ZT_HIDDEN int zt_dump_reopen(void);

/* snapshot.c */
ZT_HIDDEN void zt_snap_init(void);
ZT_HIDDEN void zt_snap_reset(void);
ZT_HIDDEN void zt_snap_lock(void);
ZT_HIDDEN void zt_snap_unlock(void);
ZT_HIDDEN void zt_snap_take(void);
ZT_HIDDEN void zt_snap_if_stale(void);
ZT_HIDDEN int zt_snap_pc_known(uint64_t pc);
ZT_HIDDEN int zt_snap_overlaps_exec(uint64_t addr, size_t len);
ZT_HIDDEN int zt_snap_covered_exec(uint64_t addr, size_t len);
ZT_HIDDEN void zt_snap_finish(int fd);

/* perfmap.c */
ZT_HIDDEN void zt_perfmap_put(int fd);

/* tables.c */
ZT_HIDDEN void zt_tables_update(void);
ZT_HIDDEN const struct zt_cfi_set *zt_tables_enter(void);
ZT_HIDDEN void zt_tables_leave(void);
/*
 * Around a dlclose, whose object's code may be unmapped while a handler
 * reads it: after zt_tables_closing returns, no handler reads code
 * (zt_tables_code_readable is 0 for the ones that start) until
 * zt_tables_closed. Not for signal handlers, except zt_tables_code_readable.
 */
ZT_HIDDEN void zt_tables_closing(void);
ZT_HIDDEN void zt_tables_closed(void);
ZT_HIDDEN int zt_tables_code_readable(void);

/* intercept.c */
ZT_HIDDEN void zt_intercept_init(void);
ZT_HIDDEN int zt_intercept_real_sigaction(int sig, const struct sigaction *act,
				struct sigaction *old);
ZT_HIDDEN void zt_intercept_sigprof_foreign(int sig, siginfo_t *si, void *uc);
ZT_HIDDEN void zt_intercept_sigprof_release(void);

ZT_HIDDEN int64_t zt_prof_cpu_ns(void);
ZT_HIDDEN uint64_t zt_prof_clock_ns(clockid_t clock);
ZT_HIDDEN pid_t zt_prof_gettid(void);

#endif
