/*
 * prefork.c — a prefork server's shape, for the control channel of forked
 * children (tests/0905-ctl-children.bats): the parent forks N workers and
 * waits for them; each worker writes its pid to DIR/child.K and computes
 * in worker_work until DIR/stop appears, then exits 0.
 *
 *   prefork DIR [N]     N workers (default 2); prints "N workers done"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void worker_work(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i * 5;
}

static int worker(const char *dir, int k)
{
	char path[4096], tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s/child.%d.tmp", dir, k);
	snprintf(path, sizeof path, "%s/child.%d", dir, k);
	if (!(f = fopen(tmp, "w")) || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		perror("prefork: child pid file");
		return 1;
	}
	snprintf(path, sizeof path, "%s/stop", dir);
	while (access(path, F_OK) != 0)
		worker_work();
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 2, bad = 0, st;

	if (argc < 2 || n < 1 || n > 64) {
		fprintf(stderr, "usage: prefork DIR [N]\n");
		return 2;
	}
	for (int k = 0; k < n; k++) {
		pid_t p = fork();

		if (p < 0) {
			perror("prefork: fork");
			return 1;
		}
		if (p == 0)
			_exit(worker(argv[1], k));
	}
	for (int k = 0; k < n; k++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	printf("%d workers done\n", n);
	return bad;
}
