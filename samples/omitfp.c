/*
 * omitfp.c — a program built -O2 -fomit-frame-pointer (Makefile), whose
 * call paths are known, for the CFI unwinder: only unwind tables find the
 * callers of its functions, since none of them keeps a frame pointer.
 *
 *   main -> outer_a -> mid -> leaf_x                      (frameless leaf)
 *   main -> outer_b -> mid -> leaf_y                      (frameless leaf)
 *   main -> with_vla -> chain1 -> chain2 -> chain3 -> leaf_z
 *
 * with_vla has a variable-length array, so gcc gives it a frame pointer
 * after all and its CFA is found through rbp. Everything else uses rbp, if
 * at all, as an ordinary register. noipa keeps gcc from inlining, cloning
 * or turning the calls into jumps; the work after each call keeps them
 * from being tail calls. The leaves burn the CPU, about 2:1:1 for
 * leaf_x : leaf_y : leaf_z. An optional argument scales the work (default
 * 100 rounds, about 0.4 CPU-seconds); the output depends only on it.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noipa)) void leaf_x(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

__attribute__((noipa)) void leaf_y(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}

__attribute__((noipa)) void leaf_z(volatile unsigned char *buf, unsigned long len,
				   unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += buf[i % len];
}

/* Many live values, so that gcc spills to callee-saved registers, rbp too. */
__attribute__((noipa)) unsigned long mid(int which, unsigned long n)
{
	unsigned long a = sink, b = sink * 3, c = sink ^ 5, d = sink + 7, e = sink * 11;

	if (which)
		leaf_x(n);
	else
		leaf_y(n);
	return a + b * c + d * e + sink;
}

__attribute__((noipa)) unsigned long outer_a(unsigned long n)
{
	return mid(1, n) + 1;
}

__attribute__((noipa)) unsigned long outer_b(unsigned long n)
{
	return mid(0, n) + 2;
}

__attribute__((noipa)) void chain3(volatile unsigned char *buf, unsigned long len,
				   unsigned long n)
{
	leaf_z(buf, len, n);
	sink++;
}

__attribute__((noipa)) void chain2(volatile unsigned char *buf, unsigned long len,
				   unsigned long n)
{
	chain3(buf, len, n);
	sink++;
}

__attribute__((noipa)) void chain1(volatile unsigned char *buf, unsigned long len,
				   unsigned long n)
{
	chain2(buf, len, n);
	sink++;
}

__attribute__((noipa)) void with_vla(unsigned long n)
{
	unsigned long len = 64 + (n & 63);
	volatile unsigned char buf[len];

	for (unsigned long i = 0; i < len; i++)
		buf[i] = (unsigned char)i;
	chain1(buf, len, n);
	sink += buf[len - 1];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	unsigned long total = 0;

	for (int r = 0; r < rounds; r++) {
		total += outer_a(2000000);
		total += outer_b(1000000);
		with_vla(1000000);
	}
	printf("rounds %d sink %lu\n", rounds, (sink + total) % 1000);
	return 0;
}
