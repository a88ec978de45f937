/*
 * fdhostile.c — a program that manages its own descriptors hard, for the
 * collector's descriptor tests (tests/0175, 0176).
 *
 *   fdhostile exits N       N short threads one after another, then the
 *                           number of perf_event descriptors left open
 *   fdhostile eventfd       an eventfd moved onto a number a collector's
 *                           counter had (closed under it with a raw system
 *                           call), then close(): whether it really closed
 *   fdhostile budget T O    T threads alive at once, then O opens of
 *                           /dev/null: how many failed
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

/* Descriptors whose /proc/self/fd link is target, from lo up; the first in *first. */
static int count_links(const char *target, int lo, int *first)
{
	char path[64], link[64];
	int n = 0;

	*first = -1;
	for (int fd = lo; fd < 4096; fd++) {
		ssize_t k;

		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		k = readlink(path, link, sizeof link - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		if (strcmp(link, target) == 0 && n++ == 0)
			*first = fd;
	}
	return n;
}

static void *short_thread(void *arg)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
	return arg;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go;

static void *waiting_thread(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int first;

	if (strcmp(mode, "exits") == 0 && argc > 2) {
		int n = atoi(argv[2]);

		for (int i = 0; i < n; i++) {
			pthread_t th;

			if (pthread_create(&th, NULL, short_thread, NULL) != 0)
				return 1;
			pthread_join(th, NULL);
		}
		printf("perf descriptors open after %d threads: %d\n", n,
		       count_links("anon_inode:[perf_event]", 0, &first));
		return 0;
	}
	if (strcmp(mode, "eventfd") == 0) {
		int e, num;

		/* A collector's counter, if there is one: its number is taken. */
		count_links("anon_inode:[perf_event]", 3, &first);
		num = first >= 0 ? first : 700;
		syscall(SYS_close, num);
		e = eventfd(0, 0);
		if (e < 0 || dup2(e, num) != num)
			return 1;
		close(e);
		close(num);
		printf("eventfd at a reused number: %s\n",
		       fcntl(num, F_GETFD) < 0 && errno == EBADF ? "closed" : "still open");
		return 0;
	}
	if (strcmp(mode, "budget") == 0 && argc > 3) {
		int t = atoi(argv[2]), o = atoi(argv[3]), failed = 0, ok = 0;
		pthread_t *th = calloc((size_t)t, sizeof *th);
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (int i = 0; i < t; i++)
			if (pthread_create(&th[i], &attr, waiting_thread, NULL) != 0)
				return 1;
		for (int i = 0; i < o; i++) {
			if (open("/dev/null", O_RDONLY) < 0)
				failed++;
			else
				ok++;
		}
		pthread_mutex_lock(&lock);
		go = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		for (int i = 0; i < t; i++)
			pthread_join(th[i], NULL);
		printf("%d threads, %d opens: %d failed\n", t, o, failed);
		return 0;
	}
	fprintf(stderr, "usage: fdhostile exits N | eventfd | budget THREADS OPENS\n");
	return 2;
}
