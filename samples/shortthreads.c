/*
 * shortthreads.c — many threads shorter than a sampling period: 3,000
 * threads (one after another) that each spin for 0.4 ms of their own CPU
 * time, and a main thread that spins 1.8 s, so that the short threads have
 * 40% of the CPU time. A sampler whose counter starts a full period from
 * zero in every thread never samples them (tests/0169).
 *
 *   shortthreads [FILE]     writes "SHORT_NS MAIN_NS" (the CPU time each
 *                           side spent spinning) to FILE
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { THREADS = 3000, SHORT_NS = 400000 };
#define MAIN_NS 1800000000LL

static volatile unsigned long sink;
static long long short_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until this thread has used ns more CPU time; returns what it used. */
static __attribute__((noinline)) long long spin_for(long long ns)
{
	long long t0 = thread_ns(), t;
	unsigned long x = (unsigned long)t0;

	do {
		for (int i = 0; i < 5000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sink = x;
	} while ((t = thread_ns()) - t0 < ns);
	return t - t0;
}

static __attribute__((noinline)) void *short_thread(void *arg)
{
	long long used = spin_for(SHORT_NS);

	(void)arg;
	pthread_mutex_lock(&lock);
	short_total += used;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static __attribute__((noinline)) long long main_spin(long long ns)
{
	return spin_for(ns);
}

int main(int argc, char **argv)
{
	long long main_total = 0;
	FILE *f;

	for (int i = 0; i < THREADS; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, short_thread, NULL) != 0)
			return 1;
		pthread_join(th, NULL);
		main_total += main_spin(MAIN_NS / THREADS);
	}
	if (argc > 1 && (f = fopen(argv[1], "w"))) {
		fprintf(f, "%lld %lld\n", short_total, main_total);
		fclose(f);
	}
	printf("shortthreads: %d threads\n", THREADS);
	return 0;
}
