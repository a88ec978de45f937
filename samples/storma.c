/*
 * storma.c — one of two libraries samples/dlstorm loads in turn at one
 * address. Its hot function comes first and a padding function after it;
 * stormb.c has them the other way round, so that an address of one
 * library's hot function is, in the other library, inside its padding
 * function, which nothing calls: a sample named after the wrong library
 * shows up as a sample in storm_b_pad or storm_a_pad.
 */
static volatile unsigned long sink;

#define PAD8 sink = 1; sink = 2; sink = 3; sink = 4; sink = 5; sink = 6; sink = 7; sink = 8;

__attribute__((noinline)) void storm_a_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

__attribute__((noinline)) void storm_a_pad(void)
{
	PAD8 PAD8 PAD8 PAD8 PAD8 PAD8 PAD8 PAD8
}

void (*storm_hot)(unsigned long) = storm_a_hot;
