/*
 * spin.c — a program whose profile is known: three quarters of its CPU time
 * in hot_a, one quarter in hot_b, both called from work.
 *
 * Built with -O0 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer so that
 * every function, leaves included, keeps its frame and nothing is inlined.
 * An optional argument scales the work (default 200 rounds, about a second).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void hot_a(unsigned long rounds)
{
	for (unsigned long i = 0; i < rounds; i++)
		sink += i * 3;
}

__attribute__((noinline)) void hot_b(unsigned long rounds)
{
	for (unsigned long i = 0; i < rounds; i++)
		sink ^= i;
}

__attribute__((noinline)) void work(unsigned long rounds)
{
	hot_a(3 * rounds);
	hot_b(rounds);
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 200;

	for (int step = 0; step < steps; step++)
		work(2000000);
	printf("sink = %lu\n", sink % 1000);
	return 0;
}
