/*
 * forker.c — a parent and a forked child that each burn CPU in a function
 * of their own: parent_work in the parent, child_work in the child. With
 * "exec PROGRAM", the child execs PROGRAM instead. The parent prints the
 * child's exit status as "child status N" and returns 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void parent_work(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i;
}

__attribute__((noinline)) void child_work(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (argc > 2 && strcmp(argv[1], "exec") == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		child_work();
		printf("child done\n");
		exit(3);
	}
	parent_work();
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status)
						 : 128 + WTERMSIG(status));
	return 0;
}
