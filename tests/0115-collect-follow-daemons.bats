#!/usr/bin/env bats
# With -f, zt-collect ends when the program does, as perf record does, so a
# descendant still running then (a daemon) is not waited for: it is named,
# with the name its dump gets when it ends. One that ended without
# finishing its dump (SIGKILL) is named, and zt-collect finishes its dump
# (issue 26); the exit status is the program's. (Issue 17, item 6.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "-f: a descendant still running when the program ends is named with its dump's name, and publishes it later" {
	run --separate-stderr zt-collect -f -o d.raw sh -c \
		'( ( : > started; sleep 1.5; : ); echo "status $?" > inner.status; : ) > /dev/null 2>&1 & echo $! > sub.pid; while [ ! -e started ]; do sleep 0.01; done; echo top'
	assert_success
	assert_output top
	pid=$(cat sub.pid)
	# The subshell (its collector started before its own subshell made the
	# file); others (that one, its sleep) may be named too.
	[[ $stderr == *"note: descendant $pid ('sh') still runs, not waited for: its dump is written as '$PWD/d.raw.$pid' when it ends, and is not in these figures"* ]]
	[ ! -e "d.raw.$pid" ]
	# It ends on its own, and its dump is then whole; its subshell, which
	# ends after zt-collect, is not killed by a SIGPIPE from zt's pipe to
	# a zt-collect that is gone.
	for i in $(seq 50); do [ -e "d.raw.$pid" ] && break; sleep 0.1; done
	grep -qx end "d.raw.$pid"
	[ "$(cat inner.status)" = "status 0" ]
}

@test "-f: a descendant killed before it finished its dump is named, zt-collect finishes its dump, and the status stays the program's" {
	run --separate-stderr zt-collect -f -o k.raw sh -c \
		'( : > started; sleep 5; : ) & p=$!; echo $p > sub.pid; while [ ! -e started ]; do sleep 0.01; done; kill -9 $p; wait $p; echo top'
	assert_success
	assert_output top
	pid=$(cat sub.pid)
	[[ $stderr == *"note: descendant $pid ('sh') ended without zt's exit path; zt-collect finished its dump '$PWD/k.raw.$pid' from what reached the file"* ]]
	grep -qx 'finished zt-collect' "k.raw.$pid"
	[ ! -e "k.raw.$pid.tmp.$pid" ]
	# The program's own dump is whole.
	grep -qx end k.raw
}

@test "-f: descendants that all end before the program get no such line" {
	run --separate-stderr zt-collect -f -o w.raw sh -c '( sleep 0.1 ) & wait; echo top'
	assert_success
	[[ $stderr != *"still runs"* ]]
	[[ $stderr != *"without finishing"* ]]
}

@test "-f: 2500 processes say more than the status pipe holds, and none of them waits on it" {
	# A collector that waited on a full pipe would hang its process, and the
	# program with it: timeout turns that into a failure.
	run --separate-stderr timeout -k 10 240 zt-collect -f -o m.raw "$SAMPLES/manyforks" 2500
	assert_success
	assert_output "manyforks: 2500 children, 0 failed"
	[[ ${stderr##*$'\n'} == "zt-collect: with -f, 2501 dumps: "* ]]
}

@test "-f: the child of daemon() is named in every run, though its parent leaves before its collector has started" {
	# daemon()'s parent leaves through _exit at once; its child's collector
	# says "started" a little later: zt-collect reads the status pipe, which
	# that child holds, a while longer before it names what still runs.
	printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' '#include <unistd.h>' \
		'int main(void) { if (daemon(1, 1) < 0) return 1; FILE *f = fopen("child.pid", "w");' \
		'fprintf(f, "%d\n", (int)getpid()); fclose(f); sleep(2); return 0; }' > dm.c
	cc -O1 -o dm dm.c
	named=0
	for i in 1 2 3 4 5 6; do
		rm -f child.pid
		zt-collect -f -o "d$i.raw" ./dm 2> "d$i.err"
		for t in $(seq 100); do [ -s child.pid ] && break; sleep 0.05; done
		pid=$(cat child.pid)
		grep -q "note: descendant $pid ('dm') still runs, not waited for: its dump is written as '$PWD/d$i.raw.$pid'" "d$i.err" &&
			named=$((named + 1))
	done
	echo "the daemon's child named in $named of 6 runs"
	[ "$named" -eq 6 ]
}
