#!/usr/bin/env bats
# zt-collect -f and PID namespaces (issue 26, item 6): a process in another
# PID namespace (a container) knows itself by a pid of that namespace, the
# same as another container's; its collector asks zt-collect for the pid
# zt-collect sees (the kernel's credentials on a socket), so every dump is
# FILE.PID by zt-collect's pids and no two collide. A process whose dump is
# lost is named by its command and pid.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	unshare -p -f true 2> /dev/null || skip "unshare -p needs CAP_SYS_ADMIN here"
}

@test "-f: two containers' processes (pid 1 inside both) get dumps under zt-collect's pids, none refused" {
	run --separate-stderr zt-collect -f -o b.raw sh -c \
		'unshare -p -f "$0" 30 > one & unshare -p -f "$0" 30 > two; wait' "$SAMPLES/threads"
	echo "$stderr"
	assert_success
	[[ $stderr != *"cannot create"* ]]
	[[ $stderr != *"ran unsampled"* ]]
	[ "$(wc -l < one)" -eq 4 ] && [ "$(wc -l < two)" -eq 4 ]
	# Each process's pid inside its namespace is in its dump's pid key; its
	# name is the pid zt-collect saw: pid 1 of both containers are two
	# different processes, and two dumps.
	ls b.raw.*
	n=0 inner=0
	for f in b.raw.[0-9]*; do
		p=$(sed -n 's/^pid //p' "$f")
		echo "$f: pid $p"
		grep -qx end "$f"
		n=$((n + 1))
		[ "$p" -le 2 ] && inner=$((inner + 1))
		# Every name is a process zt-collect's namespace had: no pid 1 or 2.
		[ "${f#b.raw.}" -gt 2 ]
	done
	[ "$n" -eq 4 ] && [ "$inner" -eq 2 ]
	# Both programs' four workers are there: one dump each of threads.
	[ "$(grep -l '^exe .*/threads$' b.raw.[0-9]* | wc -l)" -eq 2 ]
	for f in $(grep -l '^exe .*/threads$' b.raw.[0-9]*); do
		zt-fold "$f" | grep -q '^threads;.*;worker;burn '
	done
}

@test "-f: a container's process killed by SIGKILL gets its dump finished under zt-collect's pid for it" {
	run --separate-stderr zt-collect -f -o k.raw unshare -p -f sh -c \
		'( : > started; exec "$0" 100000 ) & while [ ! -e started ]; do sleep 0.01; done; sleep 0.3; kill -9 $!; wait $!; echo "inner $$"' \
		"$SAMPLES/threads"
	echo "$stderr"
	assert_success
	assert_output 'inner 1'
	killed=$(grep -l '^exe .*/threads$' k.raw.[0-9]*)
	[ "$(echo "$killed" | wc -l)" -eq 1 ]
	grep -qx 'finished zt-collect' "$killed"
	[[ $stderr == *"note: descendant ${killed#k.raw.} ('threads') ended without zt's exit path; zt-collect finished its dump '$PWD/$killed'"* ]]
	[ ! -e "$killed.tmp.${killed#k.raw.}" ]
}

@test "-f: a descendant whose dump is lost is named by its command and pid" {
	# The process removes its own unfinished dump and kills itself: nothing
	# is left to finish.
	run --separate-stderr zt-collect -f -o l.raw sh -c \
		'sh -c '\''echo $$ > lost.pid; rm -f l.raw.$$.tmp.$$; kill -9 $$'\''; echo top'
	echo "$stderr"
	assert_success
	assert_output top
	pid=$(cat lost.pid)
	[[ $stderr == *"zt-collect: descendant $pid ('sh') ended without finishing its dump (SIGKILL, or a raw exit system call): no dump '$PWD/l.raw.$pid' was written"* ]]
}
