#!/usr/bin/env bats
# Threads already running when zt starts: a library's constructor, which the
# loader runs before zt's, starts a pthread on a small stack and a raw clone
# (samples/libearlysmall.so). The pthread gets zt's alternate signal stack
# in zt's start wrapper (pthread_create binds to zt's before zt's
# constructor runs), so its stack is never written; the raw clone, found by
# its counter, gets one at its first sample and is sampled. (Issue 17,
# item 1.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "a pthread a library's constructor starts on a small stack: zt never touches it" {
	expect=$("$SAMPLES/earlystacks")
	[[ $expect == *"bytes below the small stack's headroom never touched" ]]
	for i in 1 2; do
		run --separate-stderr zt-collect -o e.raw "$SAMPLES/earlystacks"
		assert_success
		assert_output "$expect"
	done
	# And it was sampled, on its own stack's frames.
	zt-fold e.raw > folded
	grep -q ';early_small_spin [0-9]*$' folded
}

@test "a raw clone running before zt starts is sampled, and its later signals run on zt's stack" {
	run --separate-stderr "$SAMPLES/earlystacks" alt
	assert_line "earlystacks: the raw clone had no alternate signal stack"
	run --separate-stderr zt-collect -o r.raw "$SAMPLES/earlystacks" alt
	assert_success
	assert_line "earlystacks: the raw clone had an alternate signal stack"
	zt-fold r.raw > folded
	n=$(awk '/;raw_spin [0-9]*$/ { s += $NF } END { print s + 0 }' folded)
	[ "$n" -ge 50 ]
}
