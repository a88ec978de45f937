#!/usr/bin/env bats
# Output paths are never replaced (issue 26, item 6): "-o -" writes the dump
# to standard output; a character device or a FIFO is written into, as perf
# record -o does; a symbolic link or another file that is not regular is
# never replaced; an older dump at the path is removed when the run starts.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "-o - writes the dump to standard output, piped into zt-symbolize" {
	# The program's own output goes elsewhere: it shares standard output.
	# Its temporary directory is looked for in a TMPDIR of this test's own:
	# other tests may run beside it.
	mkdir tmp
	TMPDIR=$PWD/tmp zt-collect -o - sh -c 'exec "$1" 20 > /dev/null' sh "$SAMPLES/spin" 2> err |
		zt-symbolize > out.sym
	cat err
	grep -q "wrote '<stdout>'" err
	zt-fold < out.sym | grep -q 'main;work;hot_a '
	[ ! -e ./- ]
	ls -A tmp
	[ -z "$(ls -A tmp)" ]
}

@test "-o on a character device writes into it and leaves it a character device" {
	[ "$(id -u)" -eq 0 ] || skip "mknod needs root"
	mknod null c 1 3 || skip "mknod refused"
	run --separate-stderr zt-collect -o null "$SAMPLES/spin" 10
	echo "$stderr"
	assert_success
	[ -c null ]
	[[ $stderr == *"wrote 'null'"* ]]
	# The machine's own /dev/null too.
	run --separate-stderr zt-collect -o /dev/null "$SAMPLES/spin" 5
	assert_success
	[ -c /dev/null ]
}

@test "-o on a FIFO writes the whole dump into it, read by cat" {
	mkfifo fifo
	timeout 120 cat fifo > got.raw &
	reader=$!
	run --separate-stderr zt-collect -o fifo "$SAMPLES/spin" 10
	echo "$stderr"
	assert_success
	[ -p fifo ] || kill "$reader"
	wait "$reader"
	[ -p fifo ]
	[ "$(tail -n 1 got.raw)" = end ]
	zt-symbolize got.raw | zt-fold | grep -q 'main;work;hot_a '
}

@test "a symbolic link at the path is refused before the run, and its target is untouched" {
	echo precious > target
	ln -s target link.raw
	run --separate-stderr zt-collect -o link.raw touch ran
	echo "$stderr"
	assert_failure 1
	[[ $stderr == "zt-collect: cannot write 'link.raw': it is a symbolic link, and zt-collect replaces none"* ]]
	[ ! -e ran ]
	[ -L link.raw ]
	[ "$(cat target)" = precious ]
	# A dangling one too.
	ln -s nowhere dangling.raw
	run --separate-stderr zt-collect -o dangling.raw touch ran
	assert_failure 1
	[ -L dangling.raw ]
	[ ! -e nowhere ]
}

@test "an older dump at the path is removed when the run starts, also when the run leaves none" {
	zt-collect -o old.raw "$SAMPLES/spin" 5 2> /dev/null > /dev/null
	grep -qx end old.raw
	# This run leaves no dump (perf refused, and --timer=perf allows no fallback).
	run --separate-stderr "$ZT_TOP/tests/noperf" zt-collect --timer=perf -o old.raw "$SAMPLES/spin" 5
	echo "$stderr"
	assert_success
	[ ! -e old.raw ]
	[[ $stderr == *"left no dump at '$PWD/old.raw'"* ]]
	[[ $stderr != *"another run's dump"* ]]
}
