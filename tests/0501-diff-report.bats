# 0501-diff-report.bats — zt-diff --report tells change from noise. The
# profiles are drawn by a deterministic generator (Park-Miller, exact in
# awk's doubles) from a known mix of stacks.
load helper
bats_require_minimum_version 1.5.0

gen_profile() {
	# gen_profile SEED N "stack=weight ..." — N samples, summed, byte-sorted.
	awk -v seed="$1" -v n="$2" -v spec="$3" 'BEGIN {
		k = split(spec, item, " ")
		for (i = 1; i <= k; i++) {
			split(item[i], kv, "=")
			name[i] = kv[1]; total += kv[2]; cum[i] = total
		}
		x = seed
		for (s = 0; s < n; s++) {
			x = (x * 16807) % 2147483647
			u = x / 2147483647 * total
			for (i = 1; i < k && u >= cum[i]; i++)
				;
			count[name[i]]++
		}
		for (i = 1; i <= k; i++)
			if (count[name[i]]) print name[i], count[name[i]]
	}' | LC_ALL=C sort
}

MIX="spin;main;work;hot_a=3 spin;main;work;hot_b=1 spin;main;setup=1 spin;main;work;hot_c=2"

setup() {
	T=$BATS_TEST_TMPDIR
	gen_profile 1 20000 "$MIX" > "$T/before"
	gen_profile 7 20000 "$MIX" > "$T/same"
	gen_profile 7 20000 "${MIX/hot_a=3/hot_a=6}" > "$T/doubled"
}

@test "the generator is deterministic" {
	run gen_profile 1 20000 "$MIX"
	assert_output "spin;main;setup 2893
spin;main;work;hot_a 8562
spin;main;work;hot_b 2857
spin;main;work;hot_c 5688"
}

@test "report finds no significant change between two runs of the same program" {
	run zt-diff --report "$T/before" "$T/same"
	assert_success
	assert_line --index 0 "before: 20000 samples, after: 20000 samples"
	assert_line --index 1 "0 of 7 functions changed beyond sampling noise (score tests, Benjamini-Hochberg FDR 0.05 over 5 tests)"
	refute_output --partial "significant "
}

@test "report finds no significant change for ten other seeds either" {
	for s in 2 3 4 5 6 8 9 10 11 12; do
		gen_profile $s 20000 "$MIX" > "$T/other"
		run zt-diff --report "$T/before" "$T/other"
		assert_line --index 1 --partial "0 of 7 functions changed"
	done
}

@test "report flags a function whose work doubled, first, with its shares and interval" {
	run zt-diff --report "$T/before" "$T/doubled"
	assert_success
	assert_line --index 2 "one run per side: sampling error only, not the variation between runs; give two or more runs per side to test against it"
	assert_line --index 3 "intervals: 95.0%, adjusted for 5 tests: an interval excludes 0 exactly when its function's verdict is a change"
	assert_line --index 4 "   self1    self2   change interval               total1   total2   change interval             verdict      function"
	assert_line --index 5 "  42.81%   60.38%  +17.57% [+16.59%, +18.55%]     42.81%   60.38%  +17.57% [+16.59%, +18.55%]   significant  hot_a"
}

@test "report --top limits the rows" {
	run zt-diff --report --top 2 "$T/before" "$T/doubled"
	assert_success
	assert_line --index 7 "(5 more functions; --top 0 shows all)"
	assert_equal "${#lines[@]}" 8
}

@test "report --fdr sets the false discovery rate" {
	run zt-diff --report --fdr 0.01 "$T/before" "$T/same"
	assert_success
	assert_line --index 1 "0 of 7 functions changed beyond sampling noise (score tests, Benjamini-Hochberg FDR 0.01 over 5 tests)"
}

@test "report --json gives counts, shares and the verdict per function" {
	run zt-diff --report --json "$T/before" "$T/doubled"
	assert_success
	assert_line --index 0 '{"before_runs": 1, "after_runs": 1, "before_samples": 20000, "after_samples": 20000, "replicates": false, "dispersion": 0, "dispersion_prior_df": 0, "fdr_q": 0.05, "ci_level": 0.95, "tests": 5, "functions": ['
	assert_line --index 1 --partial '{"name": "hot_a", "self_before": 8562, "self_after": 12076, "total_before": 8562, "total_after": 12076, '
	assert_line --index 1 --partial '"significant": true}'
	assert_line --index 7 --partial '{"name": "spin", "self_before": 0, "self_after": 0, "total_before": 20000, "total_after": 20000, '
	assert_line --index 7 --partial '"significant": false}'
	if command -v python3 > /dev/null; then
		echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["functions"]) == 7'
	fi
}

@test "report counts a function once per stack in its total" {
	printf 'pp;a;b;a 10\npp;c 10\n' > "$T/r1"
	printf 'pp;a;b;a 10\npp;c 10\n' > "$T/r2"
	run zt-diff --report --json "$T/r1" "$T/r2"
	assert_success
	assert_output --partial '{"name": "a", "self_before": 10, "self_after": 10, "total_before": 10, "total_after": 10, '
}
