#!/usr/bin/env bats
# zt-collect survives its job's signals (issue 26, item 5). A signal sent to
# the job's process group (kill -USR1 %1, a window resize's SIGWINCH,
# SIGUSR2) reaches zt-collect as well as the program: before, zt-collect
# died of it (exit 138, no summary, the program orphaned). Now every
# catchable signal but the terminal's SIGINT and SIGQUIT and job control's
# is passed on to the program, as timeout(1) --foreground does; zt-collect
# waits for the program, prints its summary and exits with its status.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > usr.c <<'C'
/* Handles SIGWINCH, SIGUSR2 and SIGUSR1, burning CPU until SIGUSR1; says
 * which it saw (a signal sent to the group may come twice: from the kill,
 * and passed on by zt-collect), exits 7. Writes "ready" once its handlers
 * are in place. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t usr1, usr2, winch;
static volatile unsigned long sink;

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		usr1 = 1;
	else if (sig == SIGUSR2)
		usr2 = 1;
	else
		winch = 1;
}

int main(void)
{
	struct sigaction sa;
	FILE *f;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	f = fopen("ready", "w");
	fclose(f);
	while (!usr1)
		sink++;
	printf("USR1 %d USR2 %d WINCH %d\n", usr1, usr2, winch);
	return 7;
}
C
	cc -O1 -o usr usr.c
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	rm -f ready
}

# until_ready: wait (bounded) for the program's "ready" file.
until_ready() {
	local i
	for i in $(seq 200); do
		[ -e ready ] && return 0
		sleep 0.05
	done
	echo "the program never got ready"
	return 1
}

@test "USR2, WINCH and USR1 sent to the job's process group: the program gets them, zt-collect reports and exits with its status" {
	local pid rc=0
	setsid zt-collect -o g.raw ./usr > out 2> err &
	pid=$!
	until_ready
	sleep 0.2	# some CPU time, so that the dump holds samples
	kill -USR2 -- "-$pid"
	kill -WINCH -- "-$pid"
	sleep 0.1
	kill -USR1 -- "-$pid"
	wait "$pid" || rc=$?
	cat out err
	echo "status $rc (the program's: 7)"
	[ "$rc" -eq 7 ]
	grep -qx 'USR1 1 USR2 1 WINCH 1' out
	grep -q '^zt-collect: [0-9]* samples' err
	grep -q "wrote '.*g.raw'" err
}

@test "USR2, WINCH and USR1 sent to zt-collect alone are passed on to the program" {
	local pid rc=0
	zt-collect -o a.raw ./usr > out 2> err &
	pid=$!
	until_ready
	kill -USR2 "$pid"
	kill -WINCH "$pid"
	sleep 0.1
	kill -USR1 "$pid"
	wait "$pid" || rc=$?
	cat out err
	echo "status $rc (the program's: 7)"
	[ "$rc" -eq 7 ]
	grep -qx 'USR1 1 USR2 1 WINCH 1' out
	grep -q '^zt-collect: [0-9]* samples' err
}
