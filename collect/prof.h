/*
 * prof.h — internals shared by the pieces of libzt-prof.so, the sampler that
 * zt-collect preloads into the profiled program.
 *
 * The pieces: prof.c (start, stop, the SIGPROF handler), timer.c (one
 * sampling timer per thread), store.c (per-thread sample buffers written to
 * the dump with write(2)), dump.c (the dump's sections written at exit),
 * walk.c (the frame-pointer walk). Everything that runs inside the handler
 * is async-signal-safe: no malloc, no stdio, no locks.
 */
#ifndef ZT_PROF_H
#define ZT_PROF_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define ZT_HIDDEN __attribute__((visibility("hidden")))

enum {
	ZT_MAX_DEPTH = 128,	/* frames kept per sample, leaf first */
	ZT_MAX_THREADS = 4096,	/* threads that get a buffer of their own */
	ZT_BUF_SIZE = 64 * 1024,/* per-thread buffer, written out when full */
	ZT_LINE_MAX = 24 + ZT_MAX_DEPTH * 17,	/* one sample line */
};

/* Why samples were lost; each has a counter and a name in the dump. */
enum zt_loss { ZT_LOST_WRITE, ZT_LOST_NOBUF, ZT_LOST_BUSY, ZT_NLOSS };

/* The timer actually running; written to the dump as "timer NAME". */
enum zt_timer_kind { ZT_TIMER_NONE, ZT_TIMER_PERF, ZT_TIMER_POSIX };

/* One sampled thread. Allocated with mmap outside signal context. */
struct zt_thread {
	volatile int busy;	/* the handler is filling buf */
	pid_t tid;
	uintptr_t stack_lo, stack_hi;
	int perf_fd;		/* -1 when the POSIX timer runs */
	int has_timer;
	timer_t timer;
	size_t len;
	char buf[ZT_BUF_SIZE];
};

struct zt_state {
	volatile int active;	/* the handler records samples */
	pid_t pid;		/* the process that owns the dump */
	int fd;			/* the temporary dump, O_APPEND */
	unsigned hz;
	enum zt_timer_kind timer;
	int want_timer;		/* ZT_TIMER: 0 auto, 1 perf only, 2 posix only */
	int64_t cpu_start_ns;
	char out[4096];		/* final path */
	char tmp[4096];		/* path written during the run */
	volatile uint64_t samples;
	volatile uint64_t truncated;
	volatile uint64_t lost[ZT_NLOSS];
	volatile int nthreads;
	struct zt_thread *threads[ZT_MAX_THREADS];
};

extern struct zt_state zt_state ZT_HIDDEN;

/* timer.c */
ZT_HIDDEN int zt_timer_start(struct zt_thread *t);
ZT_HIDDEN void zt_timer_stop(struct zt_thread *t);

/* store.c */
ZT_HIDDEN struct zt_thread *zt_thread_new(pid_t tid);
ZT_HIDDEN void zt_store_sample(struct zt_thread *t, const uint64_t *addr,
			       size_t n);
ZT_HIDDEN void zt_store_flush(struct zt_thread *t);

/* dump.c */
ZT_HIDDEN void zt_write_all(int fd, const char *p, size_t n);
ZT_HIDDEN void zt_puts(int fd, const char *s);
ZT_HIDDEN char *zt_fmt_u64(char *p, uint64_t v, int base);
ZT_HIDDEN int zt_dump_open(void);
ZT_HIDDEN void zt_dump_finish(void);

ZT_HIDDEN int64_t zt_cpu_ns(void);
ZT_HIDDEN pid_t zt_gettid(void);

#endif
