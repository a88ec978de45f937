/*
 * diskread.c — a thread that waits on a disk, in uninterruptible sleep (D
 * state), for the off-CPU tests (tests/0903-collect-offcpu-disk.bats):
 * O_DIRECT reads of a file bypass the page cache, so every read waits for
 * the device, and no root is needed.
 *
 *   diskread FILE TRUTH [SECONDS]
 *
 * Main writes FILE (8 MiB, made anew and synced), then a thread named
 * "disk" reads 4 KiB blocks of it at pseudo-random aligned offsets with
 * pread (from read_block, its own function, so a stack can be checked for
 * its caller) until SECONDS (default 1.5) have passed, while main joins
 * it. FILE is removed at the end. Every call's result is checked. The
 * truth goes to TRUTH as samples/waits.c writes it: "name tid start_ns
 * end_ns exec_ns delay_ns" for the disk thread, from its own schedstat at
 * its first and last lines (main writes it after the join);
 * its off-CPU time is (end - start) - exec - delay. Standard output is
 * "disk reads done", the same every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_NAME "diskread"
#include "truth.h"

enum { BLOCK = 4096, BLOCKS = 2048 };	/* 8 MiB */

static const char *path, *truth_path;
static double seconds = 1.5;

static __attribute__((noinline)) void read_block(int fd, void *buf, off_t at)
{
	ssize_t n = pread(fd, buf, BLOCK, at);

	if (n < 0)
		fail("pread", errno);
	if (n != BLOCK)
		fail("pread", EIO);
}

/* The disk thread's truth: its life, and what its schedstat gained meanwhile. */
static unsigned long long exec0, delay0, exec1, delay1;
static uint64_t start, stop;
static long disk_tid;

static void *disk(void *arg)
{
	uint64_t deadline, x = 88172645463325252ull;
	void *buf;
	int fd, rc;

	(void)arg;
	schedstat(&exec0, &delay0);
	start = now_ns();
	disk_tid = (long)syscall(SYS_gettid);
	if (pthread_setname_np(pthread_self(), "disk") != 0)
		fail("pthread_setname_np", EINVAL);
	if ((rc = posix_memalign(&buf, BLOCK, BLOCK)) != 0)
		fail("posix_memalign", rc);
	if ((fd = open(path, O_RDONLY | O_DIRECT)) < 0)
		fail(path, errno);
	deadline = start + (uint64_t)(seconds * 1e9);
	while (now_ns() < deadline) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		read_block(fd, buf, (off_t)(x % BLOCKS) * BLOCK);
	}
	if (close(fd) < 0)
		fail("close", errno);
	free(buf);
	stop = now_ns();
	schedstat(&exec1, &delay1);
	return NULL;
}

int main(int argc, char **argv)
{
	static char block[BLOCK];
	pthread_t t;
	int fd, rc;
	FILE *truth;

	if (argc < 3 || (argc > 3 && (seconds = atof(argv[3])) <= 0)) {
		fprintf(stderr, "usage: diskread FILE TRUTH [SECONDS]\n");
		return 2;
	}
	path = argv[1];
	truth_path = argv[2];
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		fail(path, errno);
	for (int i = 0; i < BLOCKS; i++) {
		memset(block, i & 0xff, sizeof block);
		if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
			fail("write", errno ? errno : EIO);
	}
	if (fsync(fd) < 0)
		fail("fsync", errno);
	if (close(fd) < 0)
		fail("close", errno);
	if ((rc = pthread_create(&t, NULL, disk, NULL)) != 0)
		fail("pthread_create", rc);
	if ((rc = pthread_join(t, NULL)) != 0)
		fail("pthread_join", rc);
	if (!(truth = fopen(truth_path, "w")))
		fail(truth_path, errno);
	fprintf(truth, "disk %ld %llu %llu %llu %llu\n", disk_tid, (unsigned long long)start,
		(unsigned long long)stop, exec1 - exec0, delay1 - delay0);
	if (fclose(truth) != 0)
		fail(truth_path, errno);
	if (unlink(path) < 0)
		fail("unlink", errno);
	printf("disk reads done\n");
	return 0;
}
