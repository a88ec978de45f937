/*
 * allocshim.c — libzt-alloc.so, the allocator's interposers, preloaded
 * beside libzt-prof.so only under zt-collect --alloc, so that a run
 * without it keeps the allocator's calls as they are.
 *
 * malloc, calloc, realloc, reallocarray, free, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc and malloc_usable_size pass
 * to the next definition (RTLD_NEXT: glibc's, or an allocator preloaded
 * after zt); C++'s operator new and delete reach them through libstdc++.
 * What an unsampled call adds is a thread-local count, a countdown and a
 * compare (allochook.h); a sample point, and a free while a sampled block
 * lives, go to libzt-prof.so (alloc.c).
 */
#include "allochook.h"
#include "arch.h"
#include "extent.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ZT_INTERPOSE __attribute__((visibility("default")))

/* libzt-prof.so's, weak: without it every call passes through. */
#pragma weak zt_alloc_nlive
#pragma weak zt_alloc_took
#pragma weak zt_alloc_freed
#pragma weak zt_alloc_unhook
#pragma weak zt_alloc_rehook
#pragma weak zt_alloc_shim

/*
 * What free's fast path reads: zt_alloc_nlive, or a 0 of the shim's own
 * without libzt-prof.so, once the real functions are found; a 1 before,
 * which takes every free to the slow path.
 */
static const volatile uint32_t no_live, not_yet = 1;
static const volatile uint32_t *volatile nlive = &not_yet;

enum { BOOT = 64 * 1024 };	/* memory for calls made while the real functions are found */

/*
 * The calling thread's countdown and counts (allochook.h), and its
 * interposers under way: glibc's reallocarray calls realloc, and its other
 * functions may call one another, through the PLT, so through zt's: only
 * the outermost call is the program's, and is counted. One record, so that
 * the fast paths find both at one offset.
 */
static __thread struct {
	struct zt_alloc_tls tl;
	int depth;
} me __attribute__((tls_model("initial-exec")));

/* The real call, made as the outermost interposer under way. */
#define OUTER(call) __extension__({ __typeof__(call) r_; me.depth++; r_ = (call); me.depth--; r_; })

/*
 * The fast paths of malloc and free end in a tail call of the real
 * function, so that they add a few instructions and no frame of their own
 * (their frame would also be wasted: nothing is sampled there).
 */
#define FAST __attribute__((optimize("omit-frame-pointer", "no-tree-slp-vectorize")))
#define SLOW __attribute__((noinline, cold))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static size_t (*real_malloc_usable_size)(void *);

/*
 * Calls made while dlsym finds the real functions (dlsym may allocate):
 * served from a static arena, each block after a 16-byte header holding
 * its size; never freed.
 */
static unsigned char boot[BOOT] __attribute__((aligned(16)));
static size_t boot_used;
static __thread int resolving __attribute__((tls_model("initial-exec")));

static int in_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < BOOT;
}

static void *boot_alloc(size_t n, size_t align)
{
	size_t at, start;

	if (align < 16)
		align = 16;
	if (n > BOOT || (align & (align - 1)))
		return NULL;
	do {
		at = __atomic_load_n(&boot_used, __ATOMIC_RELAXED);
		start = (at + 16 + align - 1) & ~(align - 1);
		if (start + n > BOOT)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &at, start + n, 0, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	memcpy(boot + start - 16, &n, sizeof n);
	return boot + start;
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - 16, sizeof n);
	return n;
}

#define RESOLVE(name) (*(void **)&real_##name = dlsym(RTLD_NEXT, #name))

/* Find the next definitions; 0 when this thread is finding them already. */
static int resolve(void)
{
	static volatile int state;	/* 0 not yet, 1 under way, 2 done */
	int zero = 0;

	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
		return 1;
	if (resolving)
		return 0;
	if (!__atomic_compare_exchange_n(&state, &zero, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
			zt_arch_pause();
		return 1;
	}
	resolving = 1;
	RESOLVE(calloc);
	RESOLVE(free);
	RESOLVE(realloc);
	RESOLVE(reallocarray);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(malloc_usable_size);
	RESOLVE(malloc);	/* last: the others test it */
	if (real_malloc)
		__atomic_store_n(&nlive, &zt_alloc_nlive ? &zt_alloc_nlive : &no_live,
				 __ATOMIC_RELEASE);
	resolving = 0;
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	return real_malloc != NULL;
}

/* An allocation of size bytes at p: counted, and sampled when its bytes hold a sample point. */
static inline void account(void *p, size_t size)
{
	if (!p)
		return;
	me.tl.calls++;
	me.tl.bytes += size;
	if (__builtin_expect((me.tl.left -= (int64_t)(size < INT64_MAX ? size : INT64_MAX)) > 0, 1))
		return;
	if (zt_alloc_took)
		zt_alloc_took(p, size, &me.tl);
	else
		me.tl.left = INT64_MAX;
}

/* p is freed: libzt-prof.so is asked only while some sampled block lives. */
static inline void freed(void *p)
{
	if (&zt_alloc_nlive && zt_alloc_nlive && zt_alloc_freed)
		zt_alloc_freed(p);
}

/* malloc's calls that hold a sample point, come before the real functions are found, or nest. */
static SLOW void *malloc_slow(size_t n)
{
	void *p;

	if (!real_malloc && !resolve())
		return boot_alloc(n, 16);
	/* malloc, calloc and free call no other interposer: no depth of their own. */
	p = real_malloc(n);
	if (!me.depth)
		account(p, n);
	return p;
}

ZT_INTERPOSE FAST void *malloc(size_t n)
{
	/* No sample point in these n bytes: counted before the call, which
	   may still fail. left is 0 until the thread's first call has found
	   the real functions, so real_malloc is known here. */
	if (__builtin_expect(n < (uint64_t)me.tl.left && !me.depth, 1)) {
		me.tl.left -= (int64_t)n;
		me.tl.calls++;
		me.tl.bytes += n;
		return real_malloc(n);
	}
	return malloc_slow(n);
}

ZT_INTERPOSE void *calloc(size_t n, size_t size)
{
	void *p;

	if (__builtin_expect(!real_malloc, 0) && !resolve()) {
		/* The arena is zeroed and never reused. */
		if (size && n > SIZE_MAX / size)
			return NULL;
		return boot_alloc(n * size, 16);
	}
	p = real_calloc(n, size);
	if (!me.depth)
		account(p, n * size);
	return p;
}

static SLOW void free_slow(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!real_malloc && !resolve())
		return;	/* no free can be found yet: the block stays */
	if (!me.depth)
		freed(p);
	real_free(p);
}

ZT_INTERPOSE FAST void free(void *p)
{
	/* The real functions found, and no sampled block lives: nothing to retire. */
	if (__builtin_expect(!*__atomic_load_n(&nlive, __ATOMIC_ACQUIRE) && !in_boot(p), 1))
		return real_free(p);
	free_slow(p);
}

/*
 * After realloc moved old (its record, had, taken out by hooked) to p of
 * size bytes: a failure (p NULL for a size that is not 0) left old where
 * it was, so its record comes back; a success is an allocation of size.
 */
static void *moved(void *old, size_t size, void *p, const struct zt_alloc_block *had, int was)
{
	if (!p && size && was && zt_alloc_rehook)
		zt_alloc_rehook(old, had);
	if (p && size)
		account(p, size);
	return p;
}

/* Take old's record out before it can be freed (1 if it was sampled). */
static int hooked(void *old, struct zt_alloc_block *had)
{
	return old && &zt_alloc_nlive && zt_alloc_nlive && zt_alloc_unhook &&
	       zt_alloc_unhook(old, had);
}

ZT_INTERPOSE void *realloc(void *old, size_t n)
{
	struct zt_alloc_block had;
	int was;

	if (in_boot(old)) {
		void *p = malloc(n);
		size_t m = boot_size(old);

		if (p)
			memcpy(p, old, m < n ? m : n);
		return p;
	}
	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return boot_alloc(n, 16);
	if (me.depth)
		return real_realloc(old, n);
	was = hooked(old, &had);
	return moved(old, n, OUTER(real_realloc(old, n)), &had, was);
}

ZT_INTERPOSE void *reallocarray(void *old, size_t n, size_t size)
{
	struct zt_alloc_block had;
	int was;

	if (in_boot(old) || (__builtin_expect(!real_malloc, 0) && !resolve()) ||
	    !real_reallocarray) {
		if (size && n > SIZE_MAX / size) {
			errno = ENOMEM;
			return NULL;
		}
		return realloc(old, n * size);
	}
	if (me.depth || (size && n > SIZE_MAX / size))
		return real_reallocarray(old, n, size);	/* nested; or ENOMEM, old stays */
	was = hooked(old, &had);
	return moved(old, n * size, OUTER(real_reallocarray(old, n, size)), &had, was);
}

ZT_INTERPOSE int posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	if (__builtin_expect(!real_malloc, 0) && !resolve()) {
		*out = boot_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (me.depth)
		return real_posix_memalign(out, align, n);
	r = OUTER(real_posix_memalign(out, align, n));
	if (r == 0)
		account(*out, n);
	return r;
}

ZT_INTERPOSE void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return boot_alloc(n, align);
	if (me.depth)
		return real_aligned_alloc(align, n);
	p = OUTER(real_aligned_alloc(align, n));
	account(p, n);
	return p;
}

ZT_INTERPOSE void *memalign(size_t align, size_t n)
{
	void *p;

	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return boot_alloc(n, align);
	if (me.depth)
		return real_memalign(align, n);
	p = OUTER(real_memalign(align, n));
	account(p, n);
	return p;
}

ZT_INTERPOSE void *valloc(size_t n)
{
	void *p;

	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return boot_alloc(n, 4096);
	if (me.depth)
		return real_valloc(n);
	p = OUTER(real_valloc(n));
	account(p, n);
	return p;
}

ZT_INTERPOSE void *pvalloc(size_t n)
{
	void *p;
	size_t page = 4096;

	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return boot_alloc((n + page - 1) & ~(page - 1), page);
	if (me.depth)
		return real_pvalloc(n);
	p = OUTER(real_pvalloc(n));
	account(p, n);
	return p;
}

ZT_INTERPOSE size_t malloc_usable_size(void *p)
{
	if (in_boot(p))
		return boot_size(p);
	if (__builtin_expect(!real_malloc, 0) && !resolve())
		return 0;
	return real_malloc_usable_size ? real_malloc_usable_size(p) : 0;
}

/* This malloc, by a name of its own: libzt-prof.so compares it with the one the program reaches. */
extern __typeof(malloc) zt_alloc_shim_malloc
	__attribute__((alias("malloc"), visibility("default"), copy(malloc)));

/* The malloc this one passes to, for libzt-prof.so: its object's own mmap calls are not the program's. */
__attribute__((visibility("default"))) void *zt_alloc_next_malloc(void);

void *zt_alloc_next_malloc(void)
{
	return real_malloc || resolve() ? (void *)real_malloc : NULL;
}

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* Tell libzt-prof.so where this library is, so that its frames are left out. */
__attribute__((constructor)) static void shim_start(void)
{
	uintptr_t lo, hi;

	if (zt_extent_of(&__ehdr_start, &lo, &hi) && zt_alloc_shim)
		zt_alloc_shim(lo, hi);
}
