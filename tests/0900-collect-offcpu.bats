#!/usr/bin/env bats
# zt-collect --clock=wall (issue 20, items 1 and 4): a sampler thread
# records where the threads that are not running wait, from
# /proc/self/task/TID/syscall and a copy of their stacks, with no signal.
# Checked against each thread's own schedstat (samples/waits.c), in -O2
# code with and without frame pointers. The dump's lines are read as text
# (tests/offcpu.py), so these tests do not depend on how the filters show
# waits.

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O2 -fomit-frame-pointer -pthread -o waits "$SAMPLES/waits.c"
	gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread -o waits-fp \
		"$SAMPLES/waits.c"
	for b in waits waits-fp; do
		./"$b" "$b.bare.truth" 2 > "$b.bare.out"
		steal0=$(steal_ticks)
		t0=$(date +%s%N)
		zt-collect --clock=wall -o "$b.raw" ./"$b" "$b.truth" 2 > "$b.out" 2> "$b.err"
		echo $? > "$b.status"
		# The CPUs' steal time over the run, in percent of its wall time.
		awk -v s="$(( $(steal_ticks) - steal0 ))" -v ns="$(( $(date +%s%N) - t0 ))" \
		    -v hz="$(getconf CLK_TCK)" -v cpus="$(nproc)" \
		    'BEGIN { printf "%.1f\n", 100 * s / hz / cpus / (ns / 1e9) }' > "$b.steal"
	done
}

# The machine's steal time so far: what the hypervisor gave other guests
# while a thread here was runnable. schedstat does not count it as run time
# nor as run delay, so a thread's truth (wall - run - delay) has it as
# off-CPU time, which zt, seeing the thread running, cannot see.
steal_ticks() {
	awk '$1 == "cpu" { print $9 + 0 }' /proc/stat
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "--clock=wall: sleep 1 is about 1 s off-CPU in clock_nanosleep, every line weighed" {
	run zt-collect --clock=wall -o s.raw sleep 1
	assert_success
	assert_output --partial "off-CPU samples at 97 Hz"
	[ "$(head -1 s.raw)" = "zt-prof 5" ]
	grep -qx 'profile-clock wall' s.raw
	grep -qx 'off-cpu-hz 97' s.raw
	$OFFCPU check s.raw
	run $OFFCPU waits s.raw
	echo "$output"
	ns=$(echo "$output" | awk '$2 == "clock_nanosleep" { s += $3 } END { print s + 0 }')
	[ "$ns" -ge 900000000 ] && [ "$ns" -le 1100000000 ]
	# The summary counts what the lines hold.
	n=$(awk '/ !/ { n += $2 } END { print n + 0 }' s.raw)
	[ "$n" -ge 80 ]
	[ "$(sed -n 's/^off-cpu-samples //p' s.raw)" = "$n" ]
	for k in off-cpu-repeated off-cpu-torn sampler-cpu-ns wall-ns; do
		grep -q "^$k [0-9][0-9]*$" s.raw
	done
}

@test "--clock=cpu, the default, writes a version 4 dump without weights or waits" {
	zt-collect -o d.raw "$SAMPLES/spin" 5 2> /dev/null
	zt-collect --clock=cpu -o c.raw "$SAMPLES/spin" 5 2> /dev/null
	for f in d.raw c.raw; do
		[ "$(head -1 "$f")" = "zt-prof 4" ]
		! grep -q '^profile-clock\|^off-cpu\|^sampler-cpu-ns\|^wall-ns' "$f"
		! sed -n '/^samples$/,/^maps/p' "$f" | grep -q ' [!^]'
	done
}

@test "--clock and --off-cpu-hz refuse bad values as usage errors" {
	run -2 zt-collect --clock=both true
	assert_output --partial "zt-collect: --clock: 'both' is not cpu or wall"
	run -2 zt-collect --clock=wall --off-cpu-hz=0 true
	assert_output --partial "--off-cpu-hz: '0' is not a frequency from 1 to 1000"
	run -2 zt-collect --clock=wall --off-cpu-hz=1001 true
	assert_output --partial "--off-cpu-hz: '1001' is not a frequency from 1 to 1000"
	run zt-collect --clock=wall --off-cpu-hz=13 -o h.raw sleep 0.3
	assert_success
	grep -qx 'off-cpu-hz 13' h.raw
}

# Each thread's off-CPU share, "name truth measured ticks", within 3 points.
check_shares() {
	run $OFFCPU shares "$BATS_FILE_TMPDIR/$1.raw" "$BATS_FILE_TMPDIR/$1.truth"
	echo "$output"
	[ "$(echo "$output" | wc -l)" -eq 12 ]
	# A sampler starved of CPU (nice, on a machine loaded many times over)
	# cannot tell a thread woken but still waiting from a blocked one.
	ticks=$(echo "$output" | awk '$1 == "joiner" { print $4 }')
	if [ "$ticks" -lt 70 ]; then
		skip "the sampler got only $ticks% of its ticks: the machine is too loaded"
	fi
	# A thread's truth may hold the machine's steal time (steal_ticks).
	steal=$(cat "$BATS_FILE_TMPDIR/$1.steal")
	echo "steal $steal% of the run"
	echo "$output" | awk -v steal="$steal" '{ d = $3 - $2
		if (d < -3 - steal || d > 3) { print "off by " d ": " $0; bad = 1 } }
		END { exit bad }'
}

# The program ran as without zt: its status, its output, no EINTR.
check_unchanged() {
	cd "$BATS_FILE_TMPDIR"
	cat "$1.err"
	[ "$(cat "$1.status")" = 0 ]
	grep -q ' !futex ' "$1.raw"	# while sampled off-CPU
	diff "$1.bare.out" "$1.out"
	! grep -q EINTR "$1.err"
}

# The heaviest off-CPU stack of each thread names its caller, and its wait the call.
check_stacks() {
	cd "$BATS_FILE_TMPDIR"
	$OFFCPU v4 "$1.raw" > "$BATS_TEST_TMPDIR/off.raw"
	zt-fold --tid "$BATS_TEST_TMPDIR/off.raw" > "$BATS_TEST_TMPDIR/off.folded" 2> /dev/null
	$OFFCPU waits "$1.raw" > "$BATS_TEST_TMPDIR/waits"
	while read -r name tid rest; do
		case $name in
		sleeper) want="start_thread;sleeper;wait_in_sleep;" wait=clock_nanosleep ;;
		holder) want="start_thread;holder;" wait=clock_nanosleep ;;
		locker) want="start_thread;locker;wait_in_lock;" wait=futex ;;
		condvar) want="start_thread;condvar;wait_in_cond;" wait=futex ;;
		poller) want="start_thread;poller;wait_in_poll;" wait=poll_1_fd ;;
		epoller) want="start_thread;epoller;wait_in_epoll;" wait=epoll_wait ;;
		selecter) want="start_thread;selecter;wait_in_select;" wait="p*select6*" ;;
		semwait) want="start_thread;semwait;wait_in_sem;" wait=futex ;;
		reader) want="start_thread;reader;wait_in_read;" wait="read_fd_[0-9]*_pipe" ;;
		joiner) want="start_thread;joiner;wait_in_join;" wait=futex ;;
		half) want="start_thread;half;wait_in_half;" wait=clock_nanosleep ;;
		compute) continue ;;
		esac
		top=$(grep "/$tid;" "$BATS_TEST_TMPDIR/off.folded" | sort -t' ' -k2,2nr | head -1)
		echo "$name: $top"
		case $top in *"$want"*) ;; *) echo "want $want"; return 1 ;; esac
		heavy=$(awk -v t="$tid" '$1 == t && $2 != "waiting_for_a_CPU"' "$BATS_TEST_TMPDIR/waits" |
			sort -k3,3nr | head -1 | cut -d' ' -f2)
		echo "$name waits in $heavy"
		# shellcheck disable=SC2254
		case $heavy in $wait) ;; *) echo "want $wait"; return 1 ;; esac
	done < "$1.truth"
}

@test "-O2 without frame pointers: the program runs unchanged, no EINTR" {
	check_unchanged waits
}

@test "-O2 without frame pointers: each thread's off-CPU share is its schedstat's within 3 points" {
	check_shares waits
}

@test "-O2 without frame pointers: the stacks name the true callers and the waits the calls" {
	check_stacks waits
}

@test "frame pointers: the program runs unchanged, no EINTR" {
	check_unchanged waits-fp
}

@test "frame pointers: each thread's off-CPU share is its schedstat's within 3 points" {
	check_shares waits-fp
}

@test "frame pointers: the stacks name the true callers (rbp found in the copied stack)" {
	check_stacks waits-fp
}
