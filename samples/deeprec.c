/*
 * deeprec.c — a stack of known depth: main calls rec, which calls itself
 * until DEPTH frames of rec are on the stack, and the innermost calls spin,
 * which burns CPU until the process has used MS milliseconds of it. So
 * nearly every sample is main;rec x DEPTH;spin, deeper than zt-collect's
 * default --max-depth (128) when DEPTH is 300 (tests/0188).
 *
 *   deeprec [DEPTH [MS]]     DEPTH 1 to 100000 (default 300), MS default 300
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void spin(long ms)
{
	while (cpu_ms() < ms)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
}

/* Not a tail call: the frame stays on the stack while spin runs. */
__attribute__((noinline)) static int rec(int depth, long ms)
{
	if (depth <= 1)
		spin(ms);
	else
		rec(depth - 1, ms);
	sink++;
	return depth;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 300;
	long ms = argc > 2 ? atol(argv[2]) : 300;

	if (depth < 1 || depth > 100000 || ms < 0) {
		fprintf(stderr, "usage: deeprec [DEPTH [MS]]\n");
		return 2;
	}
	printf("%d\n", rec(depth, ms));
	return 0;
}
