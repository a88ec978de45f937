/*
 * systime.c — threads that spend known shares of their lives in user code,
 * in the kernel on a CPU (read(2) of /dev/zero into a large buffer: the
 * kernel clears it) and blocked (nanosleep), for the wall-clock profile's
 * states (tests/0906). Each thread measures itself and, as it ends, writes
 * one line to the file TRUTH:
 *
 *   name tid start end exec delay utime stime
 *
 * start and end CLOCK_MONOTONIC ns, exec and delay its own
 * /proc/self/task/TID/schedstat, utime and stime (ns) its
 * getrusage(RUSAGE_THREAD), the kernel's split of its CPU time. All of
 * them cover the thread's whole life: start is the moment it began less
 * the time it ran and waited for a CPU before (it never blocks before it
 * begins), as a busy machine can keep a new thread waiting long.
 *
 *   systime TRUTH [SECONDS]     each thread runs about SECONDS (default 1)
 *
 * Threads: user (computes), kernel (reads /dev/zero), mixed (computes,
 * reads and sleeps in turn, about 5 ms each), sleeper (sleeps, with a little
 * of each).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 1 << 20 };

static volatile unsigned long sink;
static double seconds = 1;
static FILE *truth;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void schedstat(unsigned long long *exec, unsigned long long *delay)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	if (!(f = fopen(path, "r")) || fscanf(f, "%llu %llu", exec, delay) != 2) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* Compute for about ms milliseconds of the thread's CPU time. */
__attribute__((noinline)) void user_code(double ms)
{
	unsigned long long until = now_ns(CLOCK_THREAD_CPUTIME_ID) + (unsigned long long)(ms * 1e6);

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		for (int i = 0; i < 500000; i++)
			sink += i;
}

/* Be in the kernel for about ms milliseconds of CPU time. */
__attribute__((noinline)) void kernel_code(int fd, char *buf, double ms)
{
	unsigned long long until = now_ns(CLOCK_THREAD_CPUTIME_ID) + (unsigned long long)(ms * 1e6);

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		if (read(fd, buf, BUF) != BUF) {
			perror("systime: /dev/zero");
			exit(1);
		}
}

__attribute__((noinline)) void blocked(double ms)
{
	struct timespec ts = { 0, (long)(ms * 1e6) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void *run(void *arg)
{
	const char *name = arg;
	unsigned long long start, end, exec0, delay0, exec, delay;
	int fd = open("/dev/zero", O_RDONLY);
	char *buf = malloc(BUF);
	struct rusage ru;

	if (fd < 0 || !buf) {
		perror("systime");
		exit(1);
	}
	memset(buf, 0, BUF);
	pthread_setname_np(pthread_self(), name);
	schedstat(&exec0, &delay0);
	start = now_ns(CLOCK_MONOTONIC);
	while (now_ns(CLOCK_MONOTONIC) - start < seconds * 1e9) {
		if (strcmp(name, "user") == 0) {
			user_code(5);
		} else if (strcmp(name, "kernel") == 0) {
			kernel_code(fd, buf, 5);
		} else if (strcmp(name, "mixed") == 0) {
			user_code(5);
			kernel_code(fd, buf, 5);
			blocked(5);
		} else {
			user_code(1);
			kernel_code(fd, buf, 1);
			blocked(20);
		}
	}
	end = now_ns(CLOCK_MONOTONIC);
	schedstat(&exec, &delay);
	getrusage(RUSAGE_THREAD, &ru);
	pthread_mutex_lock(&lock);
	fprintf(truth, "%s %ld %llu %llu %llu %llu %llu %llu\n", name, (long)syscall(SYS_gettid),
		start - exec0 - delay0, end, exec, delay,
		ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull,
		ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull);
	pthread_mutex_unlock(&lock);
	close(fd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	static char *names[] = { "user", "kernel", "mixed", "sleeper" };
	pthread_t th[4];

	if (argc < 2 || !(truth = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: systime TRUTH [SECONDS]\n");
		return 2;
	}
	if (argc > 2)
		seconds = atof(argv[2]);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, run, names[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (fclose(truth) != 0)
		return 1;
	puts("done");
	return 0;
}
