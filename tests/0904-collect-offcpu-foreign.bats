#!/usr/bin/env bats
# zt-collect --clock=wall and threads zt cannot sample by signal (issue 20,
# "left" item 3): a thread made with a raw clone has no zt record, no timer
# and no CPU samples. The sampler lists /proc/self/task and records such a
# thread off-CPU, counted (off-cpu-foreign), and its CPU time is counted as
# not sampled: it is never silently missing.

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

key() {
	sed -n "s/^$2 //p" "$1"
}

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# The clone sleeps 0.3 s, then spins 0.3 s of CPU time.
	zt-collect --clock=wall -o rc.raw "$SAMPLES/rawclone" ns tid > rc.out 2> rc.err
	echo $? > rc.status
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "a raw clone's sleep is recorded off-CPU, at its stack, in wall mode" {
	cat rc.err
	[ "$(cat rc.status)" = 0 ]
	[ "$(cat rc.out)" = "rawclone: done" ]
	tid=$(cat tid)
	$OFFCPU waits rc.raw > waits
	cat waits
	ns=$(awk -v t="$tid" '$1 == t && $2 == "clock_nanosleep" { s += $3 } END { print s + 0 }' waits)
	echo "clone $tid: $ns ns in clock_nanosleep"
	# Its 0.3 s, give or take the start of its account (1/100 s) and a tick.
	[ "$ns" -ge 270000000 ] && [ "$ns" -le 345000000 ]
	$OFFCPU v4 rc.raw > off.raw
	zt-fold --tid off.raw 2> /dev/null | grep "/$tid;" > clone.folded
	cat clone.folded
	grep -q ';cloned;clone_sleeps;' clone.folded
}

@test "a raw clone is counted, off-CPU and as not sampled with its CPU time, on zt-collect's lines" {
	[ "$(key rc.raw off-cpu-foreign)" = 1 ]
	clone=$(cat ns)
	got=$(key rc.raw unsampled-cpu-ns)
	echo "clone $clone ns of CPU, unsampled $got ns"
	[ "$got" -ge $((clone * 9 / 10)) ]
	grep -q '^zt-collect: 1 threads zt cannot sample by signal (made with a raw clone) were found in /proc/self/task and recorded off-CPU; their CPU time is in no sample' rc.err
}

@test "zt's own threads (the sampler, the control channel) are not counted as foreign" {
	run zt-collect --clock=wall --control -o s.raw sleep 0.3
	assert_success
	[ "$(key s.raw off-cpu-foreign)" = "" ]
	[[ $output != *"cannot sample by signal"* ]]
	run zt-collect --clock=wall -o t.raw "$SAMPLES/threads"
	assert_success
	[ "$(key t.raw off-cpu-foreign)" = "" ]
}
