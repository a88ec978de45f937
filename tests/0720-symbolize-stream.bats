#!/usr/bin/env bats
# zt-symbolize writes one record per sample, in time order, with the time
# the collector read in its handler, so that viewers that weigh a record by
# the time to the next one (speedscope) or count records (the Firefox
# Profiler) weigh it right; --merge keeps one record per distinct stack.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	zt-collect -o spin.raw "$SAMPLES/spin" 100 2>/dev/null
	zt-collect -o threads.raw "$SAMPLES/threads" 60 >/dev/null 2>&1
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# share NAME FILE: NAME's share in viewers.py output FILE
share() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }

@test "every sample line has its time, and the dump says which clock" {
	grep -qx 'clock monotonic' spin.raw
	grep -Eq '^start-ns [0-9]+$' spin.raw
	grep -Eq '^start-time-ns [0-9]{19}$' spin.raw
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' spin.raw)
	[ "$(grep -Ec '^[0-9]+ 1 @[0-9]+ ' spin.raw)" = "$n" ]
}

@test "one record per sample, in time order, with period 1" {
	zt-symbolize spin.raw > spin.sym
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' spin.raw)
	[ "$(grep -c ' zt-samples:$' spin.sym)" = "$n" ]
	[ -z "$(grep ' zt-samples:$' spin.sym | grep -v ': 1 zt-samples:$')" ]
	# Times rise, and span about the run's CPU time (a CPU-bound thread).
	grep ' zt-samples:$' spin.sym | awk '{ t = $3; sub(/:$/, "", t); if (t + 0 < last) bad = 1; last = t + 0 }
		END { exit bad }'
	first=$(grep -m1 ' zt-samples:$' spin.sym | awk '{ print $3 + 0 }')
	last=$(grep ' zt-samples:$' spin.sym | tail -1 | awk '{ print $3 + 0 }')
	awk -v a="$first" -v b="$last" -v n="$n" 'BEGIN { d = b - a; exit !(d > 0.8 * n / 1000 && d < 3 * n / 1000) }'
}

@test "zt-fold and zt-stat give the same results on the per-sample and the --merge stream" {
	zt-symbolize spin.raw | zt-fold > a.folded
	zt-symbolize --merge spin.raw | zt-fold > b.folded
	cmp a.folded b.folded
	zt-symbolize threads.raw | zt-fold --tid > c.folded
	zt-symbolize -m threads.raw | zt-fold --tid > d.folded
	cmp c.folded d.folded
	zt-symbolize spin.raw | zt-stat > a.stat
	zt-symbolize -m spin.raw | zt-stat > b.stat
	cmp a.stat b.stat
}

@test "speedscope's and the Firefox Profiler's way of reading the stream give zt-fold's shares" {
	zt-symbolize spin.raw > spin.sym
	zt-fold spin.sym > spin.folded
	python3 "$ZT_TOP/tests/viewers.py" folded spin.folded > want
	python3 "$ZT_TOP/tests/viewers.py" firefox spin.sym > firefox
	python3 "$ZT_TOP/tests/viewers.py" speedscope spin.sym > speedscope
	cat want firefox speedscope
	# One record per sample: counting records is counting samples.
	cmp want firefox
	# Time to the next sample: CPU-bound, so within 2 points.
	for f in hot_a hot_b; do
		awk -v a="$(share $f want)" -v b="$(share $f speedscope)" \
			'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 2) }'
	done
	[ "$(share hot_a want | cut -d. -f1)" -ge 65 ]
}

@test "the merged stream is what those viewers cannot read (the test can fail)" {
	zt-symbolize --merge spin.raw > m.sym
	zt-fold m.sym > m.folded
	python3 "$ZT_TOP/tests/viewers.py" folded m.folded > want
	python3 "$ZT_TOP/tests/viewers.py" firefox m.sym > firefox
	! cmp -s want firefox
}

@test "a dump without times (version 2) is written merged, as before" {
	printf 'zt-prof 2\npid 7\nsamples\n7 2 401136\n7 1 401136\n7 1 401150\nend\n' > v2.raw
	run zt-symbolize v2.raw
	assert_success
	[ "$(grep -c ' zt-samples:$' <<< "$output")" = 2 ]
	[[ $output == *"7/7 0.000000: 3 zt-samples:"* ]]
}

@test "a bad time on a sample line names the line" {
	printf 'zt-prof 3\nsamples\n7 1 @x1 401136\nend\n' > bad.raw
	run --separate-stderr zt-symbolize bad.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: 'bad.raw': line 3: sample: time is not a number" ]
}
