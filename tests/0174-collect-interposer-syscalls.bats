#!/usr/bin/env bats
# No system call in an interposer that the program's call would not make
# (issue 27, item 5). zt's close, sigaction and signal wrappers asked
# getpid() on every call whether the process owns the dump: gnuplot's
# 67-78 k signal() calls became 203-233 k rt_sigaction and 135-155 k getpid
# calls. The pid is cached now (at start, and in the child of every fork
# zt sees), and putting a signal back to its default costs the one
# rt_sigaction it costs bare. strace -c -f counts rt_sigaction, close and
# getpid of a loop of 50,000 rounds of open, signal(SIGUSR2, handler),
# signal(SIGUSR2, SIG_DFL), signal(SIGCHLD, SIG_DFL) and close, with and
# without zt: equal up to zt's own fixed start and end (zt-collect's and
# the collector's, counted with -f: under 200 of each here; measured 90
# rt_sigaction, 30 close, 11 getpid).

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > loop.c <<'C'
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

static void on_usr(int sig)
{
	(void)sig;
}

int main(void)
{
	for (int i = 0; i < 50000; i++) {
		int fd = open("/dev/null", O_RDONLY);

		signal(SIGUSR2, on_usr);
		signal(SIGUSR2, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		close(fd);
	}
	return 0;
}
C
	cc -O1 -o loop loop.c
}

# counts FILE COMMAND...: "CALL N" for rt_sigaction, close and getpid made
# by COMMAND and its children (strace -c -f into FILE).
counts() {
	local file=$1
	shift
	strace -f -c -qq -e trace=rt_sigaction,close,getpid -o "$file" "$@" > /dev/null 2>&1
	awk '$NF == "rt_sigaction" || $NF == "close" || $NF == "getpid" {
		n = $(NF - 1); if (n !~ /^[0-9]+$/) n = $(NF - 2); print $NF, n }' "$file" | sort
}

@test "a signal()/close() loop makes as many rt_sigaction, close and getpid calls under zt as bare, but zt's own start and end" {
	command -v strace > /dev/null || skip "strace is not installed (make deps installs it)"
	! sanitized_launcher || skip "zt-collect is built with a sanitizer, whose runtime makes calls of its own and stops under strace"
	cd "$BATS_FILE_TMPDIR"
	counts bare.st ./loop > bare
	counts zt.st zt-collect -o l.raw ./loop > zt
	echo "bare:"; cat bare
	echo "under zt:"; cat zt
	local call
	for call in rt_sigaction close getpid; do
		b=$(awk -v c="$call" '$1 == c { print $2 }' bare)
		z=$(awk -v c="$call" '$1 == c { print $2 }' zt)
		echo "$call: bare ${b:-0}, zt ${z:-0} (at most 200 more)"
		[ "${z:-0}" -ge "${b:-0}" ] && [ "${z:-0}" -le $(( ${b:-0} + 200 )) ]
	done
	[ "$(awk '$1 == "rt_sigaction" { print $2 }' bare)" -ge 150000 ]
}

@test "a fork/waitpid loop makes as many wait4 and getrusage calls under zt as bare: the child's CPU time comes from the wait4 it makes" {
	command -v strace > /dev/null || skip "strace is not installed (make deps installs it)"
	! sanitized_launcher || skip "zt-collect is built with a sanitizer, whose runtime makes calls of its own and stops under strace"
	cd "$BATS_FILE_TMPDIR"
	cat > reap.c <<'C'
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 300; i++) {
		pid_t c = fork();
		int st;

		if (c == 0)
			_exit(0);
		waitpid(c, &st, 0);
	}
	return 0;
}
C
	cc -O1 -o reap reap.c
	local call b z
	for run in bare zt; do
		if [ "$run" = bare ]; then set -- ./reap; else set -- zt-collect -o r.raw ./reap; fi
		strace -f -c -qq -e trace=wait4,getrusage -o "$run.st" "$@" > /dev/null 2>&1
		awk '$NF == "wait4" || $NF == "getrusage" {
			n = $(NF - 1); if (n !~ /^[0-9]+$/) n = $(NF - 2); print $NF, n }' "$run.st" | sort > "$run"
	done
	echo "bare:"; cat bare
	echo "under zt:"; cat zt
	for call in wait4 getrusage; do
		b=$(awk -v c="$call" '$1 == c { print $2 }' bare)
		z=$(awk -v c="$call" '$1 == c { print $2 }' zt)
		echo "$call: bare ${b:-0}, zt ${z:-0} (at most 20 more: zt's own start and end)"
		[ "${z:-0}" -ge "${b:-0}" ] && [ "${z:-0}" -le $(( ${b:-0} + 20 )) ]
	done
	# Each child is in the dump, with the kernel's account of it.
	[ "$(grep -c '^reaped [0-9]* [0-9]*$' r.raw)" -eq 300 ]
}
