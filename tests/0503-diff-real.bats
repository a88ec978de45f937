# 0503-diff-real.bats — zt-diff --report on real profiles: two runs of the
# same program (samples/spin, 3 : 1 between hot_a and hot_b) show no
# significant change. The runs are random, so the level is 0.01: a false
# alarm should come about once in a hundred runs of this file at most.
load helper
bats_require_minimum_version 1.5.0

profile() {
	zt-collect -o "$T/$1.raw" "$SAMPLES/spin" 100 > /dev/null &&
	zt-symbolize "$T/$1.raw" > "$T/$1.sym" &&
	zt-fold "$T/$1.sym" > "$T/$1.folded"
}

setup() {
	T=$BATS_TEST_TMPDIR
	[ -x "$ZT_TOP/collect/zt-collect" ] && [ -x "$ZT_TOP/tools/zt-symbolize" ] ||
		skip "the collector and zt-symbolize are not built"
}

@test "report finds no significant change between two real runs of spin" {
	profile one
	profile two
	run zt-diff --report --fdr 0.01 "$T/one.folded" "$T/two.folded"
	assert_success
	assert_line --index 1 --regexp '^0 of [0-9]+ functions changed beyond sampling noise'
	refute_output --partial "significant "
}

@test "report on a real run and itself gives identical shares and p = 1" {
	profile one
	run zt-diff --report --json "$T/one.folded" "$T/one.folded"
	assert_success
	refute_output --partial '"significant": true'
	refute_output --regexp '"total_p": 0\.'
}

@test "stat on a real run of spin puts about three quarters in hot_a" {
	profile one
	run zt-stat --json "$T/one.sym"
	assert_success
	share=$(echo "$output" | awk -F'"self": ' '/"name": "hot_a"/ { split($2, a, ","); print a[1] }')
	total=$(echo "$output" | sed -n 's/^{"samples": \([0-9]*\),.*/\1/p')
	awk -v s="$share" -v n="$total" 'BEGIN { f = s / n; exit !(f > 0.65 && f < 0.85) }'
}
