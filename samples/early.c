/*
 * early.c — libearly.so: its constructor starts a thread that burns CPU in
 * early_work for as long as the program runs. samples/earlythread links it,
 * so the thread may be running before zt's own constructor starts sampling;
 * it must be sampled all the same.
 */
#include <pthread.h>

static volatile unsigned long sink;
static volatile int stop;

__attribute__((noinline)) void early_work(void)
{
	while (!stop)
		for (unsigned long i = 0; i < 1000000; i++)
			sink += i;
}

static void *run(void *arg)
{
	(void)arg;
	early_work();
	return NULL;
}

__attribute__((constructor)) static void start_early_thread(void)
{
	pthread_t th;

	pthread_create(&th, NULL, run, NULL);
	pthread_detach(th);
}

void early_stop(void)
{
	stop = 1;
}
