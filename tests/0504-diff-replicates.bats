# 0504-diff-replicates.bats — zt-diff --report with several runs per side
# (before... -- after...), on real runs: samples/churn's allocating mix
# varies between runs more than sampling explains; samples/slower has
# compute() : crunch() 1 : 1 and varies between runs no more than sampling.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	T=$BATS_FILE_TMPDIR
	[ -x "$ZT_TOP/collect/zt-collect" ] || return 0
	# Eight unchanged runs of the allocating mix, about 0.5 CPU-s each.
	for i in 1 2 3 4 5 6 7 8; do
		zt-collect -o "$T/u$i.raw" "$SAMPLES/churn" 800 > /dev/null 2>&1 &&
		zt-symbolize "$T/u$i.raw" 2> /dev/null | zt-fold > "$T/u$i.folded"
	done
	# 2 + 2 runs of about 2 CPU-s each, compute() 15% slower in the last two
	# (a change of about 3.5 points of share).
	for i in 1 2 3 4; do
		slower=0
		[ $i -gt 2 ] && slower=15
		zt-collect -F 3997 -o "$T/c$i.raw" "$SAMPLES/slower" 1600 $slower > /dev/null 2>&1 &&
		zt-symbolize "$T/c$i.raw" 2> /dev/null | zt-fold > "$T/c$i.folded"
	done
}

setup() {
	T=$BATS_FILE_TMPDIR
	[ -x "$ZT_TOP/collect/zt-collect" ] || skip "the collector is not built"
}

@test "unchanged: 2 + 2 of 8 runs show no significant function in at least 19 of 20 seeded random splits" {
	fp=0
	for s in $(seq 1 20); do
		# A Fisher-Yates shuffle by the Park-Miller generator, not awk's
		# rand(): gawk and mawk draw different numbers from one seed.
		set -- $(awk -v s=$s 'BEGIN { x = s; for (i = 0; i < 10; i++) x = (x * 16807) % 2147483647
			for (i = 1; i <= 8; i++) a[i] = i
			for (i = 8; i > 1; i--) { x = (x * 16807) % 2147483647
				j = int(x / 2147483647 * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
			print a[1], a[2], a[3], a[4] }')
		run zt-diff --report "$T/u$1.folded" "$T/u$2.folded" -- "$T/u$3.folded" "$T/u$4.folded"
		assert_success
		assert_line --index 1 --regexp '^[0-9]+ of [0-9]+ functions changed beyond run-to-run variation'
		case ${lines[1]} in 0\ of*) ;; *) fp=$((fp + 1)); echo "split $s ($*): ${lines[1]}" >&3;; esac
	done
	[ "$fp" -le 1 ]
}

@test "unchanged: the same runs, one per side, are tested against sampling error only and say so" {
	run zt-diff --report "$T/u1.folded" "$T/u2.folded"
	assert_success
	assert_line --index 2 "one run per side: sampling error only, not the variation between runs; give two or more runs per side to test against it"
	run zt-diff --report "$T/u1.folded" "$T/u2.folded" -- "$T/u3.folded" "$T/u4.folded"
	refute_output --partial "one run per side"
}

@test "changed: a function made 15% slower is significant, with the right sign, from 2 + 2 runs" {
	run zt-diff --report --json "$T/c1.folded" "$T/c2.folded" -- "$T/c3.folded" "$T/c4.folded"
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["before_runs"] == 2 and d["after_runs"] == 2 and d["replicates"]
f = {x["name"]: x for x in d["functions"]}
c, k = f["compute"], f["crunch"]
assert c["significant"] and c["self_change_ci"][0] > 0, c
assert k["significant"] and k["self_change_ci"][1] < 0, k
# Intervals and verdicts agree, for every function.
for x in d["functions"]:
    out = any(x[m + "_change_ci"][0] > 0 or x[m + "_change_ci"][1] < 0 for m in ("self", "total"))
    assert out == x["significant"], x
'
}

@test "the verdict and the intervals agree on every row" {
	printf 'churn;main;compute 900\nchurn;main;lookup 100\n' > "$BATS_TEST_TMPDIR/x"
	run zt-diff --report --top 0 "$T/u1.folded" "$T/u2.folded" -- "$T/u3.folded" "$BATS_TEST_TMPDIR/x"
	assert_success
	echo "$output" | awk '/%.*\[/ {
		n = split($0, f, "[][,%]+"); sig = ($0 ~ /significant/)
		out = 0
		for (i = 1; i <= n; i++) ;
		if (match($0, /\[[-+0-9.]+%, [-+0-9.]+%\]/)) { s = substr($0, RSTART + 1, RLENGTH - 2); split(s, a, "%, "); if (a[1] + 0 > 0 || a[2] + 0 < 0) out = 1
			rest = substr($0, RSTART + RLENGTH) }
		if (match(rest, /\[[-+0-9.]+%, [-+0-9.]+%\]/)) { s = substr(rest, RSTART + 1, RLENGTH - 2); split(s, a, "%, "); if (a[1] + 0 > 0 || a[2] + 0 < 0) out = 1 }
		if (out != sig) { print "disagree: " $0; bad = 1 } }
		END { exit bad }'
}

@test "a side with no run, or runs without --report, is bad usage" {
	run -2 --separate-stderr zt-diff --report "$T/u1.folded" --
	assert_equal "${stderr_lines[0]}" "zt-diff: each side needs at least one profile, around '--'"
	run -2 --separate-stderr zt-diff "$T/u1.folded" -- "$T/u2.folded" "$T/u3.folded"
	assert_equal "${stderr_lines[0]}" "zt-diff: several runs per side go with --report"
}
