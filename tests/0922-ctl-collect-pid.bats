#!/usr/bin/env bats
# zt-ctl takes zt-collect's pid (issue 28, item 9): after
# `zt-collect --paused ./server &`, `zt-ctl $! start` reaches the program
# (zt-collect leaves an alias ZTPID.collect beside the sockets, checked
# against its start time and the kernel's parentage), and with -f every
# descendant that has a channel too, as kill %1 reaches the job; the -f
# summary line names each dump's snapshots.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p s
	unset XDG_RUNTIME_DIR	# the sockets' directory is then /tmp/zt-UID
	zdir=/tmp/zt-$(id -u)
	sp=
}

# A test that failed halfway leaves no program behind: each is told to end.
teardown() {
	touch "$BATS_TEST_TMPDIR/s/go" "$BATS_TEST_TMPDIR/s/stop" "$BATS_TEST_TMPDIR/s/end"
	[ -z "$sp" ] || kill "$sp" 2> /dev/null || true
	[ -z "$sp" ] || rm -f "$zdir/$sp.collect"
}

# Wait (at most 20 s) for file $1 to appear.
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ "$i" -lt 400 ] || { echo "no '$1' after 20 s" >&2; return 1; }
		sleep 0.05
	done
}

# Wait (at most 20 s) for a line of file $1 to match the basic regex $2.
wait_line() {
	local i=0
	while ! grep -q "$2" "$1"; do
		i=$((i + 1))
		[ "$i" -lt 400 ] || { echo "no line '$2' in '$1' after 20 s:" >&2; cat "$1" >&2; return 1; }
		sleep 0.05
	done
}

# Process $1's CPU time, user and system, in clock ticks.
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# Wait (at most 60 s) until process $1 has used $2 more clock ticks of CPU.
wait_cpu() {
	local t0 i=0
	t0=$(cpu_ticks "$1")
	while [ $(($(cpu_ticks "$1") - t0)) -lt "$2" ]; do
		i=$((i + 1))
		[ "$i" -lt 1200 ] || { echo "pid $1 used less than $2 ticks in 60 s" >&2; return 1; }
		sleep 0.05
	done
}

# The functions of a dump's samples, one line per function.
functions_of() {
	zt-fold "$1" | awk '{ $NF = ""; k = split($0, f, ";");
		for (i = 1; i <= k; i++) { sub(/ +$/, "", f[i]); if (f[i] != "") print f[i] } }' |
		sort -u
}

samples_of() {
	sed -n 's/^samples //p' "$1"
}

@test "zt-ctl \$! (zt-collect's pid) starts, snapshots and stops the program under --paused" {
	# Under $XDG_RUNTIME_DIR, where the alias and the socket then go.
	mkdir -m 700 xdg
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/xdg
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	# zt-collect names the pids zt-ctl takes at the start.
	wait_line err 'sampling is off until'
	run grep -c . err
	assert_output 1
	run cat err
	assert_output "zt-collect: sampling is off until 'zt-ctl $pid start' ($pid is the program's pid; zt-ctl takes zt-collect's, $zc, too)"
	[ -f "xdg/zt/$zc.collect" ]
	touch s/go
	wait_for s/in
	run zt-ctl "$zc" start
	assert_success
	assert_output "sampling on"
	wait_cpu "$pid" 30		# 0.3 CPU-s inside the window
	run zt-ctl "$zc" snapshot
	assert_success
	assert_output --regexp "^wrote '$BATS_TEST_TMPDIR/w.raw.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	run zt-ctl "$zc" stop
	assert_success
	assert_output "sampling off"
	touch s/stop
	wait_for s/out
	touch s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	# The snapshot holds the window's samples: inside_work's, none of outside_work.
	n=$(samples_of w.raw.1)
	echo "snapshot samples $n (0.3 CPU-s or more: at least 75 at 250 Hz)"
	[ "$n" -ge 20 ]
	functions_of w.raw.1 > funcs
	cat funcs
	grep -qx inside_work funcs
	! grep -qx outside_work funcs
	# The alias went with zt-collect.
	[ ! -e "xdg/zt/$zc.collect" ]
}

@test "zt-ctl with a zt-collect's pid that has ended: no such process, exit 1, no alias left" {
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	[ -f "$zdir/$zc.collect" ]
	run zt-ctl "$zc" stop
	assert_success
	assert_output "sampling off (it was already)"
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	[ ! -e "$zdir/$zc.collect" ]
	run -1 --separate-stderr zt-ctl "$zc" start
	assert_output ''
	[ "$stderr" = "zt-ctl: pid $zc: no such process" ]
}

@test "zt-ctl with the pid of a zt-collect run without --paused or --control says so, exit 1" {
	zt-collect -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	[ ! -e "$zdir/$zc.collect" ]
	run -1 --separate-stderr zt-ctl "$zc" start
	assert_output ''
	[ "$stderr" = "zt-ctl: pid $zc: zt-collect without a control channel: it was run without --paused or --control (it left no alias at its pid), so its program (pid $pid) has none" ]
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	! grep -q '^windows' w.raw
}

@test "a stale alias is ignored: a killed zt-collect's, and one at a pid another process has now" {
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	# While zt-collect lives its alias leads to the program.
	run zt-ctl "$zc" stop
	assert_success
	assert_output "sampling off (it was already)"
	cp "$zdir/$zc.collect" alias
	kill -KILL "$zc"
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 137 ]
	# SIGKILL leaves the alias; its pid is dead: nothing is reached.
	[ -f "$zdir/$zc.collect" ]
	run -1 --separate-stderr zt-ctl "$zc" start
	[ "$stderr" = "zt-ctl: pid $zc: no such process" ]
	rm -f "$zdir/$zc.collect"
	# The same alias at the pid of a live process (as when the pid is
	# reused): its start time is zt-collect's, not this process's.
	sleep 600 &
	sp=$!
	cp alias "$zdir/$sp.collect"
	run -1 --separate-stderr zt-ctl "$sp" start
	[ "$stderr" = "zt-ctl: pid $sp: no zt control channel (the process is not sampled by zt, or was started without 'zt-collect --paused' or --control): no '$zdir/$sp.sock'" ]
	# With this process's own start time, but naming a program that is
	# not its child: refused as well.
	start=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$sp/stat")
	printf '%s %s\n' "$pid" "$start" > "$zdir/$sp.collect"
	run -1 --separate-stderr zt-ctl "$sp" start
	[ "$stderr" = "zt-ctl: pid $sp: no zt control channel (the process is not sampled by zt, or was started without 'zt-collect --paused' or --control): no '$zdir/$sp.sock'" ]
	# Nothing reached the program, which still answers at its own pid.
	run zt-ctl "$pid" stop
	assert_success
	assert_output "sampling off (it was already)"
}

@test "-f --paused: zt-ctl \$! reaches the program and each worker, and the -f line names their snapshots" {
	gcc -O1 -o prefork "$SAMPLES/prefork.c"
	zt-collect -f --paused -o p.raw ./prefork s 2 > out 2> err &
	zc=$!
	wait_for s/child.0
	wait_for s/child.1
	wait_line err 'sampling is off until'
	lead=$(sed -n "s/^zt-collect: sampling is off until 'zt-ctl \([0-9]*\) start'.*/\1/p" err)
	a=$(cat s/child.0) b=$(cat s/child.1)
	# In pid order after the program.
	if [ "$b" -lt "$a" ]; then t=$a; a=$b; b=$t; fi
	run zt-ctl "$zc" start
	assert_success
	assert_output "$(printf 'pid %s: sampling on\n' "$lead" "$a" "$b")"
	wait_cpu "$a" 20
	wait_cpu "$b" 20
	run zt-ctl "$zc" snapshot
	assert_success
	assert_line --index 0 --regexp "^pid $lead: wrote '$BATS_TEST_TMPDIR/p.raw.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	assert_line --index 1 --regexp "^pid $a: wrote '$BATS_TEST_TMPDIR/p.raw.$a.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	assert_line --index 2 --regexp "^pid $b: wrote '$BATS_TEST_TMPDIR/p.raw.$b.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	run zt-ctl "$zc" snapshot
	assert_success
	assert_line --index 1 --partial "'$BATS_TEST_TMPDIR/p.raw.$a.2' (snapshot 2,"
	run zt-ctl "$zc" stop
	assert_success
	assert_output "$(printf 'pid %s: sampling off\n' "$lead" "$a" "$b")"
	touch s/stop
	wait "$zc"
	cat err
	[ "$(cat out)" = "2 workers done" ]
	# Each worker's first snapshot holds its work.
	for w in "$a" "$b"; do
		echo "worker $w: $(samples_of "p.raw.$w.1") samples in its first snapshot"
		[ "$(samples_of "p.raw.$w.1")" -ge 1 ]
		zt-fold "p.raw.$w.1" | grep -q ';worker_work '
	done
	# The -f line names every dump's snapshots, the workers' as the program's.
	line=$(grep '^zt-collect: with -f, 3 dumps: ' err)
	for d in p.raw "p.raw.$a" "p.raw.$b"; do
		want="'$BATS_TEST_TMPDIR/$d' (prefork, [0-9]* samples; snapshots '$BATS_TEST_TMPDIR/$d.1' to '$BATS_TEST_TMPDIR/$d.2' hold the samples before)"
		echo "$line" | grep -q "$want" || { echo "no $want in: $line"; false; }
	done
	# No socket and no alias are left.
	[ ! -e "$zdir/$zc.collect" ] && [ ! -e "$zdir/$a.sock" ] && [ ! -e "$zdir/$b.sock" ]
}
