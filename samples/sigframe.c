/*
 * sigframe.c — a program that spends much of its CPU time in a signal
 * handler: a timer on the process's CPU clock raises SIGALRM every 2 ms of
 * CPU time (the kernel tick, at the least) while main runs interrupted_work,
 * and on_alarm spins in handler_spin for about 1 ms. A CPU clock, not
 * ITIMER_REAL: on a busy machine a wall-clock timer would leave main hardly
 * any time between handlers. Profiled stacks in the handler must go through
 * handler_spin, on_alarm, the signal trampoline (__restore_rt) and on into
 * interrupted_work and main.
 *
 * An optional argument scales the work (default 50 rounds, about 0.2
 * CPU-seconds). How often the timer fires depends on the kernel's tick and
 * on the machine's load, so main goes on past its rounds until the handler
 * has used 300 ms of CPU time (about 300 samples at 997 Hz, 80 under qemu), or the process
 * 10 CPU-seconds: a test can count on the handler's share whatever the
 * timer did. It prints "done" whatever the timing was.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static volatile long handler_ns;	/* CPU time spent in on_alarm */

static long cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void handler_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void on_alarm(int sig)
{
	long t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);

	(void)sig;
	handler_spin(1000000);
	handler_ns += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

__attribute__((noinline)) void interrupted_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	struct sigaction sa;
	struct sigevent ev;
	struct itimerspec it = { { 0, 2000000 }, { 0, 2000000 } };
	timer_t timer;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &it, NULL) != 0) {
		perror("sigframe: timer");
		return 1;
	}
	for (int r = 0; r < rounds || (handler_ns < 300000000L &&
					  cpu_ns(CLOCK_PROCESS_CPUTIME_ID) < 10000000000L); r++)
		interrupted_work(2000000);
	timer_delete(timer);
	printf("done\n");
	return 0;
}
