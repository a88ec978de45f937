#!/usr/bin/env bats
# A run is finished outside the program (issue 26, item 1): the collector
# writes samples (each thread's buffer at least once a second), maps and
# build-ids to the file as the run goes, and zt-collect, which waits for the
# program, finishes the dump of a program that ended without zt's exit path
# (formats/raw.md, "Finished by zt-collect"). Every ending leaves a readable
# dump, and zt-collect's exit status is always the program's.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O0 -fno-omit-frame-pointer -o endings "$BATS_TEST_DIRNAME/finish/endings.c"
	gcc -O0 -fno-omit-frame-pointer -o killme "$BATS_TEST_DIRNAME/finish/killme.c"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/endings "$BATS_FILE_TMPDIR"/killme .
}

# The dump $1 reads back whole, left no temporary file, and holds samples
# of the stack pattern $2.
readable_with() {
	local n
	[ "$(tail -n 1 "$1")" = end ]
	! ls "$1".tmp.* 2> /dev/null
	zt-symbolize "$1" > "$1.sym"
	n=$(zt-fold < "$1.sym" | grep -c -- "$2" || true)
	echo "$1: stacks with '$2': $n"
	[ "$n" -gt 0 ]
}

# Run ./endings HOW bare and under zt-collect: the same status, and a dump.
ending() {
	local how=$1 bare=0 zt=0
	./endings "$how" > /dev/null 2>&1 || bare=$?
	zt-collect -o "$how.raw" ./endings "$how" > "$how.out" 2> "$how.err" || zt=$?
	cat "$how.err"
	echo "$how: status bare $bare, under zt-collect $zt"
	[ "$zt" -eq "$bare" ]
	readable_with "$how.raw" 'main;burn'
}

@test "a raw exit_group leaves a dump finished by zt-collect, and the program's status" {
	ending exit_group
	grep -qx 'finished zt-collect' exit_group.raw
	grep -q "^zt-collect: note: './endings' (pid [0-9]*, exit status 5) ended without zt's exit path; zt-collect finished its dump '$PWD/exit_group.raw' from what reached the file and the buffers it left: [0-9]* samples of 1 thread; not counted: the threads' names$" exit_group.err
	grep -qx 'finished-buffers-unknown 0' exit_group.raw
	[ "$(ls exit_group.raw.* 2> /dev/null | grep -vc '\.sym$')" = 0 ]
	# Every sample taken is there: the last buffer too (a 0.3 s run fills
	# little more than one). Judged against the program's user time (the
	# rusage the line gives), within 4 standard deviations of a Poisson count.
	read -r n user <<< "$(sed -n 's/^zt-collect: \([0-9]*\) samples in \([0-9.]*\) user CPU-s.*/\1 \2/p' exit_group.err)"
	awk -v n="$n" -v u="$user" 'BEGIN { e = u * 997; printf "samples %d, expected %.0f from %.3f user CPU-s, at least %.0f\n", n, e, u, e - 4 * sqrt(e) - 10
		exit !(n >= e - 4 * sqrt(e) - 10) }'
}

@test "daemon(): the parent leaves through glibc's internal _exit; its dump is finished, status 0" {
	ending daemon
	grep -qx 'finished zt-collect' daemon.raw
}

@test "a stack overflow leaves a dump: without a handler (zt's runs on its alternate stack) and with the program's own on sigaltstack" {
	ending overflow
	[ "$(cat overflow.out)" = "" ]
	ending altstack
	grep -q 'overflow caught' altstack.err
	ending altstack-reraise
}

@test "a crash reporter installed with SA_RESETHAND: SIGSEGV, and SIGUSR1 raised twice" {
	ending resethand-segv
	grep -q 'crash reported' resethand-segv.err
	ending resethand-usr1
}

@test "SIGKILL at random moments over 20 runs: a readable dump with >= 99% of the samples taken up to the kill" {
	# Each sample's time is put on the thread's CPU clock through the
	# program's log; the samples taken are one per period of that clock, so
	# the share of the CPU time up to the cut that the dump's samples cover
	# (no gap over 40 periods of CPU, where a lost buffer of 80 or more
	# samples would leave one) is the share of the samples taken that it
	# holds. A sample's CPU time is the program's last log line's before it:
	# beside other work those lines are far apart in wall-clock time, and
	# gaps of 5 periods were seen where no sample was lost (52 ms at 97 Hz,
	# 22 ms at 997 Hz, in runs whose sample counts were whole).
	# At 97 Hz a buffer holds seconds of samples, most of them unwritten
	# at the kill: only the buffers the process left hold them.
	counted=0
	for i in $(seq 20); do
		hz=$((i % 2 ? 997 : 97))
		zt-collect -F "$hz" -o "k$i.raw" ./killme "k$i.log" > "k$i.out" 2> "k$i.err" &
		pid=$!
		for t in $(seq 100); do grep -q started "k$i.out" && break; sleep 0.05; done
		# Killed at a random moment once the CPU time it had a second
		# before is 0.35 to 1 s (at least that before the cut), as the
		# program logs it, not after a time of the wall clock: beside
		# other work it may get little CPU in a few seconds (bounded at 60 s).
		want=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.0f", 3.5e8 + 6.5e8 * rand() }')
		for t in $(seq 1200); do
			awk -v w="$want" '{ t[NR] = $1; c[NR] = $2 }
				END { for (k = NR; k > 0 && t[k] > t[NR] - 1e9; k--) ; exit !(k > 0 && c[k] >= w) }' \
				"k$i.log" && break
			sleep 0.05
		done
		pkill -KILL -P "$pid" -x killme
		status=0; wait "$pid" || status=$?
		cat "k$i.err"
		echo "run $i: status $status"
		[ "$status" -eq 137 ]
		readable_with "k$i.raw" 'main'
		grep -qx 'finished zt-collect' "k$i.raw"
		# The kill came after the last line the program logged. The cut:
		# two periods (at least 3 ms) of CPU before that line. Samples not
		# yet written to the file were in the thread's buffer, which the
		# process leaves in FILE.tmp.PID.bufs (collect/spill.h): zt-collect
		# takes them too.
		cut=$(awk -v m="$((hz < 667 ? 2000000000 / hz : 3000000))" '{ t[NR] = $1; c[NR] = $2 }
			END { for (k = NR; k > 1 && c[NR] - c[k] < m; k--) ; printf "%.0f\n", t[k] }' "k$i.log")
		start=$(sed -n 's/^start-ns //p' "k$i.raw")
		read -r n span gaps cover where <<< "$(awk -v cut="$cut" -v st="$start" -v gap="$((40000000000 / hz))" '
			FNR == NR { t[++nl] = $1; c[nl] = $2; if ($1 <= cut) ccut = $2; next }
			/^samples$/ { s = 1; next }
			s && /^[0-9]+ [0-9]+ @/ {
				x = st + substr($3, 2)
				if (x > cut) next
				while (k < nl && t[k + 1] <= x) k++
				if (!k || c[k] < c[1]) next
				if (!n) prev = c[1]
				if (c[k] - prev > gap) { gaps += c[k] - prev; gl = gl sprintf(" %.0f+%.0f", prev, c[k] - prev) }
				prev = c[k]; n += $2
			}
			END { if (!n) prev = c[1]; if (ccut - prev > gap) { gaps += ccut - prev; gl = gl sprintf(" %.0f+%.0f", prev, ccut - prev) }
			      span = ccut - c[1]; printf "%d %.0f %.0f %.4f%s\n", n, span, gaps + 0,
			      (span > 0 ? (span - gaps) / span : 0), gl }' "k$i.log" "k$i.raw")"
		echo "run $i at $hz Hz: killed after $(awk 'END { print $1 }' "k$i.log") ns, cut at $cut ns: $n samples by then over $span ns of CPU, $gaps ns of it in gaps (CPU ns at each + its length:$where), covered $cover"
		if [ "$span" -ge 300000000 ]; then
			counted=$((counted + 1))
			awk -v c="$cover" 'BEGIN { exit !(c >= 0.99) }'
			# And about one sample per period of it (loosely).
			awk -v n="$n" -v s="$span" -v hz="$hz" 'BEGIN { exit !(n >= 0.8 * s / 1e9 * hz) }'
		fi
	done
	echo "runs with 0.3 CPU-s or more before the cut: $counted of 20"
	[ "$counted" -ge 10 ]
}

# The Go program, built once: cgo on (a dynamically linked program zt can
# preload into), only the standard library, no network.
build_go() {
	command -v go > /dev/null || skip "no Go toolchain (golang-go)"
	[ -x "$BATS_FILE_TMPDIR/goend" ] && return
	mkdir -p "$BATS_FILE_TMPDIR/go"
	cp "$BATS_TEST_DIRNAME/finish/goend.go" "$BATS_FILE_TMPDIR/go/"
	printf 'module goend\n\ngo 1.19\n' > "$BATS_FILE_TMPDIR/go/go.mod"
	(cd "$BATS_FILE_TMPDIR/go" && GOCACHE="$BATS_FILE_TMPDIR/gocache" \
		GOPATH="$BATS_FILE_TMPDIR/gopath" GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=1 \
		go build -o "$BATS_FILE_TMPDIR/goend" .)
}

# ./goend HOW bare and under zt-collect: the same status, and a readable dump
# holding samples of the C function the Go program called.
go_ending() {
	local how=$1 want=$2 zt=0
	zt-collect -o "go-$how.raw" "$BATS_FILE_TMPDIR/goend" "$how" 1.5 > "go-$how.out" \
		2> "go-$how.err" || zt=$?
	cat "go-$how.err"
	echo "go $how: status under zt-collect $zt, wanted $want"
	[ "$zt" -eq "$want" ]
	readable_with "go-$how.raw" 'Cfunc_burn'
}

@test "Go: return from main, os.Exit(3) and panic each leave a readable dump and the program's status" {
	build_go
	status=0; "$BATS_FILE_TMPDIR/goend" return 0 > /dev/null 2>&1 || status=$?
	[ "$status" -eq 0 ]
	go_ending return 0
	[ "$(cat go-return.out)" = returned ]
	go_ending exit 3
	go_ending panic 2
	grep -q 'panic: on purpose' go-panic.err
}

@test "Go under --clock=wall: a 0.5 s run's finished dump holds its off-CPU samples, from the sampler's buffer the process left" {
	build_go
	run --separate-stderr zt-collect --clock=wall -o gw.raw "$BATS_FILE_TMPDIR/goend" return 0.5
	echo "$stderr"
	assert_success
	grep -qx 'finished zt-collect' gw.raw
	# The off-CPU sampler writes its buffer when full: in so short a run,
	# its lines exist only in the buffer the process left (spill.h).
	n=$(awk '/^samples$/ { s = 1; next } /^(maps|buildids|threads|summary|end)$/ { s = 0 }
		s && / !/ { n += $2 } END { print n + 0 }' gw.raw)
	echo "off-CPU samples in the dump: $n"
	[ "$n" -gt 0 ]
	[[ $stderr == *"zt-collect: wall clock: $n off-CPU samples at 97 Hz, "*" s off-CPU in all threads (the sampler's own counts died with the process)"* ]]
	grep -qx 'finished-buffers-unknown 0' gw.raw
}

@test "Go: SIGTERM, which the runtime re-raises with its own sigaction and tgkill, leaves a dump and status 143" {
	build_go
	zt-collect -o go-term.raw "$BATS_FILE_TMPDIR/goend" sigterm 1.5 > go-term.out 2> go-term.err &
	pid=$!
	for t in $(seq 200); do grep -q waiting go-term.out && break; sleep 0.05; done
	pkill -TERM -P "$pid" -x goend
	status=0; wait "$pid" || status=$?
	cat go-term.err
	echo "status $status"
	[ "$status" -eq 143 ]
	readable_with go-term.raw 'Cfunc_burn'
}

@test "-f: a forked child and its parent both end by exit_group: each dump holds its own process's samples, all of them" {
	run --separate-stderr zt-collect -f -o fk.raw ./endings fork-exit_group
	echo "$stderr"
	[ "$status" -eq 5 ]
	child=$(ls fk.raw.[0-9]* | grep -v '\.sym$')
	[ "$(echo "$child" | wc -l)" -eq 1 ]
	# The child's buffers are its own from the fork on: a copy of the
	# parent's file would have mixed the two (collect/spill.c).
	for d in fk.raw "$child"; do
		grep -qx 'finished zt-collect' "$d"
		grep -qx 'finished-buffers-unknown 0' "$d"
		pid=$(sed -n 's/^pid //p' "$d")
		read -r n others <<< "$(awk -v p="$pid" '/^samples$/ { s = 1; next } /^(maps|buildids|threads|summary|end)$/ { s = 0 }
			s && /^[0-9]/ { if ($1 == p) n += $2; else o += $2 } END { print n + 0, o + 0 }' "$d")"
		# 0.3 s of its own CPU at 997 Hz, within 4 standard deviations and a margin.
		echo "$d: pid $pid, $n samples of its main thread, $others of other threads"
		[ "$others" -eq 0 ]
		awk -v n="$n" 'BEGIN { e = 0.3 * 997; exit !(n >= e - 4 * sqrt(e) - 15 && n <= e + 4 * sqrt(e) + 15) }'
	done
}

@test "-f: a descendant that ends by a raw exit_group gets its dump finished too" {
	run --separate-stderr zt-collect -f -o f.raw sh -c './endings exit_group; echo "child $?"'
	echo "$stderr"
	assert_success
	assert_output 'child 5'
	dump=$(ls f.raw.[0-9]* | grep -v '\.sym$')
	[ "$(echo "$dump" | wc -l)" -eq 1 ]
	[[ $stderr == *"zt-collect: note: descendant ${dump##*.} ('endings') ended without zt's exit path; zt-collect finished its dump '$PWD/$dump'"* ]]
	readable_with "$dump" 'main;burn'
	grep -qx 'finished zt-collect' "$dump"
}
