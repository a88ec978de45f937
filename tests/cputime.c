/*
 * cputime — run a command and print the CPU time it and its waited-for
 * descendants used, from wait4's rusage, as "USER_SECONDS SYS_SECONDS
 * MAXRSS_KIB" on stderr's last line. The tests compare sample counts with it, so it must
 * not come from zt's own numbers. Exit status: the command's.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: cputime COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("cputime: exec");
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("cputime");
		return 1;
	}
	fprintf(stderr, "%.6f %.6f %ld\n",
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
		ru.ru_maxrss);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
