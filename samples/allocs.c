/*
 * allocs.c — allocations of known behaviour, for zt-collect --alloc's tests
 * (tests/0780). Each site has a size of its own, so a test can tell the
 * sites apart by the size on a dump's "$a" lines as well as by its frames.
 *
 *   allocs sites [MIB]  4 threads allocate MIB MiB (default 4096) in all,
 *                       freed at once: 10% in 16-byte blocks (site16), 20%
 *                       in 1000-byte ones (site1000), 30% in 65536-byte
 *                       ones (site64k), 40% in 1 MiB ones (site1m)
 *   allocs leaks        leaks 32 MiB at each of three sites: 32-byte,
 *                       4096-byte and 1 MiB blocks
 *   allocs peak         holds 200 MiB of 1 MiB + 1 blocks, frees them, then
 *                       keeps 50 MiB of 4096-byte ones; prints the
 *                       CLOCK_MONOTONIC time before and after the first
 *                       phase ("peak FROM TO")
 *   allocs exact        realloc growth, calloc, reallocarray and every
 *                       aligned allocator; prints the bytes asked for
 *   allocs behave       what the allocator says back: errno, usable size,
 *                       alignment, realloc's contents; prints it all
 *   allocs forks        threads allocating while the main thread forks;
 *                       a signal handler that allocates (raised between
 *                       two allocations: malloc is not async-signal-safe)
 *   allocs double       frees a block twice (glibc aborts)
 *   allocs live N       keeps N 16-byte blocks live to the end (default 10
 *                       million)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile char sink;

static __attribute__((noinline)) void *site16(void) { return malloc(16); }
static __attribute__((noinline)) void *site1000(void) { return malloc(1000); }
static __attribute__((noinline)) void *site64k(void) { return malloc(65536); }
static __attribute__((noinline)) void *site1m(void) { return malloc(1048576); }

static long long total_mib = 4096;

static void use(void *p)
{
	if (!p)
		abort();
	sink = *(volatile char *)p;
	free(p);
}

static void *sites_worker(void *arg)
{
	long long bytes = total_mib * 1048576 / 4;
	long long n16 = bytes / 10 / 16, n1000 = bytes / 5 / 1000, n64k = bytes * 3 / 10 / 65536,
		  n1m = bytes * 4 / 10 / 1048576;

	(void)arg;
	/* Interleaved, so that each site's samples come from the whole run. */
	for (long long i = 0; i < n16; i++) {
		use(site16());
		if (i % 16 == 0 && n1000 > 0) {
			for (int k = 0; k < 5 && n1000 > 0; k++, n1000--)
				use(site1000());
		}
		if (i % 2048 == 0) {
			for (int k = 0; k < 1 && n64k > 0; k++, n64k--)
				use(site64k());
			if (i % 32768 == 0 && n1m > 0) {
				use(site1m());
				n1m--;
			}
		}
	}
	while (n1000-- > 0)
		use(site1000());
	while (n64k-- > 0)
		use(site64k());
	while (n1m-- > 0)
		use(site1m());
	return NULL;
}

static int sites(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, sites_worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("allocated %lld MiB\n", total_mib);
	return 0;
}

static __attribute__((noinline)) void *leak32(void) { return malloc(32); }
static __attribute__((noinline)) void *leak4096(void) { return malloc(4096); }
static __attribute__((noinline)) void *leak1m(void) { return malloc(1048576); }

static int leaks(void)
{
	for (int i = 0; i < 32 * 1048576 / 32; i++)
		sink = *(volatile char *)leak32();
	for (int i = 0; i < 32 * 1048576 / 4096; i++)
		sink = *(volatile char *)leak4096();
	for (int i = 0; i < 32; i++)
		sink = *(volatile char *)leak1m();
	/* Churn that frees what it takes: not in use at the end. */
	for (int i = 0; i < 100000; i++)
		use(malloc(512));
	printf("leaked 3 x 32 MiB\n");
	return 0;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static __attribute__((noinline)) void *peak_block(void) { return malloc(1048577); }
static __attribute__((noinline)) void *after_block(void) { return malloc(4096); }

static int peak(void)
{
	static void *held[200];
	unsigned long long from, to;

	from = now_ns();
	for (int i = 0; i < 200; i++)
		held[i] = peak_block();
	to = now_ns();
	usleep(20000);
	for (int i = 0; i < 200; i++)
		free(held[i]);
	for (int i = 0; i < 50 * 256; i++)
		sink = *(volatile char *)after_block();
	printf("peak %llu %llu\n", from, to);
	return 0;
}

static int exact(void)
{
	unsigned long long asked = 0;
	void *p = NULL, *q;

	for (size_t n = 4096; n <= 4 << 20; n += 4096) {
		p = realloc(p, n);
		asked += n;
	}
	free(p);
	for (int i = 0; i < 1000; i++) {
		if (posix_memalign(&q, 64, 1000) == 0)
			free(q);
		free(aligned_alloc(4096, 8192));
		free(memalign(256, 3000));
		free(valloc(5000));
		free(calloc(10, 100));
		q = reallocarray(NULL, 20, 50);
		free(reallocarray(q, 40, 50));
		asked += 1000 + 8192 + 3000 + 5000 + 1000 + 1000 + 2000;
	}
	printf("asked %llu\n", asked);
	fflush(stdout);
	return 0;
}

static int behave(void)
{
	void *p, *q;
	int err;

	errno = 0;
	p = malloc(SIZE_MAX / 2);
	err = errno;
	printf("huge: %s, errno %s\n", p ? "given" : "NULL", strerror(err));
	p = malloc(100);
	printf("usable 100: %zu\n", malloc_usable_size(p));
	memset(p, 'x', 100);
	q = realloc(p, 100000);
	printf("realloc keeps: %d\n", memcmp(q, (char[100]){ [0 ... 99] = 'x' }, 100) == 0);
	free(q);
	p = aligned_alloc(4096, 4096);
	printf("aligned 4096: %d\n", (uintptr_t)p % 4096 == 0);
	free(p);
	if (posix_memalign(&p, 3, 64) == EINVAL)
		printf("posix_memalign 3: EINVAL\n");
	p = calloc(1000, 1000);
	printf("calloc zeroed: %d\n", ((char *)p)[999999] == 0);
	free(p);
	errno = 0;
	p = calloc(SIZE_MAX / 2, sizeof(int) + (size_t)(err < 0));
	err = errno;
	printf("calloc overflow: %s, errno %s\n", p ? "given" : "NULL", strerror(err));
	p = malloc(10);
	errno = 0;
	q = reallocarray(p, SIZE_MAX / 2, sizeof(int) + (size_t)(err < 0));
	err = errno;
	printf("reallocarray overflow: %s, errno %s\n", q ? "given" : "NULL", strerror(err));
	free(p);
	printf("realloc to 0: %s\n", realloc(malloc(10), 0) ? "given" : "NULL");
	return 0;
}

/* malloc is not async-signal-safe: the signal is raised from code outside it. */
static void on_usr1(int sig)
{
	(void)sig;
	for (int i = 0; i < 100; i++)
		free(malloc(3000));
}

static void *fork_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 300000; i++)
		use(malloc(200 + i % 5000));
	return NULL;
}

static int forks(void)
{
	pthread_t t[2];
	int bad = 0;

	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fork_worker, NULL);
	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			for (int k = 0; k < 10000; k++)
				use(malloc(100 + k));
			_exit(7);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 7;
		for (int k = 0; k < 20000; k++) {
			use(malloc(64));
			if (k % 1000 == 0)
				raise(SIGUSR1);
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("forks: %d bad\n", bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "sites";

	if (argc > 2 && strcmp(what, "sites") == 0)
		total_mib = atoll(argv[2]);
	if (strcmp(what, "sites") == 0)
		return sites();
	if (strcmp(what, "leaks") == 0)
		return leaks();
	if (strcmp(what, "peak") == 0)
		return peak();
	if (strcmp(what, "exact") == 0)
		return exact();
	if (strcmp(what, "behave") == 0)
		return behave();
	if (strcmp(what, "forks") == 0)
		return forks();
	if (strcmp(what, "live") == 0) {
		long long n = argc > 2 ? atoll(argv[2]) : 10000000;

		for (long long i = 0; i < n; i++)
			sink = *(volatile char *)malloc(16);
		printf("live %lld\n", n);
		return 0;
	}
	if (strcmp(what, "double") == 0) {
		void *p = malloc(64);

		free(p);
		free(p);
		return 0;
	}
	fprintf(stderr, "allocs: unknown mode %s\n", what);
	return 2;
}
