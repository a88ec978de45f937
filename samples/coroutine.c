/*
 * coroutine.c — a coroutine on a small stack, as green-thread libraries run
 * them: makecontext/swapcontext on a 12 KiB stack of which the coroutine
 * uses 8 KiB, leaving 4 KiB of headroom. The kernel's signal frame alone
 * takes about 3 KiB with AVX state, so a profiler whose handler runs on the
 * interrupted stack overflows it (tests/0166). The stack is filled with a
 * pattern first, and the bytes the pattern still holds at the end are
 * printed: a profiler that never touches the coroutine's stack leaves the
 * same number as a run without it.
 *
 *   coroutine [ROUNDS]     prints the same line every run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

enum { STACK = 12 * 1024, USED = 8 * 1024 };

static ucontext_t main_ctx, co_ctx;
static volatile unsigned long sink;
static long rounds = 400;

/* Spin in the coroutine's deepest frame: most samples land here. */
static __attribute__((noinline)) unsigned long co_spin(unsigned long x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

/* Take most of the coroutine's stack, then spin with 4 KiB left. */
static __attribute__((noinline)) unsigned long co_deep(unsigned long x)
{
	volatile char pad[USED - 120];	/* 4 KiB left below co_spin */

	memset((char *)pad, (int)(x & 0x7f), sizeof pad);
	return co_spin(x + pad[x % sizeof pad]);
}

static void co_main(void)
{
	unsigned long x = 1;

	for (;;) {
		x = co_deep(x);
		sink = x;
		swapcontext(&co_ctx, &main_ctx);
	}
}

int main(int argc, char **argv)
{
	/* Guard page below, as coroutine libraries map them: an overflow faults. */
	char *m = mmap(NULL, STACK + 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long sum = 0;
	long untouched;

	if (argc > 1)
		rounds = strtol(argv[1], NULL, 10);
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) < 0)
		return 1;
	memset(m + 4096, 0xa5, STACK);
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = m + 4096;
	co_ctx.uc_stack.ss_size = STACK;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_main, 0);
	for (long r = 0; r < rounds; r++) {
		swapcontext(&main_ctx, &co_ctx);
		sum ^= sink + (unsigned long)r;
	}
	for (untouched = 0; untouched < STACK && m[4096 + untouched] == (char)0xa5; untouched++)
		;
	printf("coroutine: %ld rounds, checksum %lx, %ld of %d stack bytes never touched\n",
	       rounds, sum, untouched, STACK);
	return 0;
}
