/*
 * sigprof.c — a program with a profiler of its own: it installs a SIGPROF
 * handler and an ITIMER_PROF timer, burns CPU, and prints how many ticks it
 * counted ("ticks N"; more than zero means its own profiling still works).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;

static void on_prof(int sig)
{
	(void)sig;
	ticks++;
}

__attribute__((noinline)) void own_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };

	own_work(100000000);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	own_work(300000000);
	printf("ticks %s\n", ticks > 0 ? "counted" : "none");
	return 0;
}
