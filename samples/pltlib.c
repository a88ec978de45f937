/*
 * pltlib.c — libpltlib.so for samples/plt: a function so short that much
 * of its caller's time is spent in the PLT entry that reaches it.
 */
unsigned long plt_tiny(unsigned long x);

unsigned long plt_tiny(unsigned long x)
{
	return x * 2654435761u;
}
