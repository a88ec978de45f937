/*
 * windows.c — a daemon that does not end by itself, for sampling windows
 * (zt-collect --paused, zt-ctl): two kinds of work in three phases, moved
 * on by files the test creates in DIR, so that a window opened in the
 * middle phase holds only inside_work.
 *
 *   windows DIR [raw]
 *
 * It writes its pid to DIR/pid, then runs outside_work until DIR/go
 * exists, creates DIR/in and runs inside_work until DIR/stop exists,
 * creates DIR/out and runs outside_work until DIR/end exists. Before the
 * first phase it forks a child that counts the sockets it holds, and with
 * "raw" it closes every descriptor above 2 by the close_range system call
 * itself, behind any interposer's back. A thread sleeps in nanosleep and
 * poll all along and counts the EINTRs. It prints "child sockets N",
 * "eintr N" and "done", and exits 3.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int done;
static volatile int eintr;
static const char *dir;

static int exists(const char *name)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

static void mark(const char *name, const char *text)
{
	char p[4096], tmp[4200];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", p);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, p) != 0) {
		perror(p);
		exit(1);
	}
}

__attribute__((noinline)) void outside_work(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 3;
}

__attribute__((noinline)) void inside_work(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 7;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 5000000 };

	(void)arg;
	while (!done) {
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			eintr++;
		if (poll(NULL, 0, 5) < 0 && errno == EINTR)
			eintr++;
	}
	return NULL;
}

static int child_sockets(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p[300], l[256];
		ssize_t k;

		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		k = readlink(p, l, sizeof l - 1);
		if (k > 0) {
			l[k] = '\0';
			n += strncmp(l, "socket:", 7) == 0;
		}
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	char pid[32];
	pthread_t th;
	pid_t c;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: windows DIR [raw]\n");
		return 2;
	}
	dir = argv[1];
	if (argc > 2 && strcmp(argv[2], "raw") == 0)
		syscall(SYS_close_range, 3U, ~0U, 0);
	fflush(stdout);
	c = fork();
	if (c == 0) {
		printf("child sockets %d\n", child_sockets());
		fflush(stdout);
		_exit(0);
	}
	if (c < 0 || waitpid(c, &status, 0) != c)
		return 1;
	if (pthread_create(&th, NULL, sleeper, NULL) != 0)
		return 1;
	snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	mark("pid", pid);
	while (!exists("go"))
		outside_work();
	mark("in", "");
	while (!exists("stop"))
		inside_work();
	mark("out", "");
	while (!exists("end"))
		outside_work();
	done = 1;
	pthread_join(th, NULL);
	printf("eintr %d\ndone\n", eintr);
	return 3;
}
