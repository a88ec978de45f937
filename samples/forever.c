/*
 * forever.c — burns CPU in loop_forever until a signal stops it; it leaves
 * every signal at its default, so Ctrl+C kills it. It prints "started" once
 * it is running, for tests to wait on.
 */
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) void loop_forever(void)
{
	for (unsigned long i = 0;; i++)
		sink += i;
}

int main(void)
{
	printf("started\n");
	fflush(stdout);
	loop_forever();
}
