/*
 * evloop.c — a server-like process: one busy event-loop thread and a few
 * background threads that sleep most of the time (redis's shape), for the
 * truth of zt-collect's summary line (tests/0123).
 *
 * The main thread serves requests on a socketpair in a poll loop: it writes
 * a request to one end, polls the other, reads it, computes (handle), and
 * writes a reply that it reads back, so about half of its CPU time is
 * system time. Three background threads wake every 100 ms: two compute a
 * little, one reads /dev/zero (system time). A fourth starts and ends each
 * second (short-lived). Each thread measures itself as it ends and writes
 * one line to the file TRUTH:
 *
 *   name tid utime stime cpu
 *
 * utime and stime (ns) its getrusage(RUSAGE_THREAD), cpu (ns) its
 * CLOCK_THREAD_CPUTIME_ID. Before exiting, main writes a last line for the
 * whole process, "process 0 utime stime cpu" (RUSAGE_SELF,
 * CLOCK_PROCESS_CPUTIME_ID).
 *
 *   evloop TRUTH [SECONDS]    main serves until it used SECONDS CPU-s (default 1)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int stop;
static FILE *truth;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000ull + tv.tv_usec * 1000ull;
}

/* The calling thread's own account of itself, one line of TRUTH. */
static void measure(const char *name)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	pthread_mutex_lock(&lock);
	fprintf(truth, "%s %ld %llu %llu %llu\n", name, (long)syscall(SYS_gettid),
		tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), now_ns(CLOCK_THREAD_CPUTIME_ID));
	fflush(truth);
	pthread_mutex_unlock(&lock);
}

/* A request's user work: a few microseconds of arithmetic. */
__attribute__((noinline)) void handle(char *buf, int n)
{
	unsigned long h = 5381;

	for (int r = 0; r < 40; r++)
		for (int i = 0; i < n; i++)
			h = h * 33 + (unsigned char)buf[i];
	sink += h;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void background_compute(void)
{
	for (int i = 0; i < 200000; i++)
		sink += i;
}

static void *background(void *arg)
{
	int kernel = arg != NULL;
	int fd = kernel ? open("/dev/zero", O_RDONLY) : -1;
	static char buf[1 << 18];

	while (!stop) {
		sleep_ms(100);
		if (kernel && read(fd, buf, sizeof buf) < 0)
			perror("evloop: /dev/zero");
		else if (!kernel)
			background_compute();
	}
	measure(kernel ? "bg-kernel" : "bg-user");
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *shortlived(void *arg)
{
	(void)arg;
	background_compute();
	measure("short");
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 1;
	int client = argc > 3 && strcmp(argv[3], "client") == 0;
	unsigned long long until, next_short;
	pthread_t bg[3], shortt;
	int shorts = 0;
	char buf[512];
	int sv[2];
	struct rusage ru;

	if (argc < 2 || argc > 4 || seconds <= 0 ||
	    (argc > 3 && strcmp(argv[3], "client") && strcmp(argv[3], "self"))) {
		fprintf(stderr, "usage: evloop TRUTH [SECONDS [self|client]]\n");
		return 2;
	}
	if (!(truth = fopen(argv[1], "w"))) {
		perror(argv[1]);
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("evloop: socketpair");
		return 1;
	}
	memset(buf, 'x', sizeof buf);
	for (int i = 0; i < 3; i++)
		pthread_create(&bg[i], NULL, background, i == 2 ? (void *)1 : NULL);
	until = now_ns(CLOCK_THREAD_CPUTIME_ID) + (unsigned long long)(seconds * 1e9);
	next_short = now_ns(CLOCK_MONOTONIC) + 1000000000ull;
	if (client) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("evloop: fork");
			return 1;
		}
		if (pid == 0) {
			/* The client: a request, then its reply, until the server closes. */
			close(sv[1]);
			while (write(sv[0], buf, sizeof buf) == sizeof buf &&
			       read(sv[0], buf, sizeof buf) > 0)
				;
			_exit(0);
		}
		close(sv[0]);
	}
	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < until) {
		struct pollfd p = { sv[1], POLLIN, 0 };
		ssize_t n;

		if ((!client && write(sv[0], buf, sizeof buf) != sizeof buf) ||
		    poll(&p, 1, 1000) != 1 || (n = read(sv[1], buf, sizeof buf)) <= 0) {
			perror("evloop: request");
			return 1;
		}
		handle(buf, (int)n);
		if (write(sv[1], buf, (size_t)n) != n ||
		    (!client && read(sv[0], buf, sizeof buf) != n)) {
			perror("evloop: reply");
			return 1;
		}
		if (now_ns(CLOCK_MONOTONIC) > next_short) {
			if (shorts++)
				pthread_join(shortt, NULL);
			pthread_create(&shortt, NULL, shortlived, NULL);
			next_short += 1000000000ull;
		}
	}
	if (client) {
		close(sv[1]);
		wait(NULL);
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(bg[i], NULL);
	if (shorts)
		pthread_join(shortt, NULL);
	measure("main");
	getrusage(RUSAGE_SELF, &ru);
	fprintf(truth, "process 0 %llu %llu %llu\n", tv_ns(ru.ru_utime), tv_ns(ru.ru_stime),
		now_ns(CLOCK_PROCESS_CPUTIME_ID));
	fclose(truth);
	return 0;
}
