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
# points between JIT code and builtins from run to run).
compare() {
	perf record -F 997 -g -o p.data node "$@" "$JS" > perf.out 2> perf.err ||
		skip "perf record does not work here: $(tail -n 1 perf.err)"
	perf script -i p.data -F pid 2> /dev/null | head -n 1 | tr -d ' ' >> pids
	perf script -i p.data 2> /dev/null | zt-fold --kernel --weight=count | TOTAL=perf.n leaf_shares > perf.shares
	run --separate-stderr zt-collect -o n.raw node "$@" "$JS"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	sed -n 's/^pid //p' n.raw >> pids
	zt-symbolize n.raw | zt-fold --kernel | TOTAL=zt.n leaf_shares > zt.shares
	join -a 1 -a 2 -e 0 -o 0,1.2,2.2 perf.shares zt.shares |
		NP=$(cat perf.n) NZ=$(cat zt.n) awk '
		     $2 + 0 >= 3 || $3 + 0 >= 3 {
			p = $2 / 100; q = $3 / 100
			se = 100 * sqrt(p * (1 - p) / ENVIRON["NP"] + q * (1 - q) / ENVIRON["NZ"])
			tol = 4 * se > 3 ? 4 * se : 3
			d = $2 - $3; print $0, "tolerance", tol
			if (d > tol || d < -tol) bad++ }
		     END { exit bad > 0 }'
}

@test "node --perf-basic-prof: JIT and builtin names within 3 points of perf's, or sampling error" {
	compare --perf-basic-prof
	# The JIT functions are named, not anonymous.
	grep -q '^JS:\*numWork_' zt.shares
}

@test "node without a perf map: builtin names within 3 points of perf's, or sampling error" {
	compare
	grep -q '^Builtins_FindOrderedHashMapEntry ' zt.shares
}
