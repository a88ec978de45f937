/*
 * thread.c — every thread sampled on its own CPU time: threads created with
 * pthread_create get a buffer and a timer before their start routine runs,
 * and give them back when they exit. Thread names are kept in a table so
 * that threads that ended before the dump still have one. fork is followed
 * here too: a child either stops (the default) or, with ZT_FOLLOW, starts a
 * dump of its own.
 */
#include "thread.h"
#include "alloc.h"
#include "files.h"
#include "fmt.h"
#include "intercept.h"
#include "prof.h"
#include "sigmask.h"
#include "snapshot.h"
#include "spill.h"
#include "store.h"
#include "timer.h"
#include "hex.h"
#include "launch.h"
#include "offcpu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* This thread's record; initial-exec TLS, so reading it never allocates. */
static __thread struct zt_thread *self __attribute__((tls_model("initial-exec")));

/*
 * The thread's alternate signal stack. zt installs one of its own in every
 * thread it samples, so that its handler never runs on a stack it could
 * overflow (a coroutine's, a split stack's segment). A program that sets
 * its own with sigaltstack gets it for real: the kernel runs the program's
 * handlers, and zt's, on it, and it is unwound through. zt's comes back
 * when the program disables its own. zt_alt_on: zt's is the kernel's now;
 * prog_alt_on: the program's is; alt_mine: zt's for this thread.
 *
 * A thread started before zt's constructor ran (by another library's
 * constructor: the loader runs them first, but pthread_create already binds
 * to zt's) gets one in its start wrapper too, recorded in early[] so that
 * its adoption finds it. One zt never saw start (a raw clone) gets the one
 * of its record at its first signal (zt_thread_alt_adopted).
 */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1 << 31)	/* linux/signal.h's; glibc 2.36 does not define it */
#endif

static __thread int zt_alt_on __attribute__((tls_model("initial-exec")));
static __thread int prog_alt_on __attribute__((tls_model("initial-exec")));
static __thread unsigned char *alt_mine __attribute__((tls_model("initial-exec")));

enum { NEARLY = 64 };
static struct { volatile pid_t tid; unsigned char *alt; } early[NEARLY];
static int nearly, inited;

static pthread_key_t exit_key;
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *,
				  void *(*)(void *), void *);

struct zt_thread *zt_thread_self(void)
{
	return self;
}

/*
 * The mapping that holds addr, and the end of the one below it (0 if
 * none): -1 if not found. /proc/self/maps read through a small buffer on
 * the stack and parsed as it comes (a thread's stack may be small).
 */
static int maps_find(uintptr_t addr, uintptr_t *lo, uintptr_t *hi, uintptr_t *below)
{
	char buf[256];
	uint64_t v[2] = { 0, 0 };
	int field = 0, found = -1;	/* field: 0 start, 1 end, 2 the rest of the line */
	uintptr_t last = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (found < 0 && (n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n && found < 0; i++) {
			char c = buf[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

			if (c == '\n') {
				field = 0;
				v[0] = v[1] = 0;
			} else if (field == 2) {
				continue;
			} else if (c == '-' && field == 0) {
				field = 1;
			} else if (c == ' ' && field == 1) {
				field = 2;
				if (addr >= v[0] && addr < v[1]) {
					*lo = v[0];
					*hi = v[1];
					*below = last;
					found = 0;
				}
				last = v[1];
			} else if (d >= 0) {
				v[field] = v[field] << 4 | (uint64_t)d;
			} else {
				field = 2;	/* not a mapping's line */
			}
		}
	}
	zt_sys_close(fd);
	return found;
}

/*
 * The stack the calling thread runs on: as pthread_getattr_np says it, but
 * without its memory (it takes some from malloc, which sys.h keeps zt off).
 * A thread of pthread_create's: its stack's mapping in /proc/self/maps,
 * glibc's stack block less the guard (not PROCMAP_QUERY: under qemu-user
 * it answers for the emulator's own mappings, not the program's). The
 * initial thread (its mapping holds __libc_stack_end): up to the page after
 * __libc_stack_end, down by RLIMIT_STACK or to the mapping below.
 */
static void stack_bounds(struct zt_thread *t)
{
	extern void *__libc_stack_end;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0), end = (uintptr_t)__libc_stack_end;
	uintptr_t lo = 0, hi = 0, below = 0, page = 4096;

	t->stack_lo = t->stack_hi = 0;
	if (maps_find(here, &lo, &hi, &below) < 0)
		return;
	if (end >= lo && end < hi) {
		struct rlimit rl;
		uintptr_t size;

		if (getrlimit(RLIMIT_STACK, &rl) < 0)
			return;
		end = (end & ~(page - 1)) + page;
		size = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur < hi - end ? UINTPTR_MAX :
		       (uintptr_t)rl.rlim_cur - (hi - end);
		size &= ~(page - 1);
		if (size > end - below)
			size = end - below;
		hi = end;
		lo = end - size;
	}
	if (here >= lo && here < hi) {
		t->stack_lo = lo;
		t->stack_hi = hi;
	}
}

/* ZT_ALTSTACK bytes with a guard page below: an overflow faults instead of writing past. */
static unsigned char *alt_map(void)
{
	unsigned char *a = mmap(NULL, ZT_ALTSTACK + 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (a == MAP_FAILED)
		return NULL;
	if (mprotect(a, 4096, PROT_NONE) < 0) {
		munmap(a, ZT_ALTSTACK + 4096);
		return NULL;
	}
	return a + 4096;
}

/*
 * The bytes of one thread's mapping: the record, its zt_state.max_depth
 * frames (twice with --alloc: the handler's, alloc.c's) and its buffer of zt_state.buf_size (state.h). One size for the
 * whole run, since max_depth never changes after start: a slot is reused
 * as it is.
 */
static size_t record_front(void)
{
	size_t head = (sizeof(struct zt_thread) + 63) & ~(size_t)63;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (head + (zt_alloc_rate() ? 2 : 1) * (size_t)zt_state.max_depth * sizeof(uint64_t) +
		page - 1) / page * page;
}

/* The front, then the buffer's slot (spill.h): whole pages, for the file's mapping. */
static size_t record_size(void)
{
	return record_front() + zt_spill_slot_size(zt_state.buf_size);
}

/* A free slot, reused or newly mapped; NULL when all are taken. */
static struct zt_thread *claim_slot(void)
{
	struct zt_thread *t = NULL;
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	if (!zt_state.max_depth)
		return NULL;	/* the constructor did not start: no record size */

	for (int i = 0; i < n && !t; i++) {
		struct zt_thread *c = zt_state.threads[i];
		int zero = 0;

		if (c && !c->live && __atomic_compare_exchange_n(&c->live, &zero, 1, 0,
				__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			t = c;
	}
	if (!t) {
		int slot;

		size_t head = (sizeof *t + 63) & ~(size_t)63, size = record_size();

		t = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t == MAP_FAILED)
			return NULL;
		slot = __atomic_fetch_add(&zt_state.nthreads, 1, __ATOMIC_SEQ_CST);
		if (slot >= ZT_MAX_THREADS) {
			munmap(t, size);
			return NULL;
		}
		/* The frames first, 8-byte aligned after the record; the buffer's slot on the next page. */
		t->addr = (uint64_t *)((char *)t + head);
		t->alloc_addr = zt_alloc_rate() ? t->addr + zt_state.max_depth : t->addr;
		t->buf = (char *)t + record_front() + sizeof(struct zt_spill_head);
		t->spill = NULL;
		if (zt_spill_map(slot, (char *)t + record_front(), 0) == 0)
			t->spill = (struct zt_spill_head *)((char *)t + record_front());
		t->live = 1;
		__atomic_store_n(&zt_state.threads[slot], t, __ATOMIC_RELEASE);
	}
	if (!t->alt)
		t->alt = alt_map();
	t->perf_fd = -1;
	t->has_timer = 0;
	t->timer_gone = 0;
	t->len = 0;
	zt_spill_len(t);
	t->busy = 0;
	t->closed = 0;
	t->adopted = 0;
	t->alt_checked = 0;
	t->stack_lo = t->stack_hi = 0;
	t->end_ns = 0;
	t->cpu_n = 0;
	t->alloc_tl = NULL;
	return t;
}

static int raw_sigaltstack(const stack_t *ss, stack_t *old)
{
	return (int)zt_sys_call(SYS_sigaltstack, (long)ss, (long)old, 0, 0, 0, 0);
}

/*
 * Make alt the calling thread's alternate stack unless it has one already
 * (then the program's, kept): whether zt's is on now. Async-signal-safe.
 */
static int alt_set(unsigned char *alt, int *prog_on)
{
	stack_t cur, ss;

	if (!alt || raw_sigaltstack(NULL, &cur) < 0)
		return 0;
	if (!(cur.ss_flags & SS_DISABLE)) {
		*prog_on = 1;	/* set before zt started (a constructor): it stays */
		return 0;
	}
	ss.ss_sp = alt;
	ss.ss_size = ZT_ALTSTACK;
	ss.ss_flags = 0;
	return raw_sigaltstack(&ss, NULL) == 0;
}

/* Give the calling thread zt's alternate stack, unless it has one already. */
static void alt_install(struct zt_thread *t)
{
	if (!t->alt)
		return;
	alt_mine = t->alt;
	zt_alt_on = alt_set(t->alt, &prog_alt_on);
}

/* In a thread started before zt's constructor: a stack of its own, remembered for its adoption. */
static void alt_early(void)
{
	int i = __atomic_fetch_add(&nearly, 1, __ATOMIC_SEQ_CST);
	unsigned char *a = i < NEARLY ? alt_map() : NULL;

	if (!a)
		return;
	alt_mine = a;
	zt_alt_on = alt_set(a, &prog_alt_on);
	early[i].alt = a;
	__atomic_store_n(&early[i].tid, zt_sys_gettid(), __ATOMIC_RELEASE);
}

/* The stack alt_early gave thread tid; NULL if none. */
static unsigned char *alt_early_of(pid_t tid)
{
	int n = nearly < NEARLY ? nearly : NEARLY;

	for (int i = 0; i < n; i++)
		if (__atomic_load_n(&early[i].tid, __ATOMIC_ACQUIRE) == tid)
			return early[i].alt;
	return NULL;
}

void zt_thread_alt_adopted(struct zt_thread *t, ucontext_t *uc)
{
	/* rt_sigreturn sets the stack the context holds, so a sigaltstack
	 * call here would be undone: the context is what is changed. Its TLS
	 * may be another thread's (a raw clone's): nothing is kept there. */
	if (__atomic_exchange_n(&t->alt_checked, 1, __ATOMIC_SEQ_CST) || !t->alt ||
	    !(uc->uc_stack.ss_flags & SS_DISABLE))
		return;
	uc->uc_stack.ss_sp = t->alt;
	uc->uc_stack.ss_size = ZT_ALTSTACK;
	uc->uc_stack.ss_flags = 0;
}

/* The calling thread gives zt's stack back (before its slot can be reused). */
static void alt_remove(struct zt_thread *t)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (!zt_alt_on)
		return;
	if (raw_sigaltstack(&ss, NULL) < 0)
		t->alt = NULL;	/* still in use (never here: not called in a handler): not reused */
	zt_alt_on = 0;
	alt_mine = NULL;
}

int zt_thread_on_alt(const struct zt_thread *t, uintptr_t sp)
{
	return t->alt && sp >= (uintptr_t)t->alt && sp < (uintptr_t)t->alt + ZT_ALTSTACK;
}

/*
 * The program's sigaltstack. Its view is what it set: no stack until it
 * sets one (zt's is not shown), then its own, for real.
 */
ZT_INTERPOSE int sigaltstack(const stack_t *ss, stack_t *old)
{
	stack_t none = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };

	if (!zt_alt_on && !prog_alt_on)
		return raw_sigaltstack(ss, old);
	if (prog_alt_on) {
		if (!ss || !(ss->ss_flags & SS_DISABLE))
			return raw_sigaltstack(ss, old);
		if (raw_sigaltstack(ss, old) < 0)
			return -1;	/* EPERM while on it, as without zt */
		prog_alt_on = 0;
		if (alt_mine)
			zt_alt_on = alt_set(alt_mine, &prog_alt_on);
		return 0;
	}
	/* zt's is installed: the program has none. */
	if (ss && !(ss->ss_flags & SS_DISABLE)) {
		if (raw_sigaltstack(ss, NULL) < 0)
			return -1;	/* EINVAL, ENOMEM as the kernel says */
		zt_alt_on = 0;
		prog_alt_on = 1;
	} else if (ss && (ss->ss_flags & ~SS_AUTODISARM) != SS_DISABLE) {
		errno = EINVAL;
		return -1;
	}
	if (old)
		*old = none;
	return 0;
}

/*
 * A record for the calling thread. Called outside signal context. NULL when
 * all slots are taken.
 */
struct zt_thread *zt_thread_attach(void)
{
	struct zt_thread *t = claim_slot();

	if (!t)
		return NULL;
	t->tid = zt_sys_gettid();
	zt_offcpu_thread_moved(t);	/* the sampler's next tick finds it */
	stack_bounds(t);
	alt_install(t);
	self = t;
	return t;
}

/*
 * Threads already running when sampling starts (started by a library's
 * constructor, before zt's) did not come through pthread_create here. They
 * get a record and a perf counter from outside; their handler finds the
 * record by the counter's descriptor, and their stack by the mapping that
 * holds their stack pointer, from the maps read now. (The POSIX timer can
 * only be armed by the thread itself: with it they go unsampled, counted.)
 */
static struct { uintptr_t start, end; } ranges[1024];
static int nranges;

static void read_ranges(void)
{
	static char buf[256 * 1024];
	size_t len = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	const char *p, *end;

	if (fd < 0)
		return;
	while (len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	zt_sys_close(fd);
	buf[len] = '\0';
	for (p = buf, end = buf + len; p < end && nranges < 1024;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q;
		uint64_t a, b;

		if (!nl)
			break;
		q = zt_hex(p, nl, &a);
		if (q && *q == '-' && (q = zt_hex(q + 1, nl, &b))) {
			p = q;
			/* Only writable private mappings can be thread stacks. */
			if (p + 3 < nl && p[1] == 'r' && p[2] == 'w' && p[4] == 'p') {
				ranges[nranges].start = a;
				ranges[nranges].end = b;
				nranges++;
			}
		}
		p = nl + 1;
	}
}

/* The record of an adopted thread, by its counter's descriptor. */
struct zt_thread *zt_thread_by_fd(int fd)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (t && t->adopted && t->live && t->perf_fd == fd)
			return t;
	}
	return NULL;
}

/* For the handler: the stack of an adopted thread, from its sp. */
void zt_thread_find_stack(struct zt_thread *t, uintptr_t sp)
{
	for (int i = 0; i < nranges; i++)
		if (sp >= ranges[i].start && sp < ranges[i].end) {
			t->stack_lo = ranges[i].start;
			t->stack_hi = ranges[i].end;
			return;
		}
}

/*
 * The next entry's name of the directory open on fd (getdents64 into buf,
 * *at and *len its state: opendir would take memory from malloc); NULL at
 * the end.
 */
static const char *next_entry(int fd, char *buf, size_t size, size_t *at, size_t *len)
{
	struct ent { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; };
	const struct ent *e;

	if (*at >= *len) {
		long n = syscall(SYS_getdents64, fd, buf, size);

		if (n <= 0)
			return NULL;
		*at = 0;
		*len = (size_t)n;
	}
	e = (const struct ent *)(buf + *at);
	*at += e->reclen;
	return e->name;
}

void zt_thread_adopt_running(void)
{
	pid_t me = zt_sys_gettid();
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_Alignas(8) char buf[2048];
	size_t at = 0, len = 0;
	const char *name;

	if (dir < 0)
		return;
	read_ranges();
	while ((name = next_entry(dir, buf, sizeof buf, &at, &len))) {
		pid_t tid = (pid_t)strtol(name, NULL, 10);
		struct zt_thread *t;
		unsigned char *early_alt;

		if (tid <= 0 || tid == me || zt_offcpu_is_sampler(tid))
			continue;
		if (zt_state.timer != ZT_TIMER_PERF || !(t = claim_slot())) {
			__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
			continue;
		}
		t->tid = tid;
		t->adopted = 1;
		zt_offcpu_thread_moved(t);
		if ((early_alt = alt_early_of(tid))) {
			/* Its own since its start: the slot's is not needed. */
			if (t->alt)
				munmap(t->alt - 4096, ZT_ALTSTACK + 4096);
			t->alt = early_alt;
			t->alt_checked = 1;
		}
		if (zt_timer_start(t) < 0) {
			t->live = 0;
			zt_offcpu_thread_moved(t);
			__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
		}
	}
	zt_sys_close(dir);
}

/* Remember the name of thread tid (from /proc) in the names table. */
void zt_thread_name_record(pid_t tid)
{
	char path[64] = "/proc/self/task/", name[32];
	uint32_t i;
	ssize_t len = 0;
	int fd;

	*zt_fmt_u64(path + strlen(path), (uint64_t)tid, 10) = '\0';
	strcat(path, "/comm");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, name, sizeof name - 1);
		zt_sys_close(fd);
	}
	if (len <= 0)
		return;
	while (len > 0 && name[len - 1] == '\n')
		len--;
	if (len > 15)
		len = 15;
	i = __atomic_fetch_add(&zt_state.nnames, 1, __ATOMIC_SEQ_CST);
	if (i >= ZT_MAX_NAMES)
		return;
	zt_state.names[i].tid = tid;
	memcpy(zt_state.names[i].name, name, (size_t)len);
	zt_state.names[i].name[len] = '\0';
}

/* Whether fd is the sampling counter of one of zt's threads. */
int zt_thread_counter_is_ours(int fd)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	for (int i = 0; fd >= 0 && i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (t && t->live && t->perf_fd == fd)
			return 1;
	}
	return 0;
}

/* The calling thread is done: stop its timer, flush, free its slot. */
void zt_thread_close(struct zt_thread *t)
{
	zt_timer_stop(t);
	if (self == t)
		zt_offcpu_thread_end(t);
	if (self == t)
		zt_sigmask_thread_end(t);
	if (!__atomic_exchange_n(&t->closed, 1, __ATOMIC_SEQ_CST)) {
		zt_thread_name_record(t->tid);
		zt_store_flush(t);
	}
	if (self == t) {
		zt_alloc_thread_end(t);
		alt_remove(t);
		self = NULL;
	}
	__atomic_store_n(&t->live, 0, __ATOMIC_RELEASE);
	zt_offcpu_thread_moved(t);
}

static void on_thread_exit(void *p)
{
	if (zt_state_owner())
		zt_thread_close(p);
}

struct start {
	void *(*fn)(void *);
	void *arg;
	int hidden;	/* the creator hid zt's signal from its mask: so does the thread */
	int early;	/* made before zt's constructor ran, in a process zt will sample */
	int used;	/* a slot of starts[] taken; 0 in a page mapped for it alone */
};

/*
 * What a new thread is handed, from a pool of zt's own, not malloc (sys.h:
 * a free in a thread that never used malloc would make it an arena); a
 * page of its own when every slot waits for its thread to start.
 */
enum { NSTARTS = 64 };
static struct start starts[NSTARTS];

static struct start *start_take(void)
{
	for (int i = 0; i < NSTARTS; i++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&starts[i].used, &zero, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return &starts[i];
	}
	{
		struct start *s = zt_sys_map(sizeof *s);

		return s == MAP_FAILED ? NULL : s;
	}
}

static void start_give(struct start *s)
{
	if (s->used)
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	else
		zt_sys_unmap(s, sizeof *s);
}

static __attribute__((section(ZT_HANDOVER_SECTION))) void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	struct zt_thread *t;

	start_give(p);
	if (s.early) {
		alt_early();
		return s.fn(s.arg);
	}
	zt_sigmask_thread_start(s.hidden);
	if (zt_state_owner() && __atomic_load_n(&zt_state.active, __ATOMIC_ACQUIRE) &&
	    zt_state.seccomp != ZT_SECCOMP_NO_TIMERS && (t = zt_thread_attach())) {
		if (zt_timer_start(t) == 0) {
			pthread_setspecific(exit_key, t);
		} else {
			zt_thread_close(t);
			__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
		}
	} else if (zt_state_owner() && __atomic_load_n(&zt_state.active, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
	}
	return s.fn(s.arg);
}

/*
 * Before zt's constructor: whether it will sample this process (prof.c's
 * test of zt-collect's environment, which it cannot have read yet).
 */
static int will_sample(void)
{
	const char *pid = getenv(ZT_ENV_PID), *follow = getenv(ZT_ENV_FOLLOW);

	return getenv(ZT_ENV_OUT) && pid &&
	       ((pid_t)strtol(pid, NULL, 10) == getpid() || (follow && strcmp(follow, ZT_ENV_ON) == 0));
}

ZT_INTERPOSE int pthread_create(pthread_t *th, const pthread_attr_t *attr,
				void *(*fn)(void *), void *arg)
{
	struct start *s;
	int early, rc;

	if (!real_pthread_create)
		real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!real_pthread_create)
		return EAGAIN;
	early = !__atomic_load_n(&inited, __ATOMIC_ACQUIRE) && will_sample();
	if (!zt_state_owner() && !early)
		return real_pthread_create(th, attr, fn, arg);
	if (!early)
		zt_snap_if_stale();
	s = start_take();
	if (!s)
		return EAGAIN;
	s->fn = fn;
	s->arg = arg;
	s->early = early;
	s->hidden = early ? 0 : zt_sigmask_hidden();
	rc = real_pthread_create(th, attr, trampoline, s);
	if (rc != 0)
		start_give(s);
	return rc;
}

/*
 * dlsym: a library that finds pthread_create with dlsym(RTLD_NEXT, ...)
 * (jemalloc does, for its background threads) would bypass zt's wrapper,
 * and its threads would run unsampled. For that name, the definition found
 * is zt's wrapper when it is the one the wrapper calls; every other lookup
 * is passed on as a tail call (a jump: tests/0116 checks RTLD_NEXT), so the
 * loader sees the program's own return address and RTLD_NEXT means what it
 * meant. The lookup of pthread_create is made from zt's place in the search
 * order: an interposer loaded between zt and the caller is found, not
 * skipped. zt's own lookups (its threads must not be sampled) are passed
 * on. dlvsym is not interposed.
 */
static void *(*real_dlsym)(void *, const char *);

/*
 * zt's own pthread_create, by a hidden alias: its address taken through
 * the exported name would be the first definition in the search order (a
 * sanitizer's interceptor, loaded before zt), and an ASan build handed that
 * for its own next pthread_create called itself until its stack ran out.
 */
extern __typeof(pthread_create) zt_own_pthread_create
	__attribute__((alias("pthread_create"), visibility("hidden"), nothrow));

static void find_real_dlsym(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };

	for (size_t i = 0; !real_dlsym && i < sizeof versions / sizeof *versions; i++)
		*(void **)&real_dlsym = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
}

/* Whether a return address lies in the object that holds code at. */
static int same_object(const void *ra, const void *at)
{
	Dl_info caller, own;

	return at && dladdr(ra, &caller) && dladdr(at, &own) &&
	       caller.dli_fbase == own.dli_fbase;
}

/* Whether a return address lies in zt's own object. */
static int from_zt(const void *ra)
{
	return same_object(ra, (const void *)find_real_dlsym);
}

/*
 * Whether name is "pthread_create", compared here: a sanitizer's runtime
 * calls dlsym to find what it intercepts before its own strcmp can run
 * (ASan's interceptor jumps to the real strcmp, not yet found: address 0).
 */
static int is_pthread_create(const char *name)
{
	static const char want[] = "pthread_create";
	size_t i = 0;

	while (i < sizeof want && name[i] == want[i])
		i++;
	return i == sizeof want;
}

ZT_INTERPOSE void *dlsym(void *handle, const char *name)
{
	/* dlsym's name is declared non-null; a program may pass NULL all the same. */
	const char *asked = name;

	__asm__("" : "+r"(asked));
	if (!real_dlsym)
		find_real_dlsym();
	if (asked && is_pthread_create(asked) &&
	    !from_zt(__builtin_return_address(0))) {
		void *p;

		if (!real_pthread_create)
			*(void **)&real_pthread_create = real_dlsym(RTLD_NEXT, "pthread_create");
		/*
		 * The caller is the definition zt's wrapper calls (TSan's
		 * runtime, loaded after zt, looking for the one after its own):
		 * answered as asked, or the two would call each other.
		 */
		if (!same_object(__builtin_return_address(0), *(void **)&real_pthread_create)) {
			p = real_dlsym(handle, name);
			if (p && p == *(void **)&real_pthread_create)
				return (void *)zt_own_pthread_create;
			return p;
		}
	}
	return real_dlsym(handle, name);
}

/*
 * A thread made with clone(2) itself, not pthread_create (glibc's own
 * threads and forks use its internal clone, not this one): zt cannot give
 * it a timer (it may share its creator's TLS), so it is counted as
 * unsampled; its CPU time is in the dump's unsampled-cpu-ns, with that of
 * threads made by a clone system call zt never sees.
 */
ZT_INTERPOSE int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	static int (*real_clone)(int (*)(void *), void *, int, void *, ...);
	va_list ap;
	pid_t *ptid, *ctid;
	void *tls;

	/* glibc's wrapper reads all three too, whatever flags says. */
	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real_clone)
		*(void **)&real_clone = dlsym(RTLD_NEXT, "clone");
	if (!real_clone) {
		errno = ENOSYS;
		return -1;
	}
	if ((flags & CLONE_THREAD) && zt_state_owner())
		__atomic_fetch_add(&zt_state.unsampled, 1, __ATOMIC_RELAXED);
	return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
}

/*
 * In a forked child nothing is sampled any more: timers are not inherited.
 * The child's copy of the parent's buffers is dropped. With ZT_FOLLOW the
 * child starts a dump of its own, FILE.PID.
 */
static void after_fork_child(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	zt_state_pid_cache = getpid();
	if (zt_state.dump.fd < 0)
		return;
	__atomic_store_n(&zt_state.active, 0, __ATOMIC_SEQ_CST);
	zt_offcpu_after_fork();
	if (!zt_state.follow)
		zt_sigmask_reveal();
	/* The parent's dump stays the parent's: only the copies are closed. */
	zt_files_close(&zt_state.dump);
	zt_files_close(&zt_state.maps);
	zt_spill_after_fork();
	zt_state.fd_lost = 0;
	zt_state.fd_reopened = 0;
	zt_state.write_errno = 0;
	zt_state.sigprof_blocked = 0;
	zt_state.timers_lost = 0;
	zt_state.unsampled_cpu_ns = 0;
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		/* The parent's perf fds are copies: closing them here is harmless. */
		if (t && t->perf_fd >= 0)
			zt_sys_close(t->perf_fd);
		if (t) {
			t->perf_fd = -1;
			t->has_timer = 0;
			t->timer_gone = 0;	/* the child's own timers may reuse the id */
			t->live = 0;
		}
	}
	/* The parent's stack of zt's, copied: given back, the slot may go to another thread. */
	if (zt_alt_on) {
		stack_t off = { .ss_flags = SS_DISABLE };

		raw_sigaltstack(&off, NULL);
		zt_alt_on = 0;
	}
	alt_mine = NULL;
	self = NULL;
	zt_state.samples = 0;
	zt_state.perf_fds = 0;
	zt_state.timer_fallback = 0;
	zt_state.sampled_cpu_ns = 0;
	zt_state.sampled_user_ns = zt_state.sampled_sys_ns = 0;
	zt_state.unsampled = 0;
	zt_state.truncated = 0;
	zt_state.partial = 0;
	memset((void *)zt_state.lost, 0, sizeof zt_state.lost);
	zt_state.nnames = 0;
	zt_state.exec_path[0] = '\0';
	/* Under a filter the child's new dump could be refused: not followed. */
	if (zt_state.follow && zt_state.seccomp == ZT_SECCOMP_NONE) {
		if (zt_prof_begin() == 0)
			zt_prof_arm();
	}
	else
		zt_intercept_signals_release();
}

void zt_thread_init(void)
{
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	pthread_key_create(&exit_key, on_thread_exit);
	pthread_atfork(NULL, NULL, after_fork_child);
	__atomic_store_n(&inited, 1, __ATOMIC_RELEASE);
}
