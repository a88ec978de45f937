/*
 * slower.c — a program whose profile does not vary between runs, to measure
 * a known change: compute() and crunch() run the same loop, about half the
 * time each, and SLOWER_PERCENT makes compute() do that many percent more
 * iterations (the "changed" program of tests/0504-diff-replicates.bats).
 *
 *   slower [ROUNDS [SLOWER_PERCENT]]
 *
 * The loop is a chain of dependent multiply-adds in registers (inline asm,
 * so that -O0 keeps nothing on the stack): no memory, no allocation, no
 * I/O. (samples/churn's -O0 loops keep their state on the stack, and with
 * ALLOC_PERCENT 0 their split jumped between about 48.5 : 51.5 and
 * 46.5 : 53.5 between identical runs; here it stays within 0.4 points of
 * 50 : 50.)
 * Each round's length varies (a fixed sequence, the same in every run) so
 * that the sampling period cannot keep one phase in the rounds. The
 * default, 1600 rounds, is about 2 CPU-seconds here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t chain(uint64_t x, long n)
{
	uint64_t m = 6364136223846793005u, a = 1442695040888963407u;

	if (n <= 0)
		return x;
	__asm__ volatile("1:\n\t"
			 "imul %[m], %[x]\n\t"
			 "add %[a], %[x]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(n)
			 : [m] "r"(m), [a] "r"(a)
			 : "cc");
	return x;
}

__attribute__((noinline)) static void compute(long work)
{
	sink += chain(1, work);
}

/* compute()'s loop, never slowed: whatever slows the machine slows both. */
__attribute__((noinline)) static void crunch(long work)
{
	sink += chain(3, work);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1600;
	long slower = argc > 2 ? atol(argv[2]) : 0;
	uint32_t s = 12345;

	for (long r = 0; r < rounds; r++) {
		/* 300000 to 600000 iterations, from a fixed LCG sequence. */
		s = s * 1103515245u + 12345u;
		long work = 300000 + (long)((s >> 8) % 300001);

		compute(work + work * slower / 100);
		crunch(work);
	}
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
