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
 *   systime TRUTH [SECONDS [IDLE]]   each thread runs about SECONDS (default 1)
 *
 * Threads: user (computes), kernel (reads /dev/zero), mixed (computes,
 * reads and sleeps in turn, about 5 ms each), sleeper (sleeps, with a little
 * of each).
 *
 * With IDLE (tests/0908): that many more threads, blocked in a condition
 * variable from before the others start to after they end, of which every
 * (IDLE / 8)-th writes its line too, as "idle"; and a fifth thread, napper
 * (sleeps 250 ms, then computes and reads 1 ms each). The crowd is made
 * first; once the sampler has taken it up (a second, and 60 of the
 * sampler's runs), the line
 *
 *   sampler EXEC RUNS WALL
 *
 * is the CPU time (ns) and times run of the thread named "zt-offcpu" (its
 * schedstat: the kernel's account; 0 0 without such a thread) over the
 * next 1.5 s of wall-clock time (WALL, ns), beside the crowd alone; then
 * the others run.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
	struct timespec ts = { (time_t)(ms / 1000), (long)((ms - 1000 * (time_t)(ms / 1000)) * 1e6) };

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
		} else if (strcmp(name, "napper") == 0) {
			blocked(250);
			user_code(1);
			kernel_code(fd, buf, 1);
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

static pthread_mutex_t crowd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t crowd_cond = PTHREAD_COND_INITIALIZER;
static int crowd_over;

/* One of the idle crowd: blocked until the end; a line as "idle" when arg says so. */
static void *crowd(void *arg)
{
	unsigned long long start, end, exec0, delay0, exec, delay;
	struct rusage ru;

	if (arg)
		schedstat(&exec0, &delay0);
	start = now_ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&crowd_lock);
	while (!crowd_over)
		pthread_cond_wait(&crowd_cond, &crowd_lock);
	pthread_mutex_unlock(&crowd_lock);
	if (!arg)
		return NULL;
	end = now_ns(CLOCK_MONOTONIC);
	schedstat(&exec, &delay);
	getrusage(RUSAGE_THREAD, &ru);
	pthread_mutex_lock(&lock);
	fprintf(truth, "idle %ld %llu %llu %llu %llu %llu %llu\n", (long)syscall(SYS_gettid),
		start - exec0 - delay0, end, exec, delay,
		ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull,
		ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* The schedstat of this process's thread named zt-offcpu ("" when none), into path. */
static void find_sampler(char *path, size_t len)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char comm[64];

	path[0] = '\0';
	while (d && (e = readdir(d))) {
		FILE *f;

		snprintf(path, len, "/proc/self/task/%s/comm", e->d_name);
		if (e->d_name[0] == '.' || !(f = fopen(path, "r"))) {
			path[0] = '\0';
			continue;
		}
		if (fgets(comm, sizeof comm, f) && strcmp(comm, "zt-offcpu\n") == 0) {
			fclose(f);
			snprintf(path, len, "/proc/self/task/%s/schedstat", e->d_name);
			closedir(d);
			return;
		}
		fclose(f);
		path[0] = '\0';
	}
	if (d)
		closedir(d);
}

static void sampler_stat(const char *path, unsigned long long *exec, unsigned long long *runs)
{
	unsigned long long delay;
	FILE *f = path[0] ? fopen(path, "r") : NULL;

	*exec = *runs = 0;
	if (f && fscanf(f, "%llu %llu %llu", exec, &delay, runs) != 3)
		*exec = *runs = 0;
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	static char *names[] = { "user", "kernel", "mixed", "sleeper", "napper" };
	pthread_t th[5], *idle = NULL;
	int nidle = 0, n = 4;
	unsigned long long e0 = 0, r0 = 0, e1 = 0, r1 = 0, w0 = 0;
	char sampler[320] = "";

	if (argc < 2 || !(truth = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: systime TRUTH [SECONDS [IDLE]]\n");
		return 2;
	}
	if (argc > 2)
		seconds = atof(argv[2]);
	if (argc > 3 && (nidle = atoi(argv[3])) > 0) {
		pthread_attr_t at;
		int every = nidle / 8 > 0 ? nidle / 8 : 1;

		n = 5;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 128 * 1024);
		if (!(idle = calloc((size_t)nidle, sizeof *idle)))
			return 1;
		for (int i = 0; i < nidle; i++)
			if (pthread_create(&idle[i], &at, crowd, i % every == every / 2 ? "" : NULL)) {
				perror("systime: pthread_create");
				return 1;
			}
		/*
		 * The sampler takes the crowd up (a walk of each, then a few
		 * ticks before it finds them quiet): a second, and at least 60
		 * of its runs (about its ticks, however slowly a loaded machine
		 * gives them), at most 10 s.
		 */
		find_sampler(sampler, sizeof sampler);
		sampler_stat(sampler, &e0, &r0);
		for (int i = 0; i < 100; i++) {
			blocked(100);
			sampler_stat(sampler, &e1, &r1);
			if (i >= 9 && r1 >= r0 + 60)
				break;
		}
		/* The sampler's cost beside the crowd alone, for 1.5 s. */
		sampler_stat(sampler, &e0, &r0);
		w0 = now_ns(CLOCK_MONOTONIC);
		blocked(1500);
		sampler_stat(sampler, &e1, &r1);
		printf("sampler %llu %llu %llu\n", e1 - e0, r1 - r0, now_ns(CLOCK_MONOTONIC) - w0);
		fflush(stdout);
	}
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run, names[i]);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (nidle) {
		pthread_mutex_lock(&crowd_lock);
		crowd_over = 1;
		pthread_cond_broadcast(&crowd_cond);
		pthread_mutex_unlock(&crowd_lock);
		for (int i = 0; i < nidle; i++)
			pthread_join(idle[i], NULL);
	}
	if (fclose(truth) != 0)
		return 1;
	puts("done");
	return 0;
}
