/*
 * waits.c — threads that wait in known ways, for the off-CPU tests
 * (tests/0900-collect-offcpu.bats) and zt-collect(1)'s figures.
 *
 *   waits TRUTH [SECONDS]
 *
 * Each thread is named after what it does, and waits from a function of
 * its own (wait_in_poll, ...) so that a stack can be checked for its true
 * caller:
 *
 *   sleeper   nanosleep (via usleep) 20 ms at a time
 *   locker    a mutex that holder keeps for 30 ms at a time
 *   holder    takes the mutex, sleeps 30 ms holding it, lets go
 *   condvar   pthread_cond_wait, signalled by main every 20 ms
 *   poller    poll on a pipe nobody writes, 20 ms timeout
 *   epoller   epoll_wait on that pipe, 20 ms timeout
 *   selecter  select on it, 20 ms timeout
 *   semwait   sem_timedwait on a semaphore nobody posts, 20 ms
 *   reader    read on a pipe main writes a byte to every 20 ms
 *   joiner    pthread_join of a thread that sleeps SECONDS
 *   compute   computes all the time
 *   half      computes 30 ms, sleeps 30 ms
 *
 * Every call's result is checked: an EINTR (or any failure) is printed and
 * the program exits 1. Its standard output is the same every run (one line
 * per thread, in a fixed order); the truth goes to the file TRUTH, one line per thread:
 * "name tid start_ns end_ns exec_ns delay_ns", CLOCK_MONOTONIC and what
 * the thread's own /proc/self/task/TID/schedstat gained between them, so
 * that its off-CPU time is (end - start) - exec - delay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_NAME "waits"
#include "truth.h"

#define NOINLINE __attribute__((noinline))

static double seconds = 2.0;
static uint64_t deadline;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cflag, quiet_pipe[2], data_pipe[2], epfd;
static sem_t sem;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static FILE *truth;
static volatile unsigned long sink;

static int done(void)
{
	return now_ns() >= deadline;
}

/* The thread's name, and its truth line when it ends. */
struct me {
	const char *name;
	uint64_t start;
	unsigned long long exec0, delay0;	/* schedstat at start: a new thread waits for its first CPU */
};

static void begin(struct me *m, const char *name)
{
	m->name = name;
	schedstat(&m->exec0, &m->delay0);
	m->start = now_ns();
	if (pthread_setname_np(pthread_self(), name) != 0)
		fail("pthread_setname_np", EINVAL);
}

static void end(struct me *m)
{
	unsigned long long exec = 0, delay = 0;
	uint64_t stop = now_ns();

	schedstat(&exec, &delay);
	pthread_mutex_lock(&out);
	fprintf(truth, "%s %ld %llu %llu %llu %llu\n", m->name, (long)syscall(SYS_gettid),
		(unsigned long long)m->start, (unsigned long long)stop, exec - m->exec0,
		delay - m->delay0);
	pthread_mutex_unlock(&out);
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		fail("nanosleep", errno);
}

static NOINLINE void wait_in_sleep(void)
{
	if (usleep(20000) < 0)
		fail("usleep", errno);
}

static void *sleeper(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "sleeper");
	while (!done())
		wait_in_sleep();
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_lock(void)
{
	int e = pthread_mutex_lock(&lock);

	if (e)
		fail("pthread_mutex_lock", e);
	if ((e = pthread_mutex_unlock(&lock)))
		fail("pthread_mutex_unlock", e);
}

static void *locker(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "locker");
	ms_sleep(5);	/* holder has it first */
	while (!done())
		wait_in_lock();
	end(&m);
	return NULL;
}

static void *holder(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "holder");
	while (!done()) {
		int e = pthread_mutex_lock(&lock);

		if (e)
			fail("pthread_mutex_lock", e);
		ms_sleep(30);
		if ((e = pthread_mutex_unlock(&lock)))
			fail("pthread_mutex_unlock", e);
		sched_yield();
	}
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_cond(void)
{
	int e = pthread_mutex_lock(&cmutex);

	if (e)
		fail("pthread_mutex_lock", e);
	while (!cflag)
		if ((e = pthread_cond_wait(&cond, &cmutex)))
			fail("pthread_cond_wait", e);
	cflag = 0;
	if ((e = pthread_mutex_unlock(&cmutex)))
		fail("pthread_mutex_unlock", e);
}

static volatile int cond_over;

static void *condvar(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "condvar");
	while (!done() && !cond_over)
		wait_in_cond();
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_poll(void)
{
	struct pollfd p = { quiet_pipe[0], POLLIN, 0 };

	if (poll(&p, 1, 20) < 0)
		fail("poll", errno);
}

static void *poller(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "poller");
	while (!done())
		wait_in_poll();
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_epoll(void)
{
	struct epoll_event ev;

	if (epoll_wait(epfd, &ev, 1, 20) < 0)
		fail("epoll_wait", errno);
}

static void *epoller(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "epoller");
	while (!done())
		wait_in_epoll();
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_select(void)
{
	fd_set r;
	struct timeval tv = { 0, 20000 };

	FD_ZERO(&r);
	FD_SET(quiet_pipe[0], &r);
	if (select(quiet_pipe[0] + 1, &r, NULL, NULL, &tv) < 0)
		fail("select", errno);
}

static void *selecter(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "selecter");
	while (!done())
		wait_in_select();
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_sem(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		fail("clock_gettime", errno);
	ts.tv_nsec += 20000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (sem_timedwait(&sem, &ts) < 0 && errno != ETIMEDOUT)
		fail("sem_timedwait", errno);
}

static void *semwait(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "semwait");
	while (!done())
		wait_in_sem();
	end(&m);
	return NULL;
}

static NOINLINE int wait_in_read(void)
{
	char c;
	ssize_t n = read(data_pipe[0], &c, 1);

	if (n < 0)
		fail("read", errno);
	return n == 1 && c == 'x';
}

static void *reader(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "reader");
	while (wait_in_read())
		;
	end(&m);
	return NULL;
}

static void *longsleep(void *a)
{
	(void)a;
	while (!done())
		ms_sleep(50);
	return NULL;
}

static NOINLINE void wait_in_join(pthread_t t)
{
	int e = pthread_join(t, NULL);

	if (e)
		fail("pthread_join", e);
}

static void *joiner(void *a)
{
	struct me m;
	pthread_t t;
	int e;

	(void)a;
	begin(&m, "joiner");
	if ((e = pthread_create(&t, NULL, longsleep, NULL)))
		fail("pthread_create", e);
	wait_in_join(t);
	end(&m);
	return NULL;
}

static NOINLINE void compute_for(uint64_t ns)
{
	uint64_t until = now_ns() + ns;
	unsigned long x = sink;

	while (now_ns() < until)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static void *compute(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "compute");
	while (!done())
		compute_for(10000000);
	end(&m);
	return NULL;
}

static NOINLINE void wait_in_half(void)
{
	ms_sleep(30);
}

static void *half(void *a)
{
	struct me m;

	(void)a;
	begin(&m, "half");
	while (!done()) {
		compute_for(30000000);
		wait_in_half();
	}
	end(&m);
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { sleeper, holder, locker, condvar, poller, epoller, selecter,
				  semwait, reader, joiner, compute, half };
	static const char *const names[] = { "sleeper", "holder", "locker", "condvar", "poller",
		"epoller", "selecter", "semwait", "reader", "joiner", "compute", "half" };
	enum { N = sizeof fn / sizeof fn[0] };
	pthread_t t[N];
	struct epoll_event ev = { .events = EPOLLIN };
	int e;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: waits TRUTH [SECONDS]\n");
		return 2;
	}
	if (argc == 3)
		seconds = strtod(argv[2], NULL);
	if (!(truth = fopen(argv[1], "w")))
		fail(argv[1], errno);
	if (pipe(quiet_pipe) < 0 || pipe(data_pipe) < 0)
		fail("pipe", errno);
	if ((epfd = epoll_create1(0)) < 0)
		fail("epoll_create1", errno);
	ev.data.fd = quiet_pipe[0];
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, quiet_pipe[0], &ev) < 0)
		fail("epoll_ctl", errno);
	if (sem_init(&sem, 0, 0) < 0)
		fail("sem_init", errno);
	setvbuf(stdout, NULL, _IOLBF, 0);
	deadline = now_ns() + (uint64_t)(seconds * 1e9);
	for (int i = 0; i < N; i++)
		if ((e = pthread_create(&t[i], NULL, fn[i], NULL)))
			fail("pthread_create", e);
	/* The condition variable's and the pipe's other end, every 20 ms. */
	while (!done()) {
		ms_sleep(20);
		if ((e = pthread_mutex_lock(&cmutex)))
			fail("pthread_mutex_lock", e);
		cflag = 1;
		if ((e = pthread_cond_signal(&cond)) || (e = pthread_mutex_unlock(&cmutex)))
			fail("pthread_cond_signal", e);
		if (write(data_pipe[1], "x", 1) != 1)
			fail("write", errno);
	}
	if (write(data_pipe[1], "q", 1) != 1)
		fail("write", errno);
	if ((e = pthread_mutex_lock(&cmutex)))
		fail("pthread_mutex_lock", e);
	cond_over = 1;
	cflag = 1;
	if ((e = pthread_cond_signal(&cond)) || (e = pthread_mutex_unlock(&cmutex)))
		fail("pthread_cond_signal", e);
	/* Joined in the order they were made: the output's order is fixed. */
	for (int i = 0; i < N; i++)
		if ((e = pthread_join(t[i], NULL)))
			fail("pthread_join", e);
		else
			printf("%s ok\n", names[i]);
	if (fclose(truth) != 0)
		fail("fclose", errno);
	return 0;
}
