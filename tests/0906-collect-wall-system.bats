#!/usr/bin/env bats
# zt-collect --clock=wall (issue 27, item 2): a thread's time on a CPU in
# the kernel (system calls, page faults) is neither a CPU sample (the
# counters count user space) nor off-CPU time; the sampler writes it as
# "in the kernel" lines from the thread's stat (stime), so that each
# thread's on-CPU user, on-CPU system, off-CPU and waiting shares add up to
# its life and match the kernel's own account: samples/systime's threads
# measure themselves (getrusage RUSAGE_THREAD, schedstat).

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O1 -g -pthread -o systime "$SAMPLES/systime.c"
	zt-collect --clock=wall -o w.raw ./systime truth 2 > out 2> err
	echo $? > status
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "wall clock: each thread's user, system, off-CPU and waiting shares are the kernel's within 3 points" {
	cat err truth
	[ "$(cat status)" = 0 ]
	[ "$(cat out)" = done ]
	$OFFCPU states w.raw truth > states
	cat states
	[ "$(wc -l < states)" -eq 16 ]
	# The CPU samples' weights are their periods: the counter delivers up to
	# 3% fewer than the periods of user time (the collector's rate goal), so
	# the user share may be that much lower besides.
	awk '{ d = $4 - $3; lo = -3; if ($2 == "user") lo -= 0.03 * $3
		if (d < lo || d > 3) { print "off by " d ": " $0; bad = 1 } }
		END { exit bad }' states
	# The kernel thread's CPU time is mostly system time, and zt says so
	# (its share of the thread's life depends on the machine's load).
	awk '$1 == "kernel" && $2 == "user" { u = $3 } $1 == "kernel" && $2 == "system" { t = $3; m = $4 }
		END { exit !(t > 5 * u && m >= 0.8 * t) }' states
}

@test "wall clock: system time is a frame [in the kernel], on-CPU in zt-stat, at the thread's last CPU stack" {
	zt-fold w.raw > w.folded
	grep '\[in the kernel\]' w.folded | head
	grep -q '^kernel;.*;run;[^ ]*\[in the kernel\] [0-9]*$' w.folded
	# Counted on-CPU: the on-CPU share holds the user and the system time.
	zt-stat w.raw > stat
	head -3 stat
	on=$(sed -n 's/^  on-CPU \([0-9.]*\) s .*/\1/p' stat)
	sys=$(awk '/\[in the kernel\]/ { s += $NF } END { print s / 1e9 }' w.folded)
	# The CPU samples: the dump's lines without a wait.
	user=$(awk '/^samples$/ { in_s = 1; next } /^[a-z]/ { in_s = 0 }
		in_s && !/ !/ { for (i = 3; i <= NF; i++) if ($i ~ /^\^/) s += $2 * substr($i, 2) }
		END { print s / 1e9 }' w.raw)
	echo "on-CPU $on user $user system $sys"
	awk -v o="$on" -v u="$user" -v s="$sys" 'BEGIN { d = o - u - s; exit !(s > 0.3 && d > -0.01 && d < 0.01) }'
}
