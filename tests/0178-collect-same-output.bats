#!/usr/bin/env bats
# Several zt-collect runs at once with the same -o: each reports only its
# own dump, never another run's samples; a run never removes another's
# whole dump, and the last to finish wins whole. (Issue 17, item 6.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "a run that leaves no dump does not report another run's as its own" {
	# B's program is killed by SIGKILL; A starts after B and publishes first.
	zt-collect -o c.raw sh -c 'sleep 1; kill -9 $$' 2> b.err &
	b=$!
	sleep 0.2
	zt-collect -o c.raw "$SAMPLES/spin" 5 2> a.err
	wait "$b" || true
	cat a.err b.err
	grep -q "wrote '$BATS_TEST_TMPDIR/c.raw'" a.err
	! grep -q "wrote '" b.err
	grep -q "holds another run's dump (pid [0-9]*), not this run's" b.err
	# A's dump is still there, whole.
	grep -qx end c.raw
	zt-symbolize c.raw > /dev/null
}

@test "three runs at once: each reports its own samples, the last to finish wins whole" {
	for n in 40 5 15; do
		zt-collect -o c.raw "$SAMPLES/spin" "$n" 2> "err.$n" &
	done
	wait
	cat err.*
	for n in 5 15 40; do grep -q "wrote '$BATS_TEST_TMPDIR/c.raw'" "err.$n"; done
	# The file is the longest run's (it finished last), whole.
	grep -qx end c.raw
	last=$(sed -n 's/^zt-collect: \([0-9]*\) samples in .*/\1/p' err.40)
	[ "$(sed -n 's/^samples //p' c.raw)" = "$last" ]
	# Each run counted its own: more work, more samples.
	s10=$(sed -n 's/^zt-collect: \([0-9]*\) samples in .*/\1/p' err.5)
	s20=$(sed -n 's/^zt-collect: \([0-9]*\) samples in .*/\1/p' err.15)
	[ "$s10" -lt "$s20" ] && [ "$s20" -lt "$last" ]
}
