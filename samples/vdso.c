/*
 * vdso.c — a program that spends its time in code it calls through the
 * dynamic linker's machinery, so that the unwinder must step out of frames
 * it did not compile:
 *
 *   vdso clock   main -> read_clock -> clock_gettime (libc) -> the vDSO
 *   vdso strlen  main -> measure -> strlen, through the PLT
 *
 * An optional second argument scales the work (default 100 rounds, about
 * 0.3 CPU-seconds). The output depends only on the arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void read_clock(unsigned long n)
{
	struct timespec ts;

	for (unsigned long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

/* volatile, so that gcc cannot compute the length at compile time */
static char *volatile text = "a string that strlen walks, again and again";

__attribute__((noinline)) void measure(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += strlen(text);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "clock";
	int rounds = argc > 2 ? atoi(argv[2]) : 100;

	for (int r = 0; r < rounds; r++) {
		if (strcmp(what, "clock") == 0)
			read_clock(100000);
		else if (strcmp(what, "strlen") == 0)
			measure(500000);
		else {
			fprintf(stderr, "usage: vdso [clock|strlen] [rounds]\n");
			return 2;
		}
	}
	printf("%s %d\n", what, rounds);
	return 0;
}
