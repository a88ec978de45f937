/*
 * windowapi.c — a program that marks its own sampling window with
 * collect/zt.h: before_work outside it, window_work inside it (with a
 * snapshot halfway), after_work outside it again. Built without linking
 * anything of zt's: without zt every call returns -1 and it runs as well.
 * Prints what the four calls returned.
 */
#include <stdio.h>
#include <zt.h>

static volatile unsigned long sink;

__attribute__((noinline)) void before_work(void)
{
	for (long i = 0; i < 40000000; i++)
		sink += (unsigned long)i * 3;
}

__attribute__((noinline)) void window_work(void)
{
	for (long i = 0; i < 40000000; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noinline)) void after_work(void)
{
	for (long i = 0; i < 40000000; i++)
		sink += (unsigned long)i * 5;
}

int main(void)
{
	int stop0, start, snap, stop;

	stop0 = zt_stop();	/* on by default without --paused */
	before_work();
	start = zt_start();
	window_work();
	snap = zt_snapshot();
	window_work();
	stop = zt_stop();
	after_work();
	printf("zt_stop %d zt_start %d zt_snapshot %d zt_stop %d\n", stop0, start, snap, stop);
	return 0;
}
