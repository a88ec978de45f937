#!/usr/bin/env bats
# zt-symbolize writes one record per sample, in time order, with the time
# the collector read in its handler, so that viewers that weigh a record by
# the time to the next one (speedscope) or count records (the Firefox
# Profiler) weigh it right; --merge keeps one record per distinct stack.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	date +%s%N > spin.wall
	zt-collect -o spin.raw "$SAMPLES/spin" 160 2>/dev/null
	date +%s%N >> spin.wall
	zt-collect -o threads.raw "$SAMPLES/threads" 60 >/dev/null 2>&1
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# share NAME FILE: NAME's share in viewers.py output FILE
share() { N=$1 awk '$1 == ENVIRON["N"] { print $2 }' "$2"; }

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
	# Times rise. They span at least most of the run's CPU time (one
	# CPU-bound thread, a sample per 1/997 s of it) and at most the
	# wall-clock time around zt-collect: a loaded machine stretches the
	# span toward the latter, so no closer bound holds.
	grep ' zt-samples:$' spin.sym | awk '{ t = $3; sub(/:$/, "", t); if (t + 0 < last) bad = 1; last = t + 0 }
		END { exit bad }'
	# To the microsecond: awk's print would round to 6 digits (0.1 s here).
	first=$(grep -m1 ' zt-samples:$' spin.sym | awk '{ printf "%.6f\n", $3 + 0 }')
	last=$(grep ' zt-samples:$' spin.sym | tail -1 | awk '{ printf "%.6f\n", $3 + 0 }')
	wall=$(awk 'NR == 1 { a = $1 } NR == 2 { print ($1 - a) / 1e9 }' spin.wall)
	echo "span $first..$last, $n samples, wall $wall s"
	awk -v a="$first" -v b="$last" -v n="$n" -v w="$wall" 'BEGIN { d = b - a; exit !(d > 0.8 * n / 997 && d < w) }'
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
	# speedscope weighs each record by the wall-clock time to the next one.
	# A CPU-bound thread's samples are 1/997 CPU-s apart, but on a shared
	# machine a gap grows whenever the thread waits for a CPU, at random with
	# respect to the function it is in. The time-weighted share is then the
	# count share re-weighted at random: over n samples it differs from it by
	# a standard error of cv * sqrt(p(1-p)/n), the binomial error of the
	# share p times the gaps' coefficient of variation cv (their spread over
	# their mean). A fixed bound of 2 points failed on a loaded machine (by
	# 4.2 points, n about 1000, where the binomial error alone is 1.3); the
	# bound here is 4 errors, taking cv as at least 1 (a gap that is as
	# likely short as long): a fail means the times do not follow the
	# samples (a 1.5 times longer gap after every hot_a sample moves its
	# share by 6 points, 4 errors on an idle machine are 5.2).
	n=$(awk '{ s += $NF } END { print s }' spin.folded)
	cv=$(grep ' zt-samples:$' spin.sym | awk '{ t = $3 + 0; if (NR > 1) { g = t - l; s += g; q += g * g; m++ } l = t }
		END { mu = s / m; v = q / m - mu * mu; print (v > 0 ? sqrt(v) / mu : 0) }')
	for f in hot_a hot_b; do
		awk -v a="$(share $f want)" -v b="$(share $f speedscope)" -v n="$n" -v cv="$cv" \
			'BEGIN { p = a / 100; if (cv < 1) cv = 1; se = cv * 100 * sqrt(p * (1 - p) / n)
				d = a - b; if (d < 0) d = -d
				printf "%.2f points apart, n %d (at least 500), cv %.3f, 4 errors %.2f\n", d, n, cv, 4 * se
				exit !(n >= 500 && d <= 4 * se) }'
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

@test "a pipe zt-symbolize writes to is grown to 1 MiB; a file gets the same bytes" {
	# The reader asks its stdin's size after reading all of it
	# (F_GETPIPE_SZ, 1032): zt-symbolize grew it before its first write.
	size=$(zt-symbolize spin.raw 2> /dev/null | python3 -c '
import fcntl, sys
sys.stdin.buffer.read()
print(fcntl.fcntl(0, 1032))')
	[ "$size" -eq 1048576 ]
	# A pipe it does not grow: cat, as the control.
	[ "$(cat spin.raw | python3 -c '
import fcntl, sys
sys.stdin.buffer.read()
print(fcntl.fcntl(0, 1032))')" -lt 1048576 ]
	zt-symbolize spin.raw > file.sym 2> /dev/null
	[ "$(zt-symbolize spin.raw 2> /dev/null | cksum)" = "$(cksum < file.sym)" ]
}
