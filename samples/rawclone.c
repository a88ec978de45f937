/*
 * rawclone.c — a thread made with a raw clone(2), not pthread_create, as
 * some runtimes make theirs: it spins 0.3 s of CPU time while the main
 * thread spins 0.3 s too. zt cannot sample it (it never goes through
 * pthread_create, and shares the main thread's TLS), so it must be counted,
 * with its CPU time (tests/0169).
 *
 *   rawclone [FILE [TIDFILE]]
 *
 * writes the clone's CPU time in ns to FILE. With TIDFILE the clone first
 * sleeps 0.3 s (clock_nanosleep, from clone_sleeps) and its thread id goes
 * to TIDFILE, for the wall-clock test of threads zt has no record of
 * (tests/0904).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS 300000000LL

static volatile unsigned long sink;
static volatile int done;	/* the kernel clears it at the clone's exit (CLONE_CHILD_CLEARTID) */
static long long clone_ns;

static long long thread_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __attribute__((noinline)) long long spin_for(long long ns)
{
	long long t0 = thread_ns(), t;
	unsigned long x = 1;

	do {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sink = x;
	} while ((t = thread_ns()) - t0 < ns);
	return t - t0;
}

static __attribute__((noinline)) void clone_sleeps(void)
{
	struct timespec ts = { 0, SPIN_NS };

	while (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
		;
}

/* Only system calls in here: the clone has no TLS of its own. */
static int cloned(void *arg)
{
	if (arg)
		clone_sleeps();
	clone_ns = spin_for(SPIN_NS);
	syscall(SYS_exit, 0);
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f;
	int tid;

	if (stack == MAP_FAILED)
		return 1;
	done = 1;
	if ((tid = clone(cloned, stack + size, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			 CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID,
			 argc > 2 ? (void *)1 : NULL, NULL, NULL, (int *)&done)) < 0)
		return 1;
	if (argc > 2 && (f = fopen(argv[2], "w"))) {
		fprintf(f, "%d\n", tid);
		fclose(f);
	}
	spin_for(SPIN_NS);
	while (done)
		syscall(SYS_futex, &done, FUTEX_WAIT, 1, NULL, NULL, 0);
	if (argc > 1 && (f = fopen(argv[1], "w"))) {
		fprintf(f, "%lld\n", clone_ns);
		fclose(f);
	}
	printf("rawclone: done\n");
	return 0;
}
