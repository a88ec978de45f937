/*
 * spinners.c — threads that never block, more of them than CPUs, for the
 * "waiting for a CPU" test (tests/0902-collect-offcpu-runqueue.bats): each
 * is runnable all its life, and on a CPU only part of it.
 *
 *   spinners TRUTH [THREADS [SECONDS]]
 *
 * THREADS (default 4) threads named spin0, spin1, ... compute in
 * spin_work until SECONDS (default 1) of wall-clock time have passed. The
 * truth goes to the file TRUTH, one line per thread, as samples/waits.c
 * writes it: "name tid start_ns end_ns exec_ns delay_ns", CLOCK_MONOTONIC
 * and what the thread's own /proc/self/task/TID/schedstat gained between
 * them; its time waiting for a CPU is delay_ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_NAME "spinners"
#include "truth.h"

enum { MAX_THREADS = 256 };

static uint64_t deadline;
static FILE *truth;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

static __attribute__((noinline)) void spin_work(void)
{
	while (now_ns() < deadline)
		for (unsigned long i = 0; i < 100000; i++)
			sink += i * 7;
}

static void *spinner(void *arg)
{
	char name[16];
	unsigned long long exec0, delay0, exec, delay;
	uint64_t start, stop;

	snprintf(name, sizeof name, "spin%d", (int)(intptr_t)arg);
	if (pthread_setname_np(pthread_self(), name) != 0)
		fail("pthread_setname_np", EINVAL);
	schedstat(&exec0, &delay0);
	start = now_ns();
	spin_work();
	stop = now_ns();
	schedstat(&exec, &delay);
	pthread_mutex_lock(&out);
	fprintf(truth, "%s %ld %llu %llu %llu %llu\n", name, (long)syscall(SYS_gettid),
		(unsigned long long)start, (unsigned long long)stop, exec - exec0, delay - delay0);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	int n = argc > 2 ? atoi(argv[2]) : 4, rc;
	double seconds = argc > 3 ? atof(argv[3]) : 1.0;

	if (argc < 2 || n < 1 || n > MAX_THREADS || seconds <= 0) {
		fprintf(stderr, "usage: spinners TRUTH [THREADS [SECONDS]]\n");
		return 2;
	}
	if (!(truth = fopen(argv[1], "w")))
		fail(argv[1], errno);
	deadline = now_ns() + (uint64_t)(seconds * 1e9);
	for (int i = 0; i < n; i++)
		if ((rc = pthread_create(&t[i], NULL, spinner, (void *)(intptr_t)i)) != 0)
			fail("pthread_create", rc);
	for (int i = 0; i < n; i++)
		if ((rc = pthread_join(t[i], NULL)) != 0)
			fail("pthread_join", rc);
	if (fclose(truth) != 0)
		fail(argv[1], errno);
	printf("%d threads spun\n", n);
	return 0;
}
