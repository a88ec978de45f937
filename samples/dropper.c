/*
 * dropper.c — a program started as root that gives up root for good
 * (setgid, setuid to nobody) and then works, as daemons do: its output
 * directory, root's, is then closed to it (tests/0177).
 *
 *   dropper [UID]            (default 65534, nobody)
 *   dropper child PROG ARG   a child gives up root, then execs PROG; the
 *                            parent works and waits for it
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void work(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	uid_t uid = argc > 1 && strcmp(argv[1], "child") ? (uid_t)strtoul(argv[1], NULL, 10) : 65534;

	if (argc > 2 && strcmp(argv[1], "child") == 0) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
				_exit(1);
			work();
			execv(argv[2], argv + 2);
			_exit(127);
		}
		work();
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			return 1;
		printf("dropper: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 0;
	}
	if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0) {
		perror("dropper");
		return 1;
	}
	work();
	printf("dropper: worked as %d\n", (int)getuid());
	return 0;
}
