#!/usr/bin/env bats
# zt-ctl and forked children (issue 20, "left" item 5): under -f each
# child has a dump of its own, FILE.PID, and now a control channel of its
# own at its pid, so a prefork server's workers are started, stopped and
# snapshotted one by one (samples/prefork.c).

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p s
	unset XDG_RUNTIME_DIR	# the socket's directory is then /tmp/zt-UID
	gcc -O1 -o prefork "$SAMPLES/prefork.c"
}

teardown() {
	touch "$BATS_TEST_TMPDIR/s/stop"
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

samples_of() {
	sed -n 's/^samples //p' "$1"
}

@test "-f --paused: each forked worker is started, stopped and snapshotted by its own pid" {
	zt-collect -f --paused -o p.raw ./prefork s 2 > out 2> err &
	zc=$!
	wait_for s/child.0
	wait_for s/child.1
	a=$(cat s/child.0) b=$(cat s/child.1)
	run zt-ctl "$a" start
	assert_success
	assert_output "sampling on"
	sleep 0.5
	run zt-ctl "$a" snapshot
	assert_success
	assert_output --regexp "^wrote '$BATS_TEST_TMPDIR/p.raw.$a.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	run zt-ctl "$a" stop
	assert_success
	run zt-ctl "$b" snapshot
	assert_success
	assert_output "wrote '$BATS_TEST_TMPDIR/p.raw.$b.1' (snapshot 1, 0 samples; sampling is off)"
	touch s/stop
	wait "$zc"
	cat out err
	[ "$(cat out)" = "2 workers done" ]
	# The started worker's window has its work; the other's has none, nor has the parent.
	for f in "p.raw.$a.1" "p.raw.$b.1" "p.raw.$a" "p.raw.$b" p.raw; do
		[ "$(tail -1 "$f")" = end ]
	done
	[ "$(samples_of "p.raw.$a.1")" -ge 1 ]
	zt-fold "p.raw.$a.1" | grep -q ';worker_work '
	[ "$(samples_of "p.raw.$b.1")" = 0 ]
	[ "$(samples_of "p.raw.$b")" = 0 ]
	[ "$(samples_of p.raw)" = 0 ]
	# Every socket is gone with its process.
	[ ! -e "/tmp/zt-$(id -u)/$a.sock" ] && [ ! -e "/tmp/zt-$(id -u)/$b.sock" ]
}

@test "a child that is not followed (no -f) has no channel: zt-ctl says so" {
	zt-collect --control -o q.raw ./prefork s 1 > out 2> err &
	zc=$!
	wait_for s/child.0
	a=$(cat s/child.0)
	run zt-ctl "$a" start
	assert_failure
	echo "$output"
	touch s/stop
	wait "$zc"
}
