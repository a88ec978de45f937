/*
 * jitter.c — a tiny JIT: it maps anonymous executable memory, writes two
 * functions of machine code into it (jit_hot_a, then jit_hot_b 256 bytes
 * on), lists them in /tmp/perf-PID.map as JIT runtimes do for perf, and
 * runs jit_hot_a three times as long as jit_hot_b. Then it unmaps the code
 * and maps a file (its own executable) at the same address, executable,
 * and keeps it there until it exits: a profile must still name the JIT
 * samples from the perf map, never from the file mapped there later.
 *
 *   jitter [raw] [ROUNDS]
 *
 * raw: every mmap and munmap is a raw system call, which zt's interposers
 * do not see (only its signal handler can notice the code); the program
 * then makes one ordinary mmap call of its own, as programs do. The perf
 * map is left in /tmp, as JIT runtimes leave theirs. ROUNDS (default 8)
 * rounds of both functions run, each about 0.1 s. It prints
 * the share of its CPU time each function took, from its own thread CPU
 * clock, and the address of the code.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int raw;

static void *map(void *addr, size_t len, int prot, int flags, int fd)
{
	if (raw)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, 0);
	return mmap(addr, len, prot, flags, fd, 0);
}

static int unmap(void *addr, size_t len)
{
	return raw ? (int)syscall(SYS_munmap, addr, len) : munmap(addr, len);
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* mov rcx, rdi; 1: dec rcx; jnz 1b; ret */
static const unsigned char loop_code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };

int main(int argc, char **argv)
{
	const size_t len = 1 << 16;
	char path[64];
	unsigned char *code;
	void (*hot_a)(unsigned long), (*hot_b)(unsigned long);
	double cpu[2] = { 0, 0 }, t0;
	int fd, rounds = 8;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		raw |= strcmp(argv[i], "raw") == 0;
		if (argv[i][0] >= '1' && argv[i][0] <= '9')
			rounds = atoi(argv[i]);
	}
	code = map(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, loop_code, sizeof loop_code);
	memcpy(code + 256, loop_code, sizeof loop_code);
	hot_a = (void (*)(unsigned long))(uintptr_t)code;
	hot_b = (void (*)(unsigned long))(uintptr_t)(code + 256);
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_hot_a\n", (unsigned long)(uintptr_t)code, sizeof loop_code);
	fprintf(f, "%lx %zx jit_hot_b\n", (unsigned long)(uintptr_t)(code + 256), sizeof loop_code);
	fclose(f);
	for (int r = 0; r < rounds; r++) {
		t0 = thread_cpu();
		hot_a(150000000);
		cpu[0] += thread_cpu() - t0;
		t0 = thread_cpu();
		hot_b(50000000);
		cpu[1] += thread_cpu() - t0;
	}
	if (raw) {
		/* An ordinary call into libc, as any program makes. */
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	/* The code goes; a file takes its place. */
	unmap(code, len);
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || map(code, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd) != code)
		return 1;
	close(fd);
	printf("code %lx\n", (unsigned long)(uintptr_t)code);
	printf("jit_hot_a %.3f\njit_hot_b %.3f\n", cpu[0] / (cpu[0] + cpu[1]),
	       cpu[1] / (cpu[0] + cpu[1]));
	return 0;
}
