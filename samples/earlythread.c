/*
 * earlythread.c — a program linked with libearly.so, whose constructor has
 * a thread running (early_work) before main. main burns CPU in main_work,
 * then stops the early thread.
 */
#include <stdio.h>

void early_stop(void);

static volatile unsigned long sink;

__attribute__((noinline)) void main_work(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i;
}

int main(void)
{
	main_work();
	early_stop();
	printf("done\n");
	return 0;
}
