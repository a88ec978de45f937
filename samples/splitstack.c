/*
 * splitstack.c — a program built with gcc's -fsplit-stack: its stack is a
 * chain of segments that __morestack maps as the recursion needs them, and
 * code that does not check the limit (a signal handler) finds little room
 * below the stack pointer. A profiler whose handler runs on the interrupted
 * stack writes below it; this program notices: before each spin it paints
 * the 3 KiB below the spinning frame, and afterwards counts how much of the
 * paint is left, against a count made without the spin (tests/0167).
 * Without signals, or with a handler on a stack of its own, no round
 * differs.
 *
 *   splitstack [ROUNDS]     prints the same line every run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAINT = 3072 };

/* Paint the bytes below the caller's frame: this frame covers them. */
static __attribute__((noinline)) void paint(void)
{
	volatile char a[PAINT];

	for (int i = 0; i < PAINT; i++)
		a[i] = (char)0x5a;
}

/* Count the paint left: this frame lies where paint's did. */
static __attribute__((noinline)) long count(void)
{
	volatile char a[PAINT];
	long n = 0;

	for (int i = 0; i < PAINT; i++)
		n += a[i] == (char)0x5a;
	return n;
}

static __attribute__((noinline)) unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static long clobbered;

/* Recurse d deep (new segments as needed), then paint, spin and count. */
static __attribute__((noinline)) unsigned long rec(int d, unsigned long x)
{
	volatile char pad[40];

	pad[d % 40] = (char)x;
	if (d == 0) {
		long before;

		paint();
		x = spin(x, 0);	/* what the spin's own frame leaves */
		before = count();
		paint();
		x = spin(x, 3000);
		/* Fewer painted bytes than the baseline left: something wrote
		 * below the stack pointer while spin ran. (More is no write:
		 * near a segment's end the baseline's own call can leave less
		 * paint than the long one, in rounds that depend on where the
		 * stack started, so address randomisation moved that count
		 * from run to run.) */
		clobbered += count() < before;
		return x + pad[0];
	}
	return rec(d - 1, x + pad[d % 40]);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	unsigned long sum = 0;

	for (long r = 0; r < rounds; r++)
		sum ^= rec((int)(r % 1000), (unsigned long)r);
	printf("splitstack: %ld rounds, checksum %lx, stack below the stack pointer written "
	       "in %ld rounds\n", rounds, sum, clobbered);
	return 0;
}
