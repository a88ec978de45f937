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

#endif
