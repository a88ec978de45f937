#!/usr/bin/env bats
# A program built with -fsplit-stack runs on segments with little room
# below the stack pointer; zt's handler runs on its own alternate stack and
# never writes there, and a sample on a segment zt does not know is unwound
# from a copy, as far as it goes, never by reading where it could fault.
# (Issue 17, item 1.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "a split-stack program: nothing written below its stack pointer, same output in every run" {
	expect=$("$SAMPLES/splitstack")
	for i in 1 2 3 4; do
		run --separate-stderr zt-collect -o split.raw "$SAMPLES/splitstack"
		assert_success
		assert_output "$expect"
		grep -qx end split.raw
		zt-symbolize split.raw > split.sym
		grep -q 'spin+0x' split.sym
	done
}

@test "a split-stack program: a stack through an older segment is marked partial, never passed off as whole" {
	# A sample shows __morestack under rec only when it lands fewer than
	# 128 frames (the depth limit) above a segment's start, which depends
	# on where the segments fall: runs are repeated (at most 8) until one
	# has such a sample; every run must mark its partial stacks.
	local seen=0 i
	for i in 1 2 3 4 5 6 7 8; do
		run --separate-stderr zt-collect -o split.raw "$SAMPLES/splitstack" 5000
		assert_success
		zt-fold split.raw > folded
		# Each stack reaches the entry (through main, or in libc's start-up
		# and exit around it, where a busy machine lands a sample now and
		# then), or is marked partial: the ones that crossed a segment end
		# at __morestack, where zt stops; the ones deeper than the limit are
		# cut there.
		run grep -v -e '^splitstack;_start[; ]' -e '^splitstack;\[truncated\];' \
			-e '^splitstack;\[depth limit\];' folded
		assert_failure
		grep -q '^splitstack;_start;.*;main;rec;' folded
		if grep -q '^splitstack;\[truncated\];__morestack;rec;' folded; then
			seen=1
			break
		fi
	done
	echo "runs $i, a stack through an older segment seen: $seen"
	[ "$seen" -eq 1 ]
}
