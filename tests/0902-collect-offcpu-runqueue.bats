#!/usr/bin/env bats
# zt-collect --clock=wall, "[waiting for a CPU]" (issue 20, "left" item 1):
# threads that never block but outnumber the CPUs spend part of their
# lives runnable and not on a CPU. Their schedstat's run delay, charged
# tick by tick at the thread's last CPU stack, is their waiting time, and
# it must match the kernel's within 3 points (samples/spinners.c writes
# each thread's truth).

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# Twice as many spinning threads as CPUs (at least 4): half or more of
	# each one's life is spent waiting for a CPU.
	n=$(($(nproc) * 2))
	[ "$n" -ge 4 ] || n=4
	echo "$n" > nthreads
	gcc -O2 -pthread -o spinners "$SAMPLES/spinners.c"
	zt-collect --clock=wall -o sp.raw ./spinners sp.truth "$n" 1.5 > sp.out 2> sp.err
	echo $? > sp.status
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "spinning threads beyond the CPUs: each one's waiting share is its run delay's within 3 points" {
	cat sp.err
	[ "$(cat sp.status)" = 0 ]
	[ "$(cat sp.out)" = "$(cat nthreads) threads spun" ]
	run $OFFCPU waiting sp.raw sp.truth
	echo "$output"
	[ "$(echo "$output" | wc -l)" -eq "$(cat nthreads)" ]
	# The premise: the kernel says each thread waited (else 0 would pass).
	echo "$output" | awk '$2 < 10 { print "truth only " $2 ": " $0; bad = 1 } END { exit bad }'
	echo "$output" | awk '{ d = $3 - $2; if (d < -3 || d > 3) { print "off by " d ": " $0; bad = 1 } }
		END { exit bad }'
}

@test "the waits stand at the thread's last CPU stack: spinner;spin_work;[waiting for a CPU]" {
	zt-fold sp.raw > sp.folded
	head -1 sp.folded | grep -qx '# zt weight: ns'
	# Of the spinners' waiting time, nearly all is above spin_work (a
	# little may be in now_ns's clock_gettime, called from it).
	awk '/;spinner;/ && /\[waiting for a CPU\] [0-9]+$/ {
		all += $NF; if (index($0, ";spinner;spin_work;")) at += $NF }
		END { print at, all; exit !(all > 0 && at >= 0.95 * all) }' sp.folded
	# No waiting line lacks a stack of the program's.
	! grep -q '^\[waiting for a CPU\]' sp.folded
}

@test "zt-stat's waiting column gives each spinner its run delay, within 3 points" {
	zt-stat sp.raw > stat.txt
	cat stat.txt
	while read -r name tid start end exec delay; do
		line=$(grep "^    thread $tid $name: " stat.txt)
		echo "$line"
		got=$(echo "$line" | sed -n 's/.*waiting for a CPU [0-9.]* s (\([0-9.]*\)%)$/\1/p')
		[ -n "$got" ]
		awk -v g="$got" -v d="$delay" -v s="$start" -v e="$end" 'BEGIN {
			t = 100 * d / (e - s); print "truth " t ", zt-stat " g
			exit !(g - t <= 3 && t - g <= 3) }'
	done < sp.truth
}
