/*
 * dlstorm.c — a dlopen/dlclose storm: THREADS threads (argv[1], default 4)
 * open and close samples/libplugin.so as fast as they can while the main
 * thread loads samples/libstorma.so and samples/libstormb.so in turn,
 * ROUNDS times (argv[2], default 40), each time running the library's hot
 * function (storm_a_hot three times as long as storm_b_hot) and closing it.
 * The two libraries have the same layout, so the loader usually puts each
 * where the other was. It prints how many rounds found the library at the
 * address the one before it had, and the share of the main thread's CPU
 * time each hot function took, measured with its own thread CPU clock: the
 * oracle for a profile that must name each sample after the library that
 * was mapped when it was taken.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];
static volatile int stop;

static void lib_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void *storm(void *arg)
{
	char path[PATH_MAX + 32];

	(void)arg;
	lib_path(path, sizeof path, "libplugin.so");
	while (!stop) {
		void *h = dlopen(path, RTLD_NOW);

		if (!h) {
			fprintf(stderr, "dlstorm: %s\n", dlerror());
			exit(1);
		}
		dlclose(h);
	}
	return NULL;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	int rounds = argc > 2 ? atoi(argv[2]) : 40;
	pthread_t tids[64];
	double cpu[2] = { 0, 0 };
	void *last = NULL;
	int same = 0;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);

	if (n <= 0 || nthreads < 0 || nthreads > 64 || rounds < 1)
		return 2;
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	for (int i = 0; i < nthreads; i++)
		pthread_create(&tids[i], NULL, storm, NULL);
	for (int r = 0; r < rounds; r++) {
		char path[PATH_MAX + 32];
		void (**hot)(unsigned long);
		Dl_info info;
		void *h;
		double t0;

		lib_path(path, sizeof path, r % 2 ? "libstormb.so" : "libstorma.so");
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "dlstorm: %s\n", dlerror());
			return 1;
		}
		hot = dlsym(h, "storm_hot");
		if (!hot || !dladdr((void *)*hot, &info))
			return 1;
		same += info.dli_fbase == last;
		last = info.dli_fbase;
		t0 = thread_cpu();
		(*hot)(r % 2 ? 4000000 : 12000000);
		cpu[r % 2] += thread_cpu() - t0;
		dlclose(h);
	}
	stop = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	printf("same-address rounds %d of %d\n", same, rounds - 1);
	printf("storm_a_hot %.3f\nstorm_b_hot %.3f\n", cpu[0] / (cpu[0] + cpu[1]),
	       cpu[1] / (cpu[0] + cpu[1]));
	return 0;
}
