/* stormb.c — the other library samples/dlstorm loads in turn at one address. */
static volatile unsigned long sink;

__attribute__((noinline)) void storm_b_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 5;
}

void (*storm_hot)(unsigned long) = storm_b_hot;
