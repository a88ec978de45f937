/*
 * manymaps.c — a short run with a long maps section: N (default 3000)
 * one-page mappings whose protections alternate, so that none merge. Its
 * dump's size is set by the maps, not by the samples, which makes it the
 * program for tests that need a dump of a known size (a disk that fills up).
 */
#include <stdlib.h>
#include <sys/mman.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3000;

	for (int i = 0; i < n; i++)
		if (mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return 1;
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;
	return 0;
}
