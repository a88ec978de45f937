/*
 * allochook.h — what libzt-alloc.so (allocshim.c, the allocator's
 * interposers, preloaded only under zt-collect --alloc) and libzt-prof.so
 * (alloc.c, the samples) share. The shim counts each thread's calls and
 * bytes and counts down to its next sample point in a record of its own
 * thread-local storage; it calls into libzt-prof.so only when a sample
 * point falls in a block, when a block may be a sampled one (zt_alloc_nlive
 * is not 0), and at start. The names are exported by libzt-prof.so, and
 * referenced weakly by the shim: without libzt-prof.so it passes every
 * call through.
 */
#ifndef ZT_ALLOCHOOK_H
#define ZT_ALLOCHOOK_H

#include <stddef.h>
#include <stdint.h>

/* A thread's countdown and counts, in the shim's thread-local storage. */
struct zt_alloc_tls {
	int64_t left;		/* bytes to the next sample point; <= 0: call zt_alloc_took */
	uint64_t calls, bytes;	/* the thread's allocation calls and their bytes */
	uint64_t rng;		/* the draws' state; 0 before the first */
};

/* A sampled block's record, handed back by realloc when it failed. */
struct zt_alloc_block {
	uint64_t size, when, seq;
	uint32_t tid, stack;	/* stack: an index in alloc.c's stacks, or none */
};

/* Sampled blocks live: while 0, no free need ask. */
extern volatile uint32_t zt_alloc_nlive;

/* A sample point fell in the size bytes at p, the allocation of thread tl (or tl is new). */
void zt_alloc_took(void *p, size_t size, struct zt_alloc_tls *tl);
/* p is freed (before the real free): retire it if sampled. */
void zt_alloc_freed(void *p);
/* realloc: take old out before the real call (1 if it was sampled, its record in *b)... */
int zt_alloc_unhook(void *old, struct zt_alloc_block *b);
/* ...and put it back when the call failed and old stays. */
void zt_alloc_rehook(void *old, const struct zt_alloc_block *b);
/* The shim's own loaded extent [lo, hi): its frames are left out of a sample's stack. */
void zt_alloc_shim(uintptr_t lo, uintptr_t hi);

#endif
