/*
 * seccomp.c — a program that sandboxes itself with seccomp is never killed
 * by one of zt's own system calls.
 *
 * A filter may kill or trap on a call the program never makes but zt does
 * (perf_event_open for a new thread's counter, process_vm_readv in the
 * handler, renameat at the end). So when the program installs a filter
 * (prctl(PR_SET_SECCOMP) or the seccomp system call through syscall(3),
 * both interposed here) zt first tries the same filter in a child of its
 * own, made with clone(2) without SIGCHLD so the program never sees it: the
 * child installs the filter and makes each call zt may make from then on,
 * in three groups, and the parent learns from a shared page which call, if
 * any, killed it. Then, before the program's filter goes in:
 *
 *   the handler's or the ending's calls are refused: sampling stops and
 *        the dump is finished now (it covers the run until the filter);
 *   a new thread's timer calls are refused: threads created from then on
 *        are not sampled (counted);
 *   nothing is refused: sampling goes on.
 *
 * The dump's summary says which, with the first call refused. A filter
 * already in place when the program starts (Seccomp: in /proc/self/status,
 * set before exec) is tried the same way in a child that inherits it; when
 * it refuses the ending's calls, zt does not start and tells zt-collect
 * through its status pipe. A filter installed with a raw system call that
 * does not go through libc is not seen (zt-collect(1), CAVEATS).
 */
#include "seccomp.h"
#include "rawfmt.h"
#include "dump.h"
#include "files.h"
#include "prof.h"
#include "control.h"
#include "offcpu.h"
#include "launch.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static long (*real_syscall)(long, ...);
static int (*real_prctl)(int, ...);

/* What the child reached: the index of the call it was making. */
static volatile int *reached;
/* The child leaves perf_event_open out: zt falls back to the POSIX timer. */
static int skip_perf;

/* The calls zt may make after start, in the order the child tries them. */
enum {
	/* the handler's */
	C_WRITE, C_PROCESS_VM_READV, C_RT_TGSIGQUEUEINFO, C_RT_SIGQUEUEINFO, C_TGKILL,
	C_CLOCK_GETTIME, C_GETTID, C_GETPID,
	/* the ending's (and a thread's end) */
	C_OPENAT, C_PREAD64, C_READ, C_FSTAT, C_FSTATFS, C_STAT, C_FCNTL, C_IOCTL, C_CLOSE,
	C_RT_SIGPROCMASK, C_RT_SIGPENDING, C_RT_SIGTIMEDWAIT, C_GETRUSAGE, C_READLINK, C_RENAMEAT, C_RENAME, C_UNLINKAT,
	C_UNLINK, C_ACCESS, C_FDATASYNC, C_MMAP, C_MPROTECT, C_MUNMAP,
	/* a new thread's timer */
	C_SCHED_GETAFFINITY, C_SIGALTSTACK, C_PRLIMIT64, C_FALLOCATE, C_PWRITE64,
	C_PERF_EVENT_OPEN, C_TIMER_CREATE,
	C_TIMER_SETTIME, C_TIMER_DELETE, C_DONE
};

static const char *const call_names[C_DONE] = {
	"write", "process_vm_readv", "rt_tgsigqueueinfo", "rt_sigqueueinfo", "tgkill",
	"clock_gettime", "gettid", "getpid",
	"openat", "pread64", "read", "newfstatat", "fstatfs", "stat", "fcntl", "ioctl", "close",
	"rt_sigprocmask", "rt_sigpending", "rt_sigtimedwait", "getrusage", "readlink", "renameat", "rename", "unlinkat",
	"unlink", "access", "fdatasync", "mmap", "mprotect", "munmap",
	"sched_getaffinity", "sigaltstack", "prlimit64", "fallocate", "pwrite64",
	"perf_event_open", "timer_create",
	"timer_settime", "timer_delete",
};

#define RESOLVE(name) \
	do { if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name); } while (0)

/* Resolved before anything can call them from a signal handler. */
__attribute__((constructor)) static void resolve(void)
{
	RESOLVE(syscall);
	RESOLVE(prctl);
}

/* Make each call, as zt makes it, with arguments that change nothing. */
static void try_calls(void)
{
	static const char none[] = "/proc/self/zt-seccomp-probe";
	struct perf_event_attr attr;
	struct iovec local, remote;
	struct sigevent sev;
	struct itimerspec its;
	struct rusage ru;
	struct stat st;
	cpu_set_t cpus;
	siginfo_t si;
	stack_t ss;
	sigset_t set;
	timer_t timer;
	char buf[64];
	void *m;
	int fd, pfd;
	pid_t pid = (pid_t)real_syscall(SYS_getpid), tid = (pid_t)real_syscall(SYS_gettid);

	*reached = C_WRITE;
	(void)!write(zt_state.status.fd >= 0 ? zt_state.status.fd : 2, buf, 0);
	*reached = C_PROCESS_VM_READV;
	local.iov_base = buf;
	local.iov_len = 8;
	remote.iov_base = (void *)none;
	remote.iov_len = 8;
	real_syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0);
	memset(&si, 0, sizeof si);
	si.si_code = SI_QUEUE;
	*reached = C_RT_TGSIGQUEUEINFO;
	real_syscall(SYS_rt_tgsigqueueinfo, pid, tid, 0, &si);
	*reached = C_RT_SIGQUEUEINFO;
	real_syscall(SYS_rt_sigqueueinfo, pid, 0, &si);
	*reached = C_TGKILL;
	real_syscall(SYS_tgkill, pid, tid, 0);
	*reached = C_CLOCK_GETTIME;
	zt_sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	*reached = C_GETTID;
	real_syscall(SYS_gettid);
	*reached = C_GETPID;
	real_syscall(SYS_getpid);

	*reached = C_OPENAT;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	*reached = C_PREAD64;
	(void)!pread(fd, buf, 1, 0);
	*reached = C_READ;
	(void)!read(fd, buf, 1);
	*reached = C_FSTAT;
	fstat(fd, &st);
	*reached = C_FSTATFS;	/* the dump's start: is /proc/self/maps procfs (dump.c) */
	{
		struct statfs sfs;

		fstatfs(fd, &sfs);
	}
	*reached = C_STAT;
	stat(none, &st);
	*reached = C_FCNTL;
	fcntl(fd, F_GETFL);
	*reached = C_IOCTL;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	*reached = C_CLOSE;
	real_syscall(SYS_close, fd);
	*reached = C_RT_SIGPROCMASK;
	real_syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &set, 8);
	*reached = C_RT_SIGPENDING;	/* a status line's SIGPIPE guard (files.c) */
	real_syscall(SYS_rt_sigpending, &set, 8);
	*reached = C_RT_SIGTIMEDWAIT;
	{
		struct timespec zero = { 0, 0 };
		uint64_t none_set = 0;

		real_syscall(SYS_rt_sigtimedwait, &none_set, NULL, &zero, 8);
	}
	*reached = C_GETRUSAGE;
	getrusage(RUSAGE_SELF, &ru);
	*reached = C_READLINK;
	(void)!readlink("/proc/self/exe", buf, sizeof buf);
	*reached = C_RENAMEAT;
	renameat(AT_FDCWD, none, AT_FDCWD, none);
	*reached = C_RENAME;
	rename(none, none);
	*reached = C_UNLINKAT;
	unlinkat(AT_FDCWD, none, 0);
	*reached = C_UNLINK;
	unlink(none);
	*reached = C_ACCESS;
	access(none, F_OK);
	*reached = C_FDATASYNC;
	fdatasync(-1);
	*reached = C_MMAP;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*reached = C_MPROTECT;
	mprotect(m, 4096, PROT_READ | PROT_WRITE);
	*reached = C_MUNMAP;
	munmap(m, 4096);

	*reached = C_SCHED_GETAFFINITY;
	sched_getaffinity(0, sizeof cpus, &cpus);
	*reached = C_SIGALTSTACK;
	real_syscall(SYS_sigaltstack, NULL, &ss);	/* not the interposer, which may answer itself */
	*reached = C_PRLIMIT64;	/* the descriptor budget (timer.c) */
	{
		struct rlimit rl;

		getrlimit(RLIMIT_NOFILE, &rl);
	}
	*reached = C_FALLOCATE;	/* a new thread's buffer slot in the .bufs file (spill.c) */
	fallocate(-1, 0, 0, 4096);
	*reached = C_PWRITE64;
	(void)!pwrite(-1, buf, 0, 0);
	*reached = C_PERF_EVENT_OPEN;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 1000000000ull;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	pfd = skip_perf ? -1 :
	      (int)real_syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd >= 0) {
		struct f_owner_ex owner = { F_OWNER_TID, tid };

		*reached = C_FCNTL;
		fd = fcntl(pfd, F_DUPFD_CLOEXEC, 512);
		fcntl(pfd, F_SETFL, O_ASYNC);
		fcntl(pfd, F_SETSIG, zt_state.signo ? zt_state.signo : SIGRTMIN);
		fcntl(pfd, F_SETOWN_EX, &owner);
		*reached = C_IOCTL;
		ioctl(pfd, PERF_EVENT_IOC_RESET, 0);
		ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
		*reached = C_CLOSE;
		real_syscall(SYS_close, pfd);
		if (fd >= 0)
			real_syscall(SYS_close, fd);
	}
	*reached = C_TIMER_CREATE;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = zt_state.signo ? zt_state.signo : SIGRTMIN;	/* not chosen yet at start */
	sev._sigev_un._tid = tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) == 0) {
		memset(&its, 0, sizeof its);
		its.it_value.tv_sec = 1000;
		*reached = C_TIMER_SETTIME;
		timer_settime(timer, 0, &its, NULL);
		*reached = C_TIMER_DELETE;
		timer_delete(timer);
	}
	*reached = C_DONE;
}

/*
 * The first call of zt's that the filter kills or traps: C_DONE when none,
 * -1 when it could not be tried, -2 when the child could not install it. install: 0 to try the filter the process
 * already has, 1 to install prog with seccomp(2) flags first, 2 with prctl.
 */
static int probe(int install, unsigned long flags, const void *prog)
{
	struct sigaction dfl;
	int status;
	long pid;

	RESOLVE(syscall);
	if (!real_syscall)
		return -1;
	if (!reached) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		reached = p;
	}
	*reached = -1;
	/* Exit signal 0: no SIGCHLD reaches the program, and wait(2) does not
	 * reap it. The child has a copy of the memory and returns here. */
	pid = real_syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		/* A trap must end the child, not run the program's handler. */
		zt_sys_sigaction(SIGSYS, &dfl, NULL);
		if (install == 1 &&
		    real_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				 flags & ~(unsigned long)(SECCOMP_FILTER_FLAG_TSYNC |
							 SECCOMP_FILTER_FLAG_NEW_LISTENER),
				 prog) < 0)
			real_syscall(SYS_exit_group, 100L);
		if (install == 2 &&
		    real_syscall(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0L, 0L) < 0)
			real_syscall(SYS_exit_group, 100L);
		try_calls();
		real_syscall(SYS_exit_group, 0L);
	}
	while (waitpid((pid_t)pid, &status, __WCLONE) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
		return -2;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return C_DONE;
	return *reached >= 0 && *reached < C_DONE ? *reached : -1;
}

/*
 * What zt does about a filter that kills call (an index; -1: the filter
 * could not be tried), before it goes in.
 */
static void obey(int call, int inherited)
{
	if (call != C_DONE)
		zt_state.seccomp_refused = call >= 0 ? call_names[call] : "clone";
	if (inherited && zt_state.seccomp == ZT_SECCOMP_FALLBACK) {
		return;
	} else if (call < 0) {
		zt_state.seccomp = ZT_SECCOMP_STOPPED;
		if (!inherited)
			zt_prof_stop();
	} else if (call >= C_SCHED_GETAFFINITY && call < C_DONE) {
		zt_state.seccomp = ZT_SECCOMP_NO_TIMERS;
	} else if (call >= 0 && call < C_SCHED_GETAFFINITY) {
		zt_state.seccomp = ZT_SECCOMP_STOPPED;
		if (!inherited)
			zt_prof_stop();
	} else if (zt_state.seccomp == ZT_SECCOMP_NONE) {
		zt_state.seccomp = ZT_SECCOMP_ALLOWED;
	}
}

/* The summary's "seccomp" line: what the program's filter left zt, and the first call it refused. */
static void put_summary(int fd)
{
	if (zt_state.seccomp != ZT_SECCOMP_NONE) {
		zt_files_puts(fd, zt_state.seccomp == ZT_SECCOMP_STOPPED ?
				  ZT_RAW_SECCOMP " " ZT_RAW_SECCOMP_STOPPED :
			     zt_state.seccomp == ZT_SECCOMP_NO_TIMERS ?
				  ZT_RAW_SECCOMP " " ZT_RAW_SECCOMP_NO_TIMERS :
			     zt_state.seccomp == ZT_SECCOMP_FALLBACK ?
				  ZT_RAW_SECCOMP " " ZT_RAW_SECCOMP_FALLBACK :
				  ZT_RAW_SECCOMP " " ZT_RAW_SECCOMP_ALLOWED);
		if (zt_state.seccomp_refused) {
			zt_files_puts(fd, " ");
			zt_files_puts(fd, zt_state.seccomp_refused);
		}
		zt_files_puts(fd, "\n");
	}
}

int zt_seccomp_start(void)
{
	static const struct zt_dump_part part = { .put_summary = put_summary };

	char buf[4096];
	ssize_t n;
	const char *p;
	int r;

	zt_dump_register(&part);
	RESOLVE(syscall);
	RESOLVE(prctl);
	n = zt_sys_read_file("/proc/self/status", buf, sizeof buf);
	if (n < 0)
		return 0;
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return 0;
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '0')
		return 0;
	/* Strict mode (1) would not have let the program load; 2 is a filter. */
	r = probe(0, 0, NULL);
	if (r == C_PERF_EVENT_OPEN && zt_state.want_timer != 1) {
		/* The POSIX timer, if the filter allows it. */
		skip_perf = 1;
		r = probe(0, 0, NULL);
		if (r == C_DONE) {
			zt_state.want_timer = 2;
			r = C_PERF_EVENT_OPEN;
			zt_state.seccomp = ZT_SECCOMP_FALLBACK;
		}
	}
	obey(r, 1);
	if (zt_state.seccomp == ZT_SECCOMP_NO_TIMERS)
		zt_state.seccomp = ZT_SECCOMP_STOPPED;
	if (zt_state.seccomp == ZT_SECCOMP_STOPPED) {
		char what[96] = ZT_STATUS_SECCOMP_REFUSES;

		strcat(what, zt_state.seccomp_refused);
		zt_files_status(what, 0, 0);
		return -1;
	}
	return 0;
}

/* Before the program's own filter goes in: see what it would refuse. */
static void before_filter(int install, unsigned long mode, unsigned long flags, const void *prog)
{
	int strict = install == 1 ? mode == SECCOMP_SET_MODE_STRICT : mode == SECCOMP_MODE_STRICT;
	int filter = install == 1 ? mode == SECCOMP_SET_MODE_FILTER : mode == SECCOMP_MODE_FILTER;
	int saved = errno;

	if (!zt_state_owner() || zt_state.seccomp == ZT_SECCOMP_STOPPED || (!strict && !filter))
		return;
	/* The control channel's thread makes calls no probe tries: it ends
	 * before any filter goes in (the C API goes on where zt does). */
	zt_control_close_channel(1);
	/* A filter for every thread would hold the off-CPU sampler too: it stops first. */
	if (filter && install == 1 && (flags & SECCOMP_FILTER_FLAG_TSYNC))
		zt_offcpu_stop();
	if (strict) {
		obey(C_PROCESS_VM_READV, 0);
	} else {
		int r = probe(install, flags, prog);

		/* A filter the child could not install will not go in. */
		if (r != -2)
			obey(r, 0);
	}
	errno = saved;
}

ZT_INTERPOSE int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	RESOLVE(prctl);
	if (option == PR_SET_SECCOMP)
		before_filter(2, a[0], 0, (const void *)a[1]);
	if (!real_prctl) {
		errno = ENOSYS;
		return -1;
	}
	return real_prctl(option, a[0], a[1], a[2], a[3]);
}

ZT_INTERPOSE long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	RESOLVE(syscall);
	if (nr == SYS_seccomp)
		before_filter(1, (unsigned long)a[0], (unsigned long)a[1], (const void *)a[2]);
	else if (nr == SYS_prctl && a[0] == PR_SET_SECCOMP)
		before_filter(2, (unsigned long)a[1], 0, (const void *)a[2]);
	if (!real_syscall) {
		errno = ENOSYS;
		return -1;
	}
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
