#!/usr/bin/env bats
# zt-collect --clock=wall on a thread that waits on a disk in uninterruptible
# sleep (issue 20, "left" item 2): samples/diskread.c's "disk" thread reads
# 4 KiB blocks with O_DIRECT, so each read waits for the device (D state),
# briefly and often, with no root. Its off-CPU share over its whole life
# is its schedstat's within 3 points, its leaf names the read, and its
# stack the caller, in -O2 code without frame pointers.

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O2 -fomit-frame-pointer -pthread -o diskread "$SAMPLES/diskread.c"
	zt-collect --clock=wall -o d.raw ./diskread blocks.bin d.truth 2 > d.out 2> d.err
	echo $? > d.status
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "O_DIRECT reads: the program runs unchanged" {
	cat d.err
	[ "$(cat d.status)" = 0 ]
	[ "$(cat d.out)" = "disk reads done" ]
	[ ! -e blocks.bin ]
}

@test "O_DIRECT reads: the reader's off-CPU share over its life is its schedstat's within 3 points" {
	run $OFFCPU life d.raw d.truth
	echo "name truth measured lines gap-ms"
	echo "$output"
	# Some tick found it blocked (else there is nothing to check).
	echo "$output" | awk '$4 < 1 { print "no off-CPU line"; exit 1 }'
	echo "$output" | awk '{ d = $3 - $2; if (d < -3 || d > 3) { print "off by " d; exit 1 } }'
	# Its account reaches its end: the time it spent off-CPU after the
	# last tick that found it blocked is written too (at that stack).
	echo "$output" | awk '$5 > 50 { print "the last line is " $5 " ms before its end"; exit 1 }'
}

@test "O_DIRECT reads: the wait names the read and the stack its caller" {
	$OFFCPU waits d.raw > waits
	tid=$(cut -d' ' -f2 d.truth)
	awk -v t="$tid" '$1 == t' waits
	heavy=$(awk -v t="$tid" '$1 == t && $2 != "waiting_for_a_CPU"' waits |
		sort -k3,3nr | head -1 | cut -d' ' -f2)
	case $heavy in pread64_fd_[0-9]*_file) ;; *) echo "heaviest wait: $heavy"; false ;; esac
	$OFFCPU v4 d.raw > off.raw
	zt-fold --tid off.raw > off.folded 2> /dev/null
	top=$(grep "/$tid;" off.folded | sort -t' ' -k2,2nr | head -1)
	echo "$top"
	case $top in *"start_thread;disk;read_block;"*) ;; *) false ;; esac
}
