#!/usr/bin/env bats
# node (V8), against perf on the same script: builtins that node maps from
# its own executable at a new address and unmaps before exit, and JIT code
# named through --perf-basic-prof's /tmp/perf-PID.map. Skipped when node or
# perf record is missing.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	command -v node > /dev/null || skip "node is not installed (Debian's nodejs)"
	JS="$ZT_TOP/tests/data/node/work.js"
}

teardown() {
	for p in $(cat pids 2> /dev/null); do rm -f "/tmp/perf-$p.map"; done
	true
}

# Leaf self-shares of user-space samples, from folded stacks made with
# --kernel: "LEAF PERCENT", spaces in a name made '_' (join's key is one
# word). JIT code perf could not name ([perf-PID.map])
# and zt's anonymous code ([anon]) are both "[jit]".
leaf_shares() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); l = f[k]
	       if (l ~ /_\[k\]$/) next
	       sub(/_\[j\]$/, "", l)
	       if (l ~ /^\[perf-[0-9]+\.map\]$/ || l == "[anon]") l = "[jit]"
	       gsub(/ /, "_", l)
	       s[l] += n; t += n }
	     END { for (l in s) printf "%s %.2f\n", l, 100 * s[l] / t
	           print t > ENVIRON["TOTAL"] }' | sort
}

# perf's and zt's shares for node with the options in $@; every name with
# at least 3% in either must be within 3 points, or within 4 standard
# errors of the difference of two binomial shares where that is wider (a
# loaded machine gives fewer samples, and V8's tiering then moves a few
# points between JIT code and builtins from run to run). node's own
# run-to-run spread is measured too: perf runs twice, and the difference of
# its two runs is added to the tolerance (a run here moved JS:*numWork by
# 6.9 points between perf and zt).
compare() {
	for r in 1 2; do
		perf record -F 997 -g -o p$r.data node "$@" "$JS" > perf.out 2> perf.err ||
			skip "perf record does not work here: $(tail -n 1 perf.err)"
		perf script -i p$r.data -F pid 2> /dev/null | head -n 1 | tr -d ' ' >> pids
		perf script -i p$r.data 2> /dev/null | zt-fold --kernel --weight=count |
			TOTAL=perf$r.n leaf_shares > perf$r.shares
	done
	join -a 1 -a 2 -e 0 -o 0,1.2,2.2 perf1.shares perf2.shares |
		awk '{ d = $2 - $3; print $1, $2, (d < 0 ? -d : d) }' > perf.shares
	cp perf1.n perf.n
	run --separate-stderr zt-collect -o n.raw node "$@" "$JS"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	sed -n 's/^pid //p' n.raw >> pids
	zt-symbolize n.raw | zt-fold --kernel | TOTAL=zt.n leaf_shares > zt.shares
	join -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2 perf.shares zt.shares |
		NP=$(cat perf.n) NZ=$(cat zt.n) awk '
		     $2 + 0 >= 3 || $4 + 0 >= 3 {
			p = $2 / 100; q = $4 / 100
			se = 100 * sqrt(p * (1 - p) / ENVIRON["NP"] + q * (1 - q) / ENVIRON["NZ"])
			tol = (4 * se > 3 ? 4 * se : 3) + $3
			d = $2 - $4; print $1, "perf", $2, "zt", $4, "perf run to run", $3, "tolerance", tol
			if (d > tol || d < -tol) bad++ }
		     END { exit bad > 0 }'
}

@test "node --perf-basic-prof: JIT and builtin names within 3 points of perf's, sampling error or node's own spread" {
	compare --perf-basic-prof
	# The JIT functions are named, not anonymous.
	grep -q '^JS:\*numWork_' zt.shares
}

@test "node without a perf map: builtin names within 3 points of perf's, sampling error or node's own spread" {
	compare
	grep -q '^Builtins_FindOrderedHashMapEntry ' zt.shares
}
