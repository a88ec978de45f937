/*
 * bigcopy.c — a memory-heavy program, as a video encoder is: it copies
 * large buffers, and allocates frames of varying sizes that it keeps a few
 * of at a time, so that its page faults depend on where glibc's malloc puts
 * them (mapped apart, or in the heap, trimmed and grown again) and on
 * nothing else. A collector that takes memory from the program's malloc
 * (a large block freed raises glibc's mmap threshold) changes them.
 *
 *   bigcopy [ROUNDS]
 *
 * Each round copies one 64 MiB buffer into another (memcpy, libc's), then
 * 250 frames of 150-900 KiB (posix_memalign, the newest 4 kept), then runs
 * crunch() (plain arithmetic) for about as long as the copies took. It
 * prints, on stderr, its own accounts (getrusage and its thread's CPU clock):
 *
 *   bigcopy: minflt N majflt N copy S s of S s CPU
 *
 * "copy" is the CPU time inside the memcpy calls, so that a profile's
 * share of memcpy can be checked against it. Default 8 rounds, about 1.7
 * CPU-s here. With 8 rounds, glibc 2.36 on x86-64: 50.3 k minor faults; 43.6 k
 * with an idle thread beside it (glibc's posix_memalign takes another path
 * in a process with threads), and 43.7 k under zt before it stopped using
 * malloc (the scratch of its first tables raised the mmap threshold to
 * 512 KiB).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { BIG = 64 << 20, FRAMES = 250, RING = 4, FRAME_LO = 150 << 10, FRAME_HI = 900 << 10 };

static volatile uint64_t sink;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* memcpy, its CPU time added to *spent. */
__attribute__((noinline)) static void copy(void *to, const void *from, size_t n, double *spent)
{
	double t0 = thread_cpu();

	memcpy(to, from, n);
	*spent += thread_cpu() - t0;
}

/* Arithmetic for about secs of CPU time. */
__attribute__((noinline)) static void crunch(double secs)
{
	double end = thread_cpu() + secs;
	uint64_t x = 1;

	while (thread_cpu() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	sink += x;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;
	char *src = malloc(BIG), *dst = malloc(BIG), *ring[RING] = { 0 };
	uint64_t x = 1;
	long n = 0;
	double spent = 0;
	struct rusage ru;

	if (!src || !dst || rounds < 1) {
		fprintf(stderr, "usage: bigcopy [ROUNDS]\n");
		return 2;
	}
	memset(src, 1, BIG);
	for (int r = 0; r < rounds; r++) {
		double before = spent;

		copy(dst, src, BIG, &spent);
		for (int f = 0; f < FRAMES; f++) {
			size_t size;
			void *p;

			x = x * 6364136223846793005u + 1442695040888963407u;
			size = FRAME_LO + (size_t)(x >> 20) % (FRAME_HI - FRAME_LO);
			if (posix_memalign(&p, 64, size) != 0)
				return 1;
			copy(p, src + (x >> 40) % 4096, size, &spent);
			sink += ((unsigned char *)p)[size / 2];
			free(ring[n % RING]);
			ring[n++ % RING] = p;
		}
		crunch(spent - before);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "bigcopy: minflt %ld majflt %ld copy %.3f s of %.3f s CPU\n", ru.ru_minflt,
		ru.ru_majflt, spent, thread_cpu());
	return dst[12345] != 1;
}
