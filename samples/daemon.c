/*
 * daemon.c — a program that closes every descriptor it did not open, as
 * daemons do, then opens a log of its own, writes to it and burns CPU.
 *
 *   daemon LOG close|range|closefrom|raw [ROUNDS]
 *
 * close: close(2) on 3..4095; range: close_range(3, ~0U, 0) through libc;
 * closefrom: glibc's closefrom(3), which makes the system call itself;
 * raw: the close_range system call itself, then the log's descriptor
 * duplicated onto 512..1023, where a collector keeps its own: a collector
 * that writes through a number it once had would write into the log.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void burn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "close";
	long rounds = argc > 3 ? atol(argv[3]) : 300;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: daemon LOG close|range|closefrom|raw [ROUNDS]\n");
		return 2;
	}
	if (strcmp(mode, "close") == 0) {
		for (int i = 3; i < 4096; i++)
			close(i);
	} else if (strcmp(mode, "range") == 0) {
		close_range(3, ~0U, 0);
	} else if (strcmp(mode, "closefrom") == 0) {
		closefrom(3);
	} else if (strcmp(mode, "raw") == 0) {
		syscall(SYS_close_range, 3, ~0U, 0);
	} else {
		fprintf(stderr, "daemon: unknown mode '%s'\n", mode);
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (strcmp(mode, "raw") == 0)
		for (int i = 512; i < 1024; i++)
			dup2(fd, i);
	for (long r = 0; r < rounds; r++) {
		burn(1000000);
		if (r % 100 == 0 && write(fd, "daemon log\n", 11) != 11)
			return 1;
	}
	return 0;
}
