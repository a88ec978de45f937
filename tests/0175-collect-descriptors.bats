#!/usr/bin/env bats
# zt's descriptors and the program's: closefrom spares zt's as close and
# close_range do; a close() of the program's own descriptor always closes
# it, even one that reuses the number of a counter of zt's (all anon-inode
# descriptors share one inode: zt checks the event's id); and a thread that
# exits closes its counter (zt's own closes are raw system calls, never its
# close interposer). (Issue 17, item 5.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

summary_samples() { sed -n 's/^samples \([0-9][0-9]*\)$/\1/p' "$1"; }

@test "closefrom(3) through glibc spares zt's descriptors: the log is the program's, sampling goes on" {
	zt-collect -o d.raw "$SAMPLES/daemon" log closefrom 2> d.err
	cat d.err
	[ "$(cat log)" = "$(printf 'daemon log\ndaemon log\ndaemon log')" ]
	grep -qx end d.raw
	! grep -q '^timers-lost' d.raw
	! grep -q '^dump-reopened' d.raw
	# Sampled on its CPU time after the close (about 0.2 CPU-s).
	read -r user sys < <(rusage_of d.err)
	near "$(summary_samples d.raw)" "$(awk -v u="$user" 'BEGIN { print u * 997 }')" 10
}

@test "an eventfd on the number of zt's closed counter: the program's close() closes it" {
	expect=$("$SAMPLES/fdhostile" eventfd)
	[ "$expect" = "eventfd at a reused number: closed" ]
	run --separate-stderr zt-collect -o e.raw "$SAMPLES/fdhostile" eventfd
	assert_success
	assert_output "$expect"
	# The counter it took was zt's: said, not hidden.
	grep -qx 'timers-lost 1' e.raw
}

@test "40 threads that exit leave no counter open: only the main thread's" {
	run --separate-stderr zt-collect -o x.raw "$SAMPLES/fdhostile" exits 40
	assert_success
	assert_output "perf descriptors open after 40 threads: 1"
}
