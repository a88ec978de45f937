/*
 * stormb.c — the other library samples/dlstorm loads in turn at one
 * address: a padding function first, then its hot function (see storma.c).
 */
static volatile unsigned long sink;

#define PAD8 sink = 1; sink = 2; sink = 3; sink = 4; sink = 5; sink = 6; sink = 7; sink = 8;

__attribute__((noinline)) void storm_b_pad(void)
{
	PAD8 PAD8 PAD8 PAD8 PAD8 PAD8 PAD8 PAD8
}

__attribute__((noinline)) void storm_b_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 5;
}

void (*storm_hot)(unsigned long) = storm_b_hot;
