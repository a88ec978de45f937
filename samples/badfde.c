/*
 * badfde.c — a program linked with libfdelib.so, one of whose FDEs claims
 * 2 GiB: the other objects' unwind tables must survive it (tests/0168).
 * It spins in its own function, in lib_good and in lib_bad, a third each.
 *
 *   badfde [MILLIONS]
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long lib_good(unsigned long x, long n);
unsigned long lib_bad(unsigned long x, long n);

static __attribute__((noinline)) unsigned long own(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 3935559000370003845ul + 2691343689449507681ul;
	return x;
}

int main(int argc, char **argv)
{
	long m = argc > 1 ? strtol(argv[1], NULL, 10) : 60;
	unsigned long x = 1;

	for (long i = 0; i < m; i++) {
		x = own(x, 1000000);
		x = lib_good(x, 1000000);
		x = lib_bad(x, 1000000);
	}
	printf("badfde: %lx\n", x);
	return 0;
}
