/*
 * sys.c — the system calls and clocks zt makes for itself (sys.h).
 */
#include "sys.h"
#include "arch.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

long zt_sys_call(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = zt_arch_syscall(nr, a, b, c, d, e, f);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

int zt_sys_close(int fd)
{
	return (int)zt_sys_call(SYS_close, fd, 0, 0, 0, 0, 0);
}

ssize_t zt_sys_read_file(const char *path, char *buf, size_t size)
{
	int fd = (int)zt_sys_call(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = zt_sys_call(SYS_read, fd, (long)buf, (long)(size - 1), 0, 0, 0);
	while (n < 0 && errno == EINTR);
	zt_sys_close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

pid_t zt_sys_gettid(void)
{
	return (pid_t)zt_sys_call(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

uint64_t zt_sys_clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zt_sys_minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_minflt;
}

int64_t zt_sys_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t zt_rusage_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * 1000u;
}

int zt_sys_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "sigaction");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(sig, act, old);
}
