/*
 * blockio.c — blocking calls in one thread while another burns CPU (and so
 * takes samples): read on a pipe, write, nanosleep, poll and select. Any
 * EINTR is reported ("EINTR in read") and makes the exit status 1; with
 * none it prints "no EINTR". Then it starts children with vfork+exec and
 * posix_spawn and checks their exit status ("spawned 0 0").
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile unsigned long sink;
static volatile int done;
static int bad;

__attribute__((noinline)) static void *burner(void *arg)
{
	(void)arg;
	while (!done)
		for (unsigned long i = 0; i < 1000000; i++)
			sink += i;
	return NULL;
}

static void check(long rc, const char *what)
{
	if (rc < 0 && errno == EINTR) {
		printf("EINTR in %s\n", what);
		bad = 1;
	}
}

__attribute__((noinline)) static void main_cpu(void)
{
	for (unsigned long i = 0; i < 50000000; i++)
		sink += i;
}

int main(void)
{
	int p[2];
	char c;
	pthread_t th;
	struct timespec ts = { 0, 20000000 };
	pid_t pid;
	int st1 = -1, st2 = -1;
	char *argv[] = { "true", NULL };

	if (pipe(p) < 0 || pthread_create(&th, NULL, burner, NULL) != 0)
		return 2;
	for (int round = 0; round < 20; round++) {
		struct pollfd pfd = { p[0], POLLIN, 0 };
		fd_set set;
		struct timeval tv = { 0, 10000 };

		main_cpu();
		check(nanosleep(&ts, NULL), "nanosleep");
		check(poll(&pfd, 1, 10), "poll");
		FD_ZERO(&set);
		FD_SET(p[0], &set);
		check(select(p[0] + 1, &set, NULL, NULL, &tv), "select");
		check(write(p[1], "x", 1), "write");
		check(read(p[0], &c, 1), "read");
	}
	done = 1;
	pthread_join(th, NULL);
	printf("%s\n", bad ? "EINTR seen" : "no EINTR");

	pid = vfork();
	if (pid == 0) {
		execvp("true", argv);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st1, 0) == pid)
		st1 = WEXITSTATUS(st1);
	if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) == 0 &&
	    waitpid(pid, &st2, 0) == pid)
		st2 = WEXITSTATUS(st2);
	printf("spawned %d %d\n", st1, st2);
	return bad;
}
