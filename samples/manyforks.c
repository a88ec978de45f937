/*
 * manyforks.c — forks N children (2500 by default) one after another, each
 * of which exits at once, and says how many failed. Under zt-collect -f each
 * child's collector says two lines on the status pipe, more than a pipe
 * holds (64 KiB) for 2500 of them: zt-collect must read them as they come
 * (tests/0115).
 *
 *   manyforks [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2500, bad = 0;
	for (int i = 0; i < n; i++) {
		int st;
		pid_t p = fork();
		if (p == 0)
			exit(0);
		if (p < 0 || waitpid(p, &st, 0) != p || st != 0)
			bad++;
	}
	printf("manyforks: %d children, %d failed\n", n, bad);
	return 0;
}
