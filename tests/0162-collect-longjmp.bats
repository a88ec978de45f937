#!/usr/bin/env bats
# zt's handler cannot be entered or left by the program's (issue 26, item
# 3). The classic time-out idiom: ITIMER_REAL at a high rate while the
# program is busy, and its SIGALRM handler leaves with longjmp. A handler
# that runs on top of zt's sampling handler and jumps out never returns
# through sigreturn, so whatever zt's handler blocked stays blocked: before
# the fix SIGPROF, SIGINT, SIGTERM, SIGHUP and SIGQUIT stayed blocked for
# good (the program's own sigprocmask reported them, SIGTERM was ignored,
# sampling stopped). zt's handler now runs with every signal blocked but
# the synchronous ones, so no program handler can land inside it.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > timeout.c <<'C'
/* Rounds of "run until the alarm", each ended by a longjmp out of the
 * SIGALRM handler (SA_NODEFER: the jump leaves nothing of the program's
 * own blocked), for 1.5 CPU-s and at least 2,000 rounds. Then it prints
 * the mask it has, the monotonic time, burns 0.4 CPU-s more and sends
 * itself SIGTERM: it must die of it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static jmp_buf env;
static volatile unsigned long sink;

static void on_alarm(int sig)
{
	(void)sig;
	longjmp(env, 1);
}

static long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	static volatile long jumps;
	static long long end;
	sigset_t cur;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	end = ns(CLOCK_PROCESS_CPUTIME_ID) + 1500000000LL;
	setjmp(env);
	if (ns(CLOCK_PROCESS_CPUTIME_ID) < end || jumps < 2000) {
		jumps++;
		setitimer(ITIMER_REAL, &it, NULL);
		for (;;)
			sink++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("jumps %ld\nblocked", jumps);
	for (int s = 1; s < 65; s++)
		if (sigismember(&cur, s) == 1)
			printf(" %d", s);
	printf("\nfinal %lld\n", ns(CLOCK_MONOTONIC));
	fflush(stdout);
	end = ns(CLOCK_PROCESS_CPUTIME_ID) + 400000000LL;
	while (ns(CLOCK_PROCESS_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
	kill(getpid(), SIGTERM);
	sleep(1);
	puts("survived SIGTERM");
	return 0;
}
C
	gcc -O2 -o timeout timeout.c
}

@test "a SIGALRM handler that longjmps leaves nothing of zt's blocked; SIGTERM kills, sampling goes on" {
	cd "$BATS_FILE_TMPDIR"
	local rc=0
	zt-collect -o t.raw ./timeout > out 2> err || rc=$?
	cat out err
	echo "status $rc (SIGTERM: 143)"
	[ "$rc" -eq 143 ]
	grep -q '^jumps [0-9]' out
	# The mask the program reads is its own: nothing blocked.
	echo "mask the program reads: $(grep '^blocked' out)"
	[ "$(grep '^blocked' out)" = blocked ]
	run ! grep -q survived out
	# Samples of the last 0.4 CPU-s, after the rounds: sampling went on.
	local final start late
	final=$(sed -n 's/^final //p' out)
	start=$(sed -n 's/^start-ns //p' t.raw)
	late=$(awk -v f="$final" -v s="$start" '
		/^samples$/ { on = 1; next }
		on && $3 ~ /^@/ { t = s + substr($3, 2); if (t > f) n += $2 }
		END { print n + 0 }' t.raw)
	# 0.4 CPU-s is about 400 periods at 997 Hz; 100 leaves room for a
	# busy machine's noise but not for sampling that stopped.
	echo "samples after the rounds: $late (want at least 100)"
	[ "$late" -ge 100 ]
}
