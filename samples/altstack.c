/*
 * altstack.c — a program with its own alternate signal stack, as programs
 * that catch their own stack overflows have: it checks what sigaltstack
 * reports, then spins in a SIGUSR1 handler that runs on that stack, and
 * checks that it does (tests/0166). The line it prints is the same with
 * and without a profiler.
 *
 *   altstack [SPINS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALT = 64 * 1024 };

static char *alt;
static long spins = 15000;
static volatile unsigned long sink;
static int on_alt, flagged;

static __attribute__((noinline)) unsigned long handler_spin(unsigned long x)
{
	for (long i = 0; i < spins * 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static void on_usr1(int sig)
{
	char here;
	stack_t cur;

	(void)sig;
	on_alt = &here >= alt && &here < alt + ALT;
	flagged = sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK);
	sink = handler_spin(sink + 1);
}

static const char *flags(const stack_t *s)
{
	return s->ss_flags & SS_DISABLE ? "disabled" : s->ss_flags & SS_ONSTACK ? "on it" : "set";
}

int main(int argc, char **argv)
{
	stack_t ss, before, after, off;
	struct sigaction sa;

	if (argc > 1)
		spins = strtol(argv[1], NULL, 10);
	alt = malloc(ALT);
	if (!alt || sigaltstack(NULL, &before) < 0)
		return 1;
	ss.ss_sp = alt;
	ss.ss_size = ALT;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0 || sigaltstack(NULL, &after) < 0)
		return 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	ss.ss_flags = SS_DISABLE;
	if (sigaltstack(&ss, NULL) < 0 || sigaltstack(NULL, &off) < 0)
		return 1;
	printf("altstack: before %s, after %s (%s), handler on it %d, flagged %d, then %s\n",
	       flags(&before), flags(&after), after.ss_sp == alt && after.ss_size == ALT ?
	       "ours" : "another", on_alt, flagged, flags(&off));
	return 0;
}
