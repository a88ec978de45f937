/*
 * threads.c — four threads whose CPU work is in the ratio 1:1:2:4, named
 * worker1..worker4. Each prints its name, thread id and the CPU time it used
 * (from its own CPU clock), so a test can compare every thread's share of
 * samples with its share of CPU time. The main thread only waits.
 * An optional argument scales the work (default 400 units, about 2.4 CPU-seconds).
 * The workers start their work together, once all four exist, so all four
 * are alive at once however the machine schedules them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long units = 400;

__attribute__((noinline)) static unsigned long burn(unsigned long rounds)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < rounds * 1000000; i++)
		x += i;
	return x;
}

static const unsigned long weights[4] = { 1, 1, 2, 4 };
static pthread_barrier_t all_started;

static void *worker(void *arg)
{
	long i = (long)arg;
	unsigned long weight = weights[i];
	char name[16];
	struct timespec ts;

	snprintf(name, sizeof name, "worker%ld", i + 1);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&all_started);
	burn(units * weight);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	printf("%s %ld %.6f\n", name, (long)syscall(SYS_gettid),
	       (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];

	if (argc > 1)
		units = strtoul(argv[1], NULL, 10);
	pthread_barrier_init(&all_started, NULL, 4);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(long)i) != 0)
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}
