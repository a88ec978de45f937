/*
 * alloc.c — allocation samples, zt-collect --alloc[=BYTES] (formats/raw.md,
 * "Version 6").
 *
 * The allocator's entry points are interposed by being preloaded (malloc,
 * calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc, malloc_usable_size; C++'s operator new and
 * delete reach them through libstdc++), and each passes to the next
 * definition (RTLD_NEXT: glibc's, or an allocator preloaded after zt).
 * The program's anonymous mappings of at least the allocator's mmap
 * threshold (intercept.c's mmap and munmap) count as allocations too.
 *
 * The bytes handed out are sampled as a Poisson process of mean `rate`
 * bytes, as jemalloc and Go sample: each thread counts down the bytes to
 * its next sample point (a thread-local countdown and a compare is all an
 * unsampled call costs), so a block of s bytes is sampled with
 * probability 1 - exp(-s/rate), and weighs s / (1 - exp(-s/rate)) bytes.
 *
 * A sampled allocation is walked from here with the CPU samples' unwinder
 * (zt's own frames dropped), written to its thread's buffer as a "$a" line,
 * and, while it lives, kept in a table of live sampled blocks (address to
 * size, time, thread and stack), so that free retires it. The end (and
 * each snapshot) writes the table as "$i" lines, and the blocks live at
 * the peak of sampled live bytes as "$p" lines: those still live, and those
 * freed since the peak, kept aside for it.
 *
 * The table is read without a lock by free (most frees are of blocks
 * never sampled, and find an empty slot at once), and changed under a
 * spin lock held with every signal blocked, so that a handler that frees
 * cannot deadlock on it; a rebuild, rare, moves entries, and bumps a
 * sequence count that makes a reader that overlapped it look again under
 * the lock. Its memory is mapped at start, never malloc's: bounded, and
 * touched only where used.
 */
#include "alloc.h"
#include "allochook.h"
#include "arch.h"
#include "dump.h"
#include "files.h"
#include "fmt.h"
#include "launch.h"
#include "prof.h"
#include "rawfmt.h"
#include "store.h"
#include "tables.h"
#include "thread.h"
#include "unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
	SLOTS = 1 << 16,	/* the live table: at most half of it live */
	GRAVE = 1 << 14,	/* blocks live at the peak and freed since */
	STACKS = 1 << 15,	/* distinct stacks kept */
	STACK_WORDS = 1 << 19,	/* their addresses */
	BOOT = 64 * 1024,	/* memory for calls made while the real functions are found */
};

#define TOMB ((uintptr_t)1)	/* a slot whose block was freed */

/* A sampled block. */
#define block zt_alloc_block	/* allochook.h: stack is an index in stacks[], or STACKS */

struct stack {
	uint32_t at, n;		/* words[at..at+n) */
	uint32_t end, hash;	/* end: the line's last mark (0, '-', '+') */
};

static uint64_t rate;		/* 0: off */

static struct {
	volatile int lock;
	volatile unsigned version;	/* odd while a rebuild moves entries */
	uintptr_t *keys;		/* SLOTS: 0 empty, TOMB, or a block's address */
	struct block *blocks;		/* SLOTS */
	uint32_t used;			/* slots not empty (zt_alloc_nlive: holding a block) */
	uint64_t live_bytes, seq;	/* estimated bytes live; sampled blocks so far */
	uint64_t peak_bytes, peak_seq, peak_ns;	/* the peak: blocks of seq <= peak_seq then */
	struct block *grave;		/* GRAVE: live at the peak, freed since */
	uint32_t ngrave;
	int peak_short;			/* the grave overflowed: the peak lines miss some */
	struct stack *stacks;		/* STACKS */
	uint32_t *stack_index;		/* 2 * STACKS: 1 + an index in stacks[], or 0 */
	uint64_t *words;		/* STACK_WORDS */
	uint32_t nstacks, nwords;
	uint64_t samples, untracked, lost;
} tab;

/* libzt-prof.so and libzt-alloc.so: their frames are dropped from a walk. */
static uintptr_t own_lo, own_hi, shim_lo, shim_hi;

ZT_EXPORT volatile uint32_t zt_alloc_nlive;

/* The code of the object that serves the allocations: its own mmap calls are its business. */
static uintptr_t next_lo, next_hi, next_base;

/* Per thread: a sample under way, and the countdown of the mmap calls (intercept.c). */
static __thread int inside __attribute__((tls_model("initial-exec")));
static __thread struct zt_alloc_tls mapped_tl __attribute__((tls_model("initial-exec")));

/* Block every signal: zt's handler must not run into a line being
   written, nor a handler that frees into the lock. */
static void block_all(sigset_t *was)
{
	sigset_t all;

	sigfillset(&all);
	zt_sys_call(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)was, 8, 0, 0);
}

static void restore(const sigset_t *was)
{
	zt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)was, 0, 8, 0, 0);
}

static void spin_lock(void)
{
	while (__atomic_exchange_n(&tab.lock, 1, __ATOMIC_ACQUIRE))
		zt_arch_pause();
}

static void spin_unlock(void)
{
	__atomic_store_n(&tab.lock, 0, __ATOMIC_RELEASE);
}

static void lock(sigset_t *was)
{
	block_all(was);
	spin_lock();
}

static void unlock(const sigset_t *was)
{
	spin_unlock();
	restore(was);
}

static uint32_t slot_of(uintptr_t p)
{
	return (uint32_t)(((uint64_t)(p >> 4) * 0x9E3779B97F4A7C15ull) >> 48) & (SLOTS - 1);
}

/* The bytes a sample of size bytes stands for. */
static uint64_t weight_of(uint64_t size)
{
	double w = (double)size / -expm1(-(double)size / (double)rate);

	return w < (double)size ? size : w >= 1.8e19 ? UINT64_MAX : (uint64_t)(w + 0.5);
}

/* The next sample point, in bytes from here: exponential, of mean rate. */
static int64_t draw(struct zt_alloc_tls *tl)
{
	uint64_t x = tl->rng;
	double u, d;

	if (!x)
		x = (uint64_t)zt_sys_gettid() * 0x9E3779B97F4A7C15ull ^
		    zt_sys_clock_ns(CLOCK_MONOTONIC) ^ (uintptr_t)tl;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	tl->rng = x ? x : 1;
	u = (double)(((x * 0x2545F4914F6CDD1Dull) >> 11) + 1) * 0x1p-53;	/* (0, 1] */
	d = -log(u) * (double)rate;
	return d >= 9e18 ? INT64_MAX : (int64_t)d + 1;
}

/* The slot holding p under the lock, or -1. */
static int find(uintptr_t p)
{
	for (uint32_t i = slot_of(p), k = 0; k < SLOTS; i = (i + 1) & (SLOTS - 1), k++) {
		if (tab.keys[i] == p)
			return (int)i;
		if (!tab.keys[i])
			return -1;
	}
	return -1;
}

/*
 * Whether p may be a sampled block, without the lock: 0 only when it is
 * surely not (the caller then leaves the table alone).
 */
static int maybe_tracked(uintptr_t p)
{
	unsigned v;
	int found = 0;

	if (!__atomic_load_n(&zt_alloc_nlive, __ATOMIC_RELAXED))
		return 0;
	v = __atomic_load_n(&tab.version, __ATOMIC_ACQUIRE);
	if (v & 1)
		return 1;
	for (uint32_t i = slot_of(p), k = 0; k < SLOTS; i = (i + 1) & (SLOTS - 1), k++) {
		uintptr_t key = __atomic_load_n(&tab.keys[i], __ATOMIC_RELAXED);

		if (key == p) {
			found = 1;
			break;
		}
		if (!key)
			break;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return found || __atomic_load_n(&tab.version, __ATOMIC_RELAXED) != v;
}

/* Memory of zt's own, by the system call: not the program's mapping (intercept.c). */
static void *map(size_t bytes)
{
	long p = zt_sys_call(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == -1 ? NULL : (void *)p;
}

/* Entries move: a reader that overlaps this looks again under the lock. */
static void rebuild(void)
{
	size_t bytes = (size_t)zt_alloc_nlive * (sizeof(uintptr_t) + sizeof(struct block));
	uintptr_t *keys;
	struct block *blocks;
	uint32_t n = 0;

	if (!bytes)
		bytes = 1;
	keys = map(bytes);
	if (!keys)
		return;
	blocks = (struct block *)(keys + zt_alloc_nlive);
	for (uint32_t i = 0; i < SLOTS; i++)
		if (tab.keys[i] > TOMB) {
			keys[n] = tab.keys[i];
			blocks[n++] = tab.blocks[i];
		}
	__atomic_store_n(&tab.version, tab.version + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < SLOTS; i++)
		__atomic_store_n(&tab.keys[i], 0, __ATOMIC_RELAXED);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = slot_of(keys[j]);

		while (tab.keys[i])
			i = (i + 1) & (SLOTS - 1);
		tab.blocks[i] = blocks[j];
		__atomic_store_n(&tab.keys[i], keys[j], __ATOMIC_RELAXED);
	}
	tab.used = n;
	__atomic_store_n(&tab.version, tab.version + 1, __ATOMIC_RELEASE);
	zt_sys_call(SYS_munmap, (long)keys, (long)bytes, 0, 0, 0, 0);
}

/* Take slot i's block out of the table (under the lock). */
static void retire(uint32_t i)
{
	struct block *b = &tab.blocks[i];

	__atomic_store_n(&tab.keys[i], TOMB, __ATOMIC_RELEASE);
	zt_alloc_nlive--;
	tab.live_bytes -= weight_of(b->size);
	if (b->seq <= tab.peak_seq) {
		if (tab.ngrave < GRAVE)
			tab.grave[tab.ngrave++] = *b;
		else
			tab.peak_short = 1;
	}
}

/* p was freed (or unmapped, or moved by realloc): retire it if it was sampled. */
static void forget(void *p)
{
	sigset_t was;
	int i;

	if (!p || !tab.keys || !maybe_tracked((uintptr_t)p))
		return;
	lock(&was);
	i = find((uintptr_t)p);
	if (i >= 0)
		retire((uint32_t)i);
	unlock(&was);
}

/* The index of addr[0..n)'s stack in stacks[], kept if new; STACKS when there is no room. */
static uint32_t intern(const uint64_t *addr, uint32_t n, uint32_t end)
{
	uint32_t h = 2166136261u ^ end, i;

	for (uint32_t k = 0; k < n; k++)
		h = (h ^ (uint32_t)(addr[k] ^ addr[k] >> 32)) * 16777619u;
	for (i = h & (2 * STACKS - 1); tab.stack_index[i]; i = (i + 1) & (2 * STACKS - 1)) {
		const struct stack *s = &tab.stacks[tab.stack_index[i] - 1];

		if (s->hash == h && s->n == n && s->end == end &&
		    memcmp(tab.words + s->at, addr, n * sizeof *addr) == 0)
			return tab.stack_index[i] - 1;
	}
	if (tab.nstacks >= STACKS || n > STACK_WORDS - tab.nwords)
		return STACKS;
	memcpy(tab.words + tab.nwords, addr, n * sizeof *addr);
	tab.stacks[tab.nstacks] = (struct stack){ tab.nwords, n, end, h };
	tab.nwords += n;
	tab.stack_index[i] = ++tab.nstacks;
	return tab.nstacks - 1;
}

/* Keep a sampled block (under the lock). */
static void track(uintptr_t p, const struct block *b)
{
	int tomb = -1;
	uint32_t i = slot_of(p);

	if (zt_alloc_nlive >= SLOTS / 2) {
		tab.untracked++;
		return;
	}
	if (tab.used >= SLOTS / 4 * 3)
		rebuild();
	for (uint32_t k = 0; k < SLOTS && tab.keys[i]; i = (i + 1) & (SLOTS - 1), k++) {
		if (tab.keys[i] == p) {
			/* Freed by a path zt does not see (glibc's own free of
			   a block it handed out): that block is gone. */
			retire(i);
			tomb = (int)i;
			break;
		}
		if (tab.keys[i] == TOMB && tomb < 0)
			tomb = (int)i;
	}
	if (tomb >= 0)
		i = (uint32_t)tomb;
	else
		tab.used++;
	tab.blocks[i] = *b;
	__atomic_store_n(&tab.keys[i], p, __ATOMIC_RELEASE);
	__atomic_store_n(&zt_alloc_nlive, zt_alloc_nlive + 1, __ATOMIC_RELAXED);
	tab.live_bytes += weight_of(b->size);
	if (tab.live_bytes > tab.peak_bytes) {
		tab.peak_bytes = tab.live_bytes;
		tab.peak_seq = b->seq;
		tab.peak_ns = b->when;
		tab.ngrave = 0;
		tab.peak_short = 0;
	}
}

static int zt_own(uintptr_t a)
{
	return (a >= own_lo && a < own_hi) || (a >= shim_lo && a < shim_hi);
}

ZT_EXPORT void zt_alloc_shim(uintptr_t lo, uintptr_t hi)
{
	shim_lo = lo;
	shim_hi = hi;
}

/*
 * Walk the stack from here into t->alloc_addr and drop zt's own frames:
 * the first address left is the return address into the allocator's
 * caller, written less one (a byte of the call). How many are left.
 */
static __attribute__((noinline)) size_t walk(struct zt_thread *t, int *endmark)
{
	struct zt_regs r;
	const struct zt_cfi_set *set;
	enum zt_unwind_end end;
	uint64_t *a = t->alloc_addr;
	size_t n, k = 0;

	memset(&r, 0, sizeof r);
	ZT_ARCH_HERE(r.pc, r.sp, r.fp, r.x);
	if (t->adopted && !t->stack_hi)
		zt_thread_find_stack(t, r.sp);
	zt_prof_stacks_of(t, &r);
	set = zt_tables_enter();
	r.no_code = !zt_tables_code_readable();
	n = zt_unwind(&r, set, zt_state.unwind, a, zt_state.max_depth, &end);
	zt_tables_leave();
	while (k < n && zt_own(a[k] & ~ZT_UNWIND_EXACT))
		k++;
	if (k == n)
		return 0;
	memmove(a, a + k, (n - k) * sizeof *a);
	n -= k;
	a[0] = ((a[0] & ~ZT_UNWIND_EXACT) - 1);
	*endmark = zt_store_end_mark(end);
	return n;
}

/* Record the allocation of size bytes at p, drawn for a sample. */
static __attribute__((noinline)) void sampled(void *p, size_t size, struct zt_thread *t)
{
	sigset_t was;
	struct zt_store_line l = { .tid = t->tid, .count = 1, .weighed = 1,
				   .alloc = ZT_RAW_ALLOC_NEW, .size = size };
	struct block b;
	int endmark = 0;

	if (inside) {
		/* A handler's allocation while this thread samples one. */
		__atomic_fetch_add(&tab.lost, 1, __ATOMIC_RELAXED);
		return;
	}
	inside = 1;
	block_all(&was);
	/* Whoever ends the dump or takes a snapshot waits for busy (store.h). */
	__atomic_store_n(&t->busy, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&zt_state.active, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&zt_state.paused, __ATOMIC_SEQ_CST) && !t->closed) {
		l.n = walk(t, &endmark);
		l.when = zt_sys_clock_ns(CLOCK_MONOTONIC);
		if (l.n) {
			l.addr = t->alloc_addr;
			l.end = endmark;
			l.weight = weight_of(size);
			zt_store_alloc(t, &l);
		}
		spin_lock();
		if (!l.n) {
			tab.lost++;
		} else {
			tab.samples++;
			b.size = size;
			b.when = l.when;
			b.seq = ++tab.seq;
			b.tid = (uint32_t)t->tid;
			b.stack = intern(l.addr, (uint32_t)l.n, (uint32_t)endmark);
			track((uintptr_t)p, &b);
		}
		spin_unlock();
	}
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
	restore(&was);
	inside = 0;
}

/*
 * A thread's first call, or a sample point in size bytes at p: sampled when
 * sampling is on. The thread's counts are found through its record from now
 * on (zt_alloc_thread_end folds them in as it ends).
 */
static void took(void *p, size_t size, struct zt_alloc_tls *tl)
{
	struct zt_thread *t;
	int first = !tl->rng;

	if (!rate) {
		/* Before the constructor (or in a process zt leaves alone): asked again later. */
		tl->left = 65536;
		return;
	}
	t = zt_thread_self();
	if (t && t->alloc_tl != tl && tl != &mapped_tl)
		t->alloc_tl = tl;
	tl->left = draw(tl);
	if (first) {
		/* Its countdown starts now: this block holds a point with the
		   probability of any other. */
		tl->left -= (int64_t)(size < INT64_MAX ? size : INT64_MAX);
		if (tl->left > 0)
			return;
		tl->left = draw(tl);
	}
	if (!p || !__atomic_load_n(&zt_state.active, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&zt_state.paused, __ATOMIC_RELAXED))
		return;
	if (t)
		sampled(p, size, t);
}

ZT_EXPORT void zt_alloc_took(void *p, size_t size, struct zt_alloc_tls *tl)
{
	took(p, size, tl);
}

ZT_EXPORT void zt_alloc_freed(void *p)
{
	forget(p);
}

ZT_EXPORT int zt_alloc_unhook(void *old, struct zt_alloc_block *had)
{
	sigset_t set;
	int i = -1;

	if (!old || !tab.keys || !maybe_tracked((uintptr_t)old))
		return 0;
	lock(&set);
	i = find((uintptr_t)old);
	if (i >= 0) {
		*had = tab.blocks[i];
		retire((uint32_t)i);
	}
	unlock(&set);
	return i >= 0;
}

ZT_EXPORT void zt_alloc_rehook(void *old, const struct zt_alloc_block *had)
{
	sigset_t set;

	if (!tab.keys)
		return;
	lock(&set);
	track((uintptr_t)old, had);
	unlock(&set);
}

void zt_alloc_thread_end(struct zt_thread *t)
{
	struct zt_alloc_tls *tl = t->alloc_tl;

	if (!tl)
		return;
	t->alloc_calls += tl->calls;
	t->alloc_bytes += tl->bytes;
	tl->calls = tl->bytes = 0;
	t->alloc_tl = NULL;
}

/* glibc's default M_MMAP_THRESHOLD: a mapping this large is what malloc would have mapped. */
enum { MMAP_THRESHOLD = 128 * 1024 };

void zt_alloc_mapped(void *p, size_t len, const void *caller)
{
	struct zt_thread *t;

	/* zt's own mappings (its threads' records) are not the program's, nor
	   the allocator's (jemalloc maps its extents through the PLT). */
	if (!rate || len < MMAP_THRESHOLD || p == MAP_FAILED || zt_own((uintptr_t)caller) ||
	    ((uintptr_t)caller >= next_lo && (uintptr_t)caller < next_hi))
		return;
	t = zt_thread_self();
	if (t) {
		t->alloc_calls++;
		t->alloc_bytes += len;
	}
	if ((mapped_tl.left -= (int64_t)(len < INT64_MAX ? len : INT64_MAX)) <= 0)
		took(p, len, &mapped_tl);
}

void zt_alloc_unmapped(void *p, size_t len)
{
	(void)len;
	forget(p);
}

/* Block b's "$KIND" line, at fd (under the lock: line is the end's alone). */
static void put_block(int fd, const struct block *b, char kind)
{
	static char line[24 + 22 + ZT_DEPTH_MAX * 18 + 3 + ZT_LINE_WALL];
	const struct stack *s = b->stack < STACKS ? &tab.stacks[b->stack] : NULL;
	struct zt_store_line l = { .tid = (pid_t)b->tid, .count = 1, .when = b->when,
				   .weighed = 1, .weight = weight_of(b->size),
				   .alloc = kind, .size = b->size };

	if (!s)
		return;
	l.addr = tab.words + s->at;
	l.n = s->n;
	l.end = (int)s->end;
	zt_files_write_all(fd, line, (size_t)(zt_store_line(line, &l) - line));
}

/* Take the lock at the end, where another thread may hold it a while; 0 if it never came. */
static int lock_end(sigset_t *was)
{
	sigset_t all;

	sigfillset(&all);
	zt_sys_call(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)was, 8, 0, 0);
	for (long spin = 0; spin < 100000000L; spin++)
		if (!__atomic_exchange_n(&tab.lock, 1, __ATOMIC_ACQUIRE))
			return 1;
	zt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)was, 0, 8, 0, 0);
	return 0;
}

static uint64_t end_inuse_bytes;
static int end_written;

static void put_samples(int fd)
{
	sigset_t was;

	end_written = 0;
	if (!rate || !tab.keys || !lock_end(&was))
		return;
	end_inuse_bytes = tab.live_bytes;
	for (uint32_t i = 0; i < SLOTS; i++)
		if (tab.keys[i] > TOMB)
			put_block(fd, &tab.blocks[i], ZT_RAW_ALLOC_INUSE);
	for (uint32_t i = 0; i < SLOTS; i++)
		if (tab.keys[i] > TOMB && tab.blocks[i].seq <= tab.peak_seq)
			put_block(fd, &tab.blocks[i], ZT_RAW_ALLOC_PEAK);
	for (uint32_t i = 0; i < tab.ngrave; i++)
		put_block(fd, &tab.grave[i], ZT_RAW_ALLOC_PEAK);
	end_written = 1;
	unlock(&was);
}

/* The calls and bytes of every thread so far: ended ones' and live ones'. */
static void totals(uint64_t *calls, uint64_t *bytes)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	*calls = *bytes = 0;
	for (int i = 0; i < n; i++) {
		const struct zt_thread *t = zt_state.threads[i];
		const struct zt_alloc_tls *tl = t ? t->alloc_tl : NULL;

		if (t) {
			*calls += t->alloc_calls + (tl ? tl->calls : 0);
			*bytes += t->alloc_bytes + (tl ? tl->bytes : 0);
		}
	}
}

/* This dump's start: its counts are from here (a snapshot's successor starts anew). */
static uint64_t base_calls, base_bytes, base_samples;

static void allocator_named(void);

/*
 * The object whose malloc the program's calls reach, when it is not zt's
 * interposer (libzt-alloc.so): an ASan build's runtime, preloaded before
 * zt; an allocator linked into the executable; "" when zt's is reached.
 */
static char allocator[256];


static int next_extent(struct dl_phdr_info *info, size_t size, void *unused)
{
	(void)size;
	(void)unused;
	if (info->dlpi_addr != next_base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (!next_hi || lo < next_lo)
			next_lo = lo;
		if (lo + ph->p_memsz > next_hi)
			next_hi = lo + ph->p_memsz;
	}
	return 1;
}

static void allocator_find(void)
{
	void *(*next)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "zt_alloc_next_malloc");
	void *served = next ? next() : NULL;
	Dl_info where;

	if (served && dladdr(served, &where) && where.dli_fbase) {
		next_base = (uintptr_t)where.dli_fbase;
		dl_iterate_phdr(next_extent, NULL);
	}
	allocator_named();
}

static void allocator_named(void)
{
	void *reached = dlsym(RTLD_DEFAULT, "malloc"), *shim = dlsym(RTLD_DEFAULT, "zt_alloc_shim_malloc");
	Dl_info info;
	const char *name = "?";

	if (reached && reached == shim)
		return;
	if (!shim)
		name = "libzt-alloc.so not loaded";
	else if (reached && dladdr(reached, &info) && info.dli_fname && info.dli_fname[0])
		name = info.dli_fname;
	else if (reached)
		name = "the executable";
	strncpy(allocator, name, sizeof allocator - 1);
}

static void put_header(int fd)
{
	totals(&base_calls, &base_bytes);
	base_samples = tab.samples;
	zt_dump_put_key(fd, ZT_RAW_ALLOC_RATE, rate);
	if (allocator[0]) {
		zt_files_puts(fd, ZT_RAW_ALLOC_ALLOCATOR " ");
		zt_files_put_text(fd, allocator, strlen(allocator));
		zt_files_puts(fd, "\n");
	}
}

static void put_summary(int fd)
{
	uint64_t calls, bytes;

	totals(&calls, &bytes);
	zt_dump_put_key(fd, ZT_RAW_ALLOC_CALLS, calls - base_calls);
	zt_dump_put_key(fd, ZT_RAW_ALLOC_BYTES, bytes - base_bytes);
	zt_dump_put_key(fd, ZT_RAW_ALLOC_SAMPLES, tab.samples - base_samples);
	if (end_written) {
		zt_dump_put_key(fd, ZT_RAW_ALLOC_PEAK_BYTES, tab.peak_bytes);
		zt_dump_put_key(fd, ZT_RAW_ALLOC_PEAK_NS, tab.peak_ns > zt_state.start_ns ?
			tab.peak_ns - zt_state.start_ns : 0);
		zt_dump_put_key(fd, ZT_RAW_ALLOC_INUSE_BYTES, end_inuse_bytes);
	}
	if (tab.untracked)
		zt_dump_put_key(fd, ZT_RAW_ALLOC_UNTRACKED, tab.untracked);
	if (tab.lost)
		zt_dump_put_key(fd, ZT_RAW_ALLOC_LOST, tab.lost);
}

static sigset_t fork_mask;

static void fork_lock(void)
{
	if (tab.keys)
		lock(&fork_mask);
}

static void fork_parent(void)
{
	if (tab.keys)
		unlock(&fork_mask);
}

/* In a child the parent's blocks are not its allocations: its profile starts empty. */
static void fork_child(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	if (!tab.keys)
		return;
	memset(tab.keys, 0, SLOTS * sizeof *tab.keys);
	tab.used = zt_alloc_nlive = tab.ngrave = 0;
	tab.live_bytes = tab.peak_bytes = tab.peak_seq = tab.peak_ns = 0;
	tab.samples = tab.untracked = tab.lost = 0;
	tab.peak_short = 0;
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (t) {
			/* The forking thread's storage is the child's now, the
			   others' copies are no thread's: none count the parent's. */
			if (t->alloc_tl)
				t->alloc_tl->calls = t->alloc_tl->bytes = 0;
			t->alloc_calls = t->alloc_bytes = 0;
			t->alloc_tl = NULL;
		}
	}
	base_calls = base_bytes = base_samples = 0;
	unlock(&fork_mask);
}

uint64_t zt_alloc_rate(void)
{
	return rate;
}

int zt_alloc_init(void)
{
	static const struct zt_dump_part part = { .version = ZT_RAW_VERSION_ALLOC,
						  .put_header = put_header,
						  .put_samples = put_samples,
						  .put_summary = put_summary };
	const char *v = getenv(ZT_ENV_ALLOC);
	char *end;
	unsigned long long r;

	if (!v || !*v)
		return 0;
	errno = 0;
	r = strtoull(v, &end, 10);
	if (*end || errno || r < 1 || r > ZT_ALLOC_RATE_MAX)
		return -1;
	if (!zt_dump_own_code(&own_lo, &own_hi))
		return -1;
	tab.keys = map(SLOTS * sizeof *tab.keys);
	tab.blocks = map(SLOTS * sizeof *tab.blocks);
	tab.grave = map(GRAVE * sizeof *tab.grave);
	tab.stacks = map(STACKS * sizeof *tab.stacks);
	tab.stack_index = map(2 * STACKS * sizeof *tab.stack_index);
	tab.words = map(STACK_WORDS * sizeof *tab.words);
	if (!tab.keys || !tab.blocks || !tab.grave || !tab.stacks || !tab.stack_index ||
	    !tab.words) {
		tab.keys = NULL;
		return -1;
	}
	allocator_find();
	pthread_atfork(fork_lock, fork_parent, fork_child);
	zt_dump_register(&part);
	__atomic_store_n(&rate, (uint64_t)r, __ATOMIC_RELEASE);
	return 1;
}
