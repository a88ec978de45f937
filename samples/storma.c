/* storma.c — one of two libraries samples/dlstorm loads in turn at one address. */
static volatile unsigned long sink;

__attribute__((noinline)) void storm_a_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}

void (*storm_hot)(unsigned long) = storm_a_hot;
