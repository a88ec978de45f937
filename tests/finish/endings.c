#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;
static void burn(void)
{
	struct timespec t;
	do {
		for (unsigned long i = 0; i < 1000000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000000000L + t.tv_nsec < 300000000L);
}
static int deep(int n) { volatile char pad[512]; pad[0] = (char)n; return deep(n + 1) + pad[0]; }
static void report(int sig) { static const char m[] = "crash reported\n"; write(2, m, sizeof m - 1); (void)sig; raise(sig); }
static void on_segv(int sig) { static const char m[] = "overflow caught\n"; write(2, m, sizeof m - 1); (void)sig; _exit(3); }
static void on_segv_reraise(int sig) { static const char m[] = "overflow caught\n"; write(2, m, sizeof m - 1); signal(sig, SIG_DFL); raise(sig); }

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	burn();
	if (!strcmp(how, "exit_group"))
		syscall(SYS_exit_group, 5);
	if (!strcmp(how, "fork-exit_group")) {
		/* Both end by exit_group, each with samples it has not written. */
		pid_t c = fork();
		if (c == 0) {
			burn();	/* the child's own 0.3 s */
			syscall(SYS_exit_group, 6);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		syscall(SYS_exit_group, 5);
	}
	if (!strcmp(how, "daemon")) {
		if (daemon(1, 1) < 0) return 9;
		burn();
		return 0;
	}
	if (!strcmp(how, "overflow"))
		return deep(0);
	if (!strcmp(how, "altstack") || !strcmp(how, "altstack-reraise")) {
		stack_t ss = { .ss_sp = malloc(65536), .ss_size = 65536 };
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = !strcmp(how, "altstack") ? on_segv : on_segv_reraise;
		sa.sa_flags = SA_ONSTACK;
		sigaltstack(&ss, NULL);
		sigaction(SIGSEGV, &sa, NULL);
		return deep(0);
	}
	if (!strcmp(how, "resethand-segv") || !strcmp(how, "resethand-usr1")) {
		struct sigaction sa;
		int sig = !strcmp(how, "resethand-segv") ? SIGSEGV : SIGUSR1;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = report;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(sig, &sa, NULL);
		if (sig == SIGSEGV)
			*(volatile int *)0 = 1;
		raise(sig);
		return 0;
	}
	return 0;
}
