/*
 * churn.c — a program whose profile varies between runs, as allocation-heavy
 * programs' do: compute() is plain arithmetic, churn() allocates and frees
 * blocks of random sizes (malloc's paths depend on the heap's history), and
 * lookup() probes a table that outgrows the caches.
 *
 *   churn [ROUNDS [SLOWER_PERCENT [ALLOC_PERCENT]]]
 *
 * SLOWER_PERCENT makes compute() do that much more work (the "changed"
 * program of tests/0504-diff-replicates.bats is samples/slower, whose
 * split does not vary between runs as this one's does).
 * ALLOC_PERCENT (default 100) scales the allocating and probing part, and
 * with it how much the profile varies between runs; at 0, crunch() takes
 * its place, and the profile is compute() : crunch() about 1 : 1, CPU-bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static uint64_t table[1 << 20];

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__attribute__((noinline)) static void compute(long work)
{
	uint64_t x = 1;

	for (long i = 0; i < work; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink += x;
}

/* compute()'s loop, unslowed: whatever slows the machine slows both. */
__attribute__((noinline)) static void crunch(long work)
{
	uint64_t x = 3;

	for (long i = 0; i < work; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink += x;
}

__attribute__((noinline)) static void churn(uint64_t *s, void **slots, int nslots, long n)
{
	for (long i = 0; i < n; i++) {
		int k = (int)(next(s) % (uint64_t)nslots);

		free(slots[k]);
		slots[k] = malloc(16 + next(s) % 4096);
		((char *)slots[k])[0] = (char)i;
	}
}

__attribute__((noinline)) static void lookup(uint64_t *s, long n)
{
	uint64_t h = 0;

	for (long i = 0; i < n; i++)
		h += table[next(s) & ((1 << 20) - 1)]++;
	sink += h;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	long slower = argc > 2 ? atol(argv[2]) : 0;
	long alloc = argc > 3 ? atol(argv[3]) : 100;
	long work = 190000 + 190000 * slower / 100;
	uint64_t s = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&s;
	void *slots[4096] = { 0 };

	s |= 1;
	for (long r = 0; r < rounds; r++) {
		compute(work);
		if (alloc == 0)
			crunch(190000);
		churn(&s, slots, 4096, 4 * alloc);
		lookup(&s, 15 * alloc);
	}
	for (int i = 0; i < 4096; i++)
		free(slots[i]);
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
