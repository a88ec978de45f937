/*
 * truth.h — what the off-CPU samples (waits.c, spinners.c, diskread.c)
 * share to measure their threads, for the truth they write beside a
 * profile: a monotonic clock and a thread's own schedstat, the kernel's
 * account of its time on a CPU and waiting for one. Every call's result is
 * checked; a failure is printed as "NAME: what: reason" and exits 1.
 *
 * Define SAMPLE_NAME (the program's name) before including it. The
 * functions are static and keep their names, so a program's stacks are
 * as they were when each had its own copy.
 */
#ifndef SAMPLE_NAME
#error "define SAMPLE_NAME before including truth.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what, int err)
{
	fprintf(stderr, SAMPLE_NAME ": %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		fail("clock_gettime", errno);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's /proc/self/task/TID/schedstat: ns run, ns waited for a CPU. */
static void schedstat(unsigned long long *exec, unsigned long long *delay)
{
	char path[64], buf[128];
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof buf, f) || sscanf(buf, "%llu %llu", exec, delay) != 2)
		fail("schedstat", errno ? errno : EINVAL);
	fclose(f);
}
