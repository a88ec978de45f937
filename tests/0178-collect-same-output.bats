#!/usr/bin/env bats
# Several zt-collect runs at once with the same -o: each reports only its
# own dump, never another run's samples; a run never removes another's
# whole dump, and the last to finish wins whole. (Issue 17, item 6.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "a run that leaves no dump does not report another run's as its own" {
	# B's program runs unsampled (--timer=perf where perf_event_open is
	# refused: no dump); A starts after B and publishes first.
	"$ZT_TOP/tests/noperf" zt-collect --timer=perf -o c.raw sh -c 'sleep 1' 2> b.err &
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
	# The longest run finishes last and says it wrote the file. A shorter
	# one said so too, or, when a later run had already replaced its dump
	# by the time it looked (3 busy runs on 2 CPUs: it can be preempted
	# between the two), that the file is another run's: never another
	# run's samples as its own.
	grep -q "wrote '$BATS_TEST_TMPDIR/c.raw'" err.40
	for n in 5 15; do
		grep -Eq "wrote '$BATS_TEST_TMPDIR/c.raw'|holds another run's dump \(pid [0-9]+\), not this run's" "err.$n"
	done
	# The file is the longest run's (it finished last), whole.
	grep -qx end c.raw
	last=$(sed -n 's/^zt-collect: \([0-9]*\) samples in .*/\1/p' err.40)
	[ "$(sed -n 's/^samples //p' c.raw)" = "$last" ]
	# Each run that reported counted its own: more work, more samples.
	s10=$(sed -n "s/^zt-collect: \([0-9]*\) samples in .*wrote '.*/\1/p" err.5)
	s20=$(sed -n "s/^zt-collect: \([0-9]*\) samples in .*wrote '.*/\1/p" err.15)
	[ -z "$s10" ] || [ -z "$s20" ] || [ "$s10" -lt "$s20" ]
	[ -z "$s20" ] || [ "$s20" -lt "$last" ]
	[ -z "$s10" ] || [ "$s10" -lt "$last" ]
}
