#!/usr/bin/env bats
# Sampling windows for programs that do not end (issue 20, item 6):
# zt-collect --paused and --control, zt-ctl PID start|stop|snapshot, and
# snapshots FILE.N that each hold the samples since the one before.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p s
	# The socket's directory is then /tmp/zt-UID.
	unset XDG_RUNTIME_DIR
	me=$(id -u)
	sdir=$BATS_TEST_TMPDIR/s
}

# A test that failed halfway leaves no daemon behind: it is told to end,
# then killed.
teardown() {
	[ -d "$sdir" ] || return 0
	touch "$sdir/go" "$sdir/stop" "$sdir/end"
	if [ -s "$sdir/pid" ]; then
		sleep 0.2
		kill "$(cat "$sdir/pid")" 2> /dev/null || true
	fi
	if [ "$sdir" != "$BATS_TEST_TMPDIR/s" ]; then
		rm -rf "${sdir%/s}"
	fi
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

# The functions of a dump's samples, one line per sample and function.
functions_of() {
	zt-fold "$1" | awk '{ n = $NF; $NF = ""; k = split($0, f, ";");
		for (i = 1; i <= k; i++) { sub(/ +$/, "", f[i]); if (f[i] != "") print f[i] } }' |
		sort -u
}

# The times (@ns) of a raw dump's samples.
times_of() {
	sed -n '/^samples$/,/^maps/s/^[0-9]* [0-9]* @\([0-9]*\) .*/\1/p' "$1"
}

@test "a daemon under --paused is sampled only in the window zt-ctl opens" {
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	sleep 0.3			# outside_work, unsampled
	touch s/go
	wait_for s/in
	run zt-ctl "$pid" start
	assert_success
	assert_output "sampling on"
	sleep 1
	run zt-ctl "$pid" stop
	assert_success
	assert_output "sampling off"
	touch s/stop
	wait_for s/out
	sleep 0.3			# outside_work again, unsampled
	touch s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]		# the program's own
	# The program's output is as without zt: no EINTR, the child holds no socket.
	printf 'child sockets 0\neintr 0\ndone\n' > want
	diff want out
	grep -qx end w.raw
	grep -qx 'windows 1' w.raw
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' w.raw)
	[ "$n" -ge 20 ]
	functions_of w.raw > funcs
	cat funcs
	grep -qx inside_work funcs
	! grep -qx outside_work funcs
	# The main thread's samples are inside_work's, but for the loop's own
	# check of its files (exists: stat, snprintf) between two calls.
	zt-fold w.raw | grep ';main' > main.folded
	! grep -v ';main;inside_work \|;main;exists;' main.folded
	grep -q "sampling windows: 1 in '$BATS_TEST_TMPDIR/w.raw'" err
	# The time outside the window is not passed off as the loader's.
	! grep -q 'before sampling began' err
}

@test "without --paused the same run samples both kinds of work (the window is what selects)" {
	zt-collect -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	sleep 0.5
	touch s/go
	wait_for s/in
	sleep 0.5
	touch s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	functions_of w.raw > funcs
	grep -qx inside_work funcs
	grep -qx outside_work funcs
	! grep -q '^windows' w.raw
}

@test "snapshots each read whole and hold the samples since the one before" {
	zt-collect --control -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	sleep 0.5
	run zt-ctl "$pid" snapshot
	assert_success
	assert_output --regexp "^wrote '$BATS_TEST_TMPDIR/w.raw.1' \(snapshot 1, [0-9]+ samples; sampling is on\)$"
	touch s/go
	wait_for s/in
	sleep 0.5
	run zt-ctl "$pid" snapshot
	assert_success
	assert_output --regexp "^wrote '$BATS_TEST_TMPDIR/w.raw.2' \(snapshot 2, [0-9]+ samples; sampling is on\)$"
	sleep 0.5
	run zt-ctl "$pid" snapshot
	assert_success
	touch s/stop
	wait_for s/out
	sleep 0.3
	touch s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	printf 'child sockets 0\neintr 0\ndone\n' > want
	diff want out
	grep -q "snapshots '$BATS_TEST_TMPDIR/w.raw.1' to '$BATS_TEST_TMPDIR/w.raw.3' hold the samples before" err
	prev=0
	for f in w.raw.1 w.raw.2 w.raw.3 w.raw; do
		# Whole: the header, its samples, maps, build-ids, threads, summary, end.
		head -1 "$f" | grep -qx 'zt-prof 4'
		tail -1 "$f" | grep -qx end
		for s in samples 'maps @[0-9]*' buildids threads summary; do grep -qx "$s" "$f"; done
		zt-symbolize "$f" > "$f.sym"
		zt-stat "$f" > "$f.stat"
		# The summary's count is the file's own lines.
		lines=$(times_of "$f" | wc -l)
		[ "$(sed -n 's/^samples \([0-9]*\)$/\1/p' "$f")" -eq "$lines" ]
		[ "$lines" -gt 0 ]
		# Each window follows the one before: no sample twice, none out of order.
		first=$(times_of "$f" | sort -n | head -1)
		last=$(times_of "$f" | sort -n | tail -1)
		[ "$first" -gt "$prev" ]
		prev=$last
		# Every frame of main's is named through the file's own maps.
		! grep -q '\[unknown\]' "$f.sym"
	done
	grep -qx 'snapshot 1' w.raw.1
	grep -qx 'snapshot 3' w.raw.3
	grep -qx 'snapshots 3' w.raw
	# The first was taken before the daemon went inside.
	functions_of w.raw.1 > f1
	grep -qx outside_work f1
	! grep -qx inside_work f1
	functions_of w.raw.3 > f3
	grep -qx inside_work f3
	# All on the first dump's clock: one start-ns.
	[ "$(grep -h '^start-ns ' w.raw.1 w.raw.2 w.raw.3 w.raw | sort -u | wc -l)" -eq 1 ]
}

@test "--paused with no start gives an empty, whole dump and says so" {
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	sleep 0.3
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	grep -q "^zt-collect: sampling was never started (--paused, and neither 'zt-ctl $pid start' nor zt_start() came): wrote '$BATS_TEST_TMPDIR/w.raw', a whole dump with no samples" err
	grep -qx 'samples 0' w.raw
	grep -qx 'windows 0' w.raw
	tail -1 w.raw | grep -qx end
	run zt-symbolize w.raw
	assert_success
	assert_output --partial '# zt samples 0'
}

@test "the channel outlives the program closing every descriptor behind zt's back" {
	zt-collect --paused -o w.raw "$SAMPLES/windows" s raw > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	touch s/go
	wait_for s/in
	run zt-ctl "$pid" start
	assert_success
	sleep 0.5
	run zt-ctl "$pid" snapshot
	assert_success
	assert_output --partial "wrote '$BATS_TEST_TMPDIR/w.raw.1'"
	run zt-ctl "$pid" stop
	assert_success
	touch s/stop s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	printf 'child sockets 0\neintr 0\ndone\n' > want
	diff want out
	# Whole (the program closed the sampling counters too: no samples).
	tail -1 w.raw.1 | grep -qx end
	grep -qx 'snapshot 1' w.raw.1
	zt-symbolize w.raw.1 > /dev/null
	# Its socket is gone with it.
	[ ! -e "/tmp/zt-$(id -u)/$pid.sock" ]
}

@test "control is refused to another user" {
	[ "$me" -eq 0 ] || skip "needs root, to run zt-ctl as nobody"
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	touch s/go
	wait_for s/in
	run -1 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$ZT_TOP/tools/zt-ctl" "$pid" start
	assert_output ''
	[[ "$stderr" == "zt-ctl: pid $pid: cannot reach its control socket '/tmp/zt-$me/$pid.sock': Permission denied (only the process's own user may control it)" ]]
	sleep 0.3
	touch s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	# Nothing was started.
	grep -qx 'windows 0' w.raw
	grep -qx 'samples 0' w.raw
}

@test "a process of another user refuses a peer that is not its user (SO_PEERCRED)" {
	[ "$me" -eq 0 ] || skip "needs root, to run the program as nobody"
	# Somewhere nobody can reach (the test's own directory is root's alone).
	dir=$(mktemp -d /tmp/zt-win.XXXXXX)
	chmod 755 "$dir"
	mkdir -m 777 "$dir/s"
	sdir=$dir/s
	cd "$dir"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -u XDG_RUNTIME_DIR \
		"$ZT_TOP/collect/zt-collect" --paused -o "$dir/s/w.raw" \
		"$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	uid=$(id -u nobody)
	# root reaches the socket (0700 does not stop it); the collector refuses.
	run -1 --separate-stderr zt-ctl "$pid" start
	echo "$stderr"
	[[ "$stderr" == "zt-ctl: pid $pid: refused: uid $me may not control this process (only its own user, uid $uid, may)" ]]
	# Its own user may.
	run setpriv --reuid=nobody --regid=nogroup --clear-groups env -u XDG_RUNTIME_DIR \
		"$ZT_TOP/tools/zt-ctl" "$pid" stop
	assert_success
	assert_output 'sampling off (it was already)'
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	cp s/w.raw "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	[ "$st" -eq 3 ]
	grep -qx 'windows 0' w.raw
}

@test "after an exec the new image starts paused again, with a channel of its own under the same pid" {
	zt-collect --paused -o w.raw sh -c 'exec "$0" s' "$SAMPLES/windows" > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	touch s/go
	wait_for s/in
	run zt-ctl "$pid" start
	assert_success
	assert_output "sampling on"
	sleep 0.5
	run zt-ctl "$pid" stop
	assert_success
	touch s/stop s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	grep -qx 'windows 1' w.raw
	zt-fold w.raw | grep -q ';inside_work '
	! zt-fold w.raw | grep -q 'outside_work'
	[ ! -e "/tmp/zt-$me/$pid.sock" ]
}
