#!/usr/bin/env bats
# The CPU time of a process tree, part by part (issue 27, item 6): each
# process's exit in the kernel comes after its dump, so no process can
# measure it of itself; the collector in its parent records, for each
# child it reaps, the kernel's account of the child's CPU time ("reaped PID
# NS"), and zt-collect's -f line takes the child's own dump from it. A
# process zt could not reach is said apart with its whole time.
load helper
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "each child a program reaps (wait4, waitpid, wait, wait3, waitid) is in its dump with the CPU time the kernel gave the program for it" {
	cat > reaper.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static void burn(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i;
}

static unsigned long long ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000ull +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000ull;
}

/* Prints "PID NS" for each child: its CPU time as the kernel gave it to this process. */
int main(void)
{
	struct rusage before, after, ru;

	for (int k = 0; k < 5; k++) {
		pid_t c = fork(), r;
		int st;
		siginfo_t si;

		if (c == 0) {
			burn(5000000ul * (k + 1));
			_exit(0);
		}
		getrusage(RUSAGE_CHILDREN, &before);
		switch (k) {
		case 0: r = wait4(c, &st, 0, &ru); printf("%d %llu\n", (int)r, ns(&ru)); continue;
		case 1: r = waitpid(c, &st, 0); break;
		case 2: r = wait(&st); break;
		case 3: r = wait3(&st, 0, NULL); break;
		default:
			waitid(P_PID, c, &si, WEXITED | WNOWAIT);	/* not reaped: not counted */
			waitid(P_PID, c, &si, WEXITED);
			r = si.si_pid;
			break;
		}
		getrusage(RUSAGE_CHILDREN, &after);
		printf("%d %llu\n", (int)r, ns(&after) - ns(&before));
	}
	return 0;
}
C
	gcc -O1 -o reaper reaper.c
	run --separate-stderr zt-collect -o r.raw ./reaper
	assert_success
	echo "the program's:"; echo "$output"
	echo "the dump's:"; grep '^reaped \|^cpu-children-ns ' r.raw
	[ "${#lines[@]}" -eq 5 ]
	[ "$(grep -c '^reaped ' r.raw)" -eq 5 ]
	# The same children, in the same order, with the same figures: the
	# kernel's, in microseconds, each split into user and system time apart
	# (the child's own rusage, as wait4 gives it, against the growth of the
	# parent's RUSAGE_CHILDREN: a few microseconds of rounding apart).
	paste -d ' ' <(printf '%s\n' "${lines[@]}") <(sed -n 's/^reaped //p' r.raw) |
		awk '{ d = $2 - $4; if (d < 0) d = -d; print
		       if ($1 != $3 || d > 20000) bad++ } END { exit bad > 0 }'
	# They are all it reaped.
	all=$(sed -n 's/^cpu-children-ns //p' r.raw)
	sum=$(awk '{ s += $2 } END { print s }' <<< "$output")
	echo "cpu-children-ns $all, the program's sum $sum"
	[ $((all - sum)) -le 100000 ] && [ $((sum - all)) -le 100000 ]
}

@test "with -f, a statically linked program's time is said apart with its process, not as the kernel's exit, and the parts add up to the tree's rusage" {
	printf 'int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 300000000UL; i++) s += i; return 0; }\n' > burn.c
	gcc -O1 -static -o st burn.c
	gcc -O1 -o dyn burn.c
	# st's CPU time in this very run, as the kernel gave it to bash (its
	# times of its children, right after st: the same work's time varies
	# from run to run on a busy machine by more than a third).
	run --separate-stderr zt-collect -f -o t.raw bash -c "./st; times; ./dyn; true"
	assert_success
	bare=$(printf '%s\n' "$output" | awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
	line=$(printf '%s\n' "$stderr" | grep '^zt-collect: with -f')
	echo "$line" | cut -c1-900
	re=", (-?[0-9.]+) CPU-s of the kernel's exit of ([0-9]+) process(es)? after (its|each) dump \\(the parent's account less the process's own\\), ([0-9.]+) CPU-s in 1 process zt could not reach \\(no dump; images after an exec\\); of the tree's ([0-9.]+) CPU-s \\(rusage\\), (-?[0-9.]+) \\((-?[0-9.]+)%\\) unaccounted, "
	[[ $line =~ $re ]]
	kexit=${BASH_REMATCH[1]} nk=${BASH_REMATCH[2]} nodump=${BASH_REMATCH[5]}
	tree=${BASH_REMATCH[6]} rest=${BASH_REMATCH[7]}
	read -r ru rs < <(rusage_of <(printf '%s\n' "$stderr" | grep '; rusage: '))
	echo "st $bare s (bash's times); no dump $nodump s; the kernel's exit $kexit s of $nk processes; tree $tree, rusage $ru + $rs, unaccounted $rest"
	# st's whole time is the unreached one's (both the kernel's account
	# of it: bash's times count in 10 ms ticks), and the kernel's exit of
	# the others is a few ms each.
	awk -v b="$bare" -v n="$nodump" 'BEGIN { exit !(b > 0 && n >= 0.95 * b - 0.02 && n <= 1.05 * b + 0.02) }'
	awk -v k="$kexit" -v n="$nk" 'BEGIN { exit !(k >= 0 && k <= 0.02 * n) }'
	awk -v t="$tree" -v u="$ru" -v s="$rs" -v r="$rest" \
		'BEGIN { d = t - u - s; if (r < 0) r = -r; exit !(d > -0.002 && d < 0.002 && r <= 0.03 * t) }'
}
