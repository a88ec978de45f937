/*
 * floor.c — the cost no sampler at 997 Hz avoids, for the benchmarks that
 * measure a collector's overhead (collect-overhead.sh, unwind-cost.sh):
 * preloaded, it arms the same perf task-clock counter zt uses, signalling
 * SIGPROF to an empty handler, so that zt's own share can be told from the
 * kernel's.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile unsigned long hits;
static void on_prof(int sig) { (void)sig; hits++; }
__attribute__((constructor)) static void arm(void)
{
	struct perf_event_attr a;
	struct f_owner_ex o = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct sigaction sa;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ull / 997;
	a.exclude_kernel = 1;
	a.wakeup_events = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETSIG, SIGPROF);
	fcntl(fd, F_SETOWN_EX, &o);
}
