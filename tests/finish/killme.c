/*
 * killme — a busy loop that logs, about every millisecond of its
 * CPU time, "MONOTONIC_NS THREAD_CPU_NS" to the file argv[1] (write(2): the
 * lines survive a SIGKILL). With argv[2], it returns after that many
 * CPU-seconds. tests/0121-collect-finish.bats kills it at random moments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

static unsigned long long ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

int main(int argc, char **argv)
{
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	double limit = argc > 2 ? atof(argv[2]) : 0;
	char line[64];

	if (fd < 0)
		return 2;
	puts("started");
	fflush(stdout);
	for (;;) {
		unsigned long long cpu;
		int n;

		for (unsigned long i = 0; i < 300000; i++)
			sink += i;
		cpu = ns(CLOCK_THREAD_CPUTIME_ID);
		n = snprintf(line, sizeof line, "%llu %llu\n", ns(CLOCK_MONOTONIC), cpu);
		if (write(fd, line, (size_t)n) != n)
			return 2;
		if (limit > 0 && cpu >= limit * 1e9)
			return 0;
	}
}
