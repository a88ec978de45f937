/*
 * sys.h — the system calls and clocks zt makes for itself (the bottom of
 * collect/, beside state.h). zt's own calls never go through its
 * interposers (intercept.c's close, seccomp.c's syscall, ...), which exist
 * for the program's calls: a descriptor of zt's is closed by zt_sys_close
 * and nothing else. All async-signal-safe, except zt_sys_sigaction's first
 * call (it resolves libc's sigaction; zt makes it at start).
 */
#ifndef ZT_SYS_H
#define ZT_SYS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

#include "arch.h"

#define ZT_HIDDEN __attribute__((visibility("hidden")))
#define ZT_EXPORT __attribute__((visibility("default")))
/*
 * An interposer (a function of zt's that the program calls in place of
 * libc's, and that hands over to the real one) or a start trampoline: kept
 * in the section zt_handover, whose extent the dump gives (zt-handover,
 * formats/raw.md), so that readers take the work under it for the
 * program's, and the work of zt's other functions for zt's ([zt]).
 */
#define ZT_HANDOVER_SECTION "zt_handover"
#define ZT_INTERPOSE ZT_EXPORT __attribute__((section(ZT_HANDOVER_SECTION)))

/* A system call, raw (arch.h): its result, or -1 with errno set. */
ZT_HIDDEN long zt_sys_call(long nr, long a, long b, long c, long d, long e, long f);
/* Close one of zt's own descriptors. */
ZT_HIDDEN int zt_sys_close(int fd);
ZT_HIDDEN pid_t zt_sys_gettid(void);
/* A clock's reading in nanoseconds; 0 if it cannot be read. */
ZT_HIDDEN uint64_t zt_sys_clock_ns(clockid_t clock);
/* The calling thread's minor page faults so far (getrusage); 0 if unknown. */
ZT_HIDDEN uint64_t zt_sys_minflt(void);
/* The process's CPU clock, in nanoseconds; 0 if it cannot be read. */
ZT_HIDDEN int64_t zt_sys_cpu_ns(void);
/* User plus system time of a struct rusage, in nanoseconds. */
struct rusage;
ZT_HIDDEN uint64_t zt_rusage_ns(const struct rusage *ru);
/*
 * Read a small file (one of /proc's) whole into buf[0..size-1), ended with
 * a NUL: the bytes read, or -1 when it cannot be opened or holds nothing.
 * One read, through raw system calls.
 */
ZT_HIDDEN ssize_t zt_sys_read_file(const char *path, char *buf, size_t size);
/* libc's own sigaction, past the program's view of it (intercept.c). */
ZT_HIDDEN int zt_sys_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/*
 * Anonymous memory for zt's own tables, and its return: past the mmap and
 * munmap interposers, so that zt's memory is never taken for the program's
 * (inline: cfi.c is also built into tests without the rest of collect/).
 * zt_sys_map returns MAP_FAILED when refused.
 */
static inline void *zt_sys_map(size_t len)
{
	long r = zt_arch_syscall(SYS_mmap, 0, (long)len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return r < 0 && r > -4096 ? MAP_FAILED : (void *)r;
}

static inline void zt_sys_unmap(void *p, size_t len)
{
	zt_arch_syscall(SYS_munmap, (long)p, (long)len, 0, 0, 0, 0);
}

/*
 * zt never takes memory from the program's malloc (nor from libc calls
 * that do: qsort, opendir, pthread_getattr_np, a failed dlsym): it would
 * change the program's own heap, where its blocks lie and, through glibc's
 * mmap threshold that a freed large block raises, which of its blocks are
 * mapped apart and how often its heap is trimmed and faulted in again.
 *
 * zt_sys_grow makes room for need bytes at *p, of which *cap are mapped
 * (none at first): a bigger mapping (twice, at least 64 KiB) that the old
 * one's pages move to (mremap, so they are not faulted in again; copied
 * when mremap is refused). -1 when refused, *p left as it was.
 */
static inline int zt_sys_grow(void **p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 65536;
	long r;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > ((size_t)-1) / 4)
			return -1;
		c *= 2;
	}
	if (*cap) {
		r = zt_arch_syscall(SYS_mremap, (long)*p, (long)*cap, (long)c, MREMAP_MAYMOVE, 0, 0);
		if (!(r < 0 && r > -4096)) {
			*p = (void *)r;
			*cap = c;
			return 0;
		}
	}
	r = (long)zt_sys_map(c);
	if ((void *)r == MAP_FAILED)
		return -1;
	if (*cap) {
		__builtin_memcpy((void *)r, *p, *cap);
		zt_sys_unmap(*p, *cap);
	}
	*p = (void *)r;
	*cap = c;
	return 0;
}

/* The mapping zt_sys_grow made, returned (none: nothing). */
static inline void zt_sys_drop(void *p, size_t cap)
{
	if (cap)
		zt_sys_unmap(p, cap);
}

/* Element i of an array of size-byte elements. */
#define ZT_SORT_AT(base, i, size) ((char *)(base) + (size_t)(i) * (size))

/* The merge sort under zt_sys_sort: a[0..n) sorted, tmp as scratch. */
static inline void zt_sys_msort(char *a, char *tmp, size_t n, size_t size,
				int (*cmp)(const void *, const void *))
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	zt_sys_msort(a, tmp, h, size, cmp);
	zt_sys_msort(a + h * size, tmp, n - h, size, cmp);
	if (cmp(ZT_SORT_AT(a, h - 1, size), ZT_SORT_AT(a, h, size)) <= 0)
		return;		/* already in order */
	while (i < h && j < n) {
		/* The left one first when equal: stable, as glibc's qsort is. */
		size_t from = cmp(ZT_SORT_AT(a, j, size), ZT_SORT_AT(a, i, size)) < 0 ? j++ : i++;

		__builtin_memcpy(ZT_SORT_AT(tmp, k++, size), ZT_SORT_AT(a, from, size), size);
	}
	/* What is left of the right half is in place already. */
	if (i < h)
		__builtin_memcpy(ZT_SORT_AT(tmp, k, size), ZT_SORT_AT(a, i, size), (h - i) * size);
	__builtin_memcpy(a, tmp, (k + h - i) * size);
}

/*
 * qsort, stable as glibc's is, on memory of zt's own: scratch on the
 * stack when small, else mapped; in place (insertion, slow but stable)
 * when no mapping can be had.
 */
static inline void zt_sys_sort(void *base, size_t n, size_t size,
			       int (*cmp)(const void *, const void *))
{
	_Alignas(16) char small[2048];
	char *tmp = small;
	size_t bytes = n * size;

	if (n < 2)
		return;
	if (bytes > sizeof small) {
		tmp = zt_sys_map(bytes);
		if (tmp == MAP_FAILED) {
			char *a = base, one[256];

			if (size > sizeof one)
				return;
			for (size_t i = 1; i < n; i++) {
				size_t j = i;

				__builtin_memcpy(one, ZT_SORT_AT(a, i, size), size);
				while (j > 0 && cmp(ZT_SORT_AT(a, j - 1, size), one) > 0) {
					__builtin_memcpy(ZT_SORT_AT(a, j, size), ZT_SORT_AT(a, j - 1, size), size);
					j--;
				}
				__builtin_memcpy(ZT_SORT_AT(a, j, size), one, size);
			}
			return;
		}
	}
	zt_sys_msort(base, tmp, n, size, cmp);
	if (tmp != small)
		zt_sys_unmap(tmp, bytes);
}

#endif
