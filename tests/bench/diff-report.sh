#!/bin/sh
# diff-report.sh — that zt-diff --report's time does not grow with the
# counts (compare.c loops over functions and runs, never over a count), as
# a ratio of CPU time measured in the same call (tests/bench/ratio.inc:
# alternating pairs, median of the ratios): counts up to 2^63 against
# counts from 1 to 1000 on the same stacks, goal at most +20%; and its
# peak memory against the size of its two inputs, goal at most 2x.
#
# Input: two folded files of 300,000 distinct stacks each (100,000
# functions under 1,000 callers), drawn with a fixed seed; in the "big"
# pair one stack's count is near 2^63 and the others are scaled up, so
# the counts span 1 to 2^63 and the total still fits in 64 bits.
#
#   sh tests/bench/diff-report.sh      # ROUNDS=3 MARGIN=1.5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
[ -x tools/zt-diff ] || { echo "diff-report.sh: build tools/zt-diff first (make)" >&2; exit 1; }
ROUNDS=${ROUNDS:-3}
. tests/bench/ratio.inc
tmp=$btmp

# gen SEED SCALE BIG: 300,000 lines "root;callerC;fnF;leafL COUNT", sorted.
gen() {
	awk -v seed="$1" -v scale="$2" -v big="$3" 'BEGIN {
		x = seed
		for (i = 0; i < 300000; i++) {
			x = (x * 16807) % 2147483647
			c = 1 + x % 1000
			if (scale > 1)
				c = sprintf("%.0f", c * scale)
			printf "root;caller%d;fn%d;leaf%d %s\n", i % 1000, i % 100000, i, c
		}
		if (big != "")
			printf "root;caller0;huge %s\n", big
	}' | LC_ALL=C sort
}
# The scaled counts share a factor of 2^33, which an undeclared file's
# reader takes for perf's periods: say they are samples.
declared() { echo '# zt weight: samples'; gen "$@"; }
gen 1 1 "" > "$tmp/a1"
gen 2 1 "" > "$tmp/a2"
# 2^63 - 2^53 for one stack, and the rest at most 1000 * 2^33 each:
# 2^63 - 2^53 + 300,000 * 1000 * 2^33 < 2^64.
declared 1 8589934592 9214364837600034816 > "$tmp/b1"
declared 2 8589934592 9214364837600034816 > "$tmp/b2"
echo "input: $(wc -l < "$tmp/a1") and $(wc -l < "$tmp/b1") lines a file; largest count $(awk '{ print $NF }' "$tmp/b1" | sort -n | tail -1)"

bench_header "zt-diff --report on 300,000 stacks a file: the counts do not cost time"
bench_ratio "counts up to 2^63 vs counts 1 to 1000" +20% \
	"$top/tools/zt-diff --report $tmp/a1 $tmp/a2" "$top/tools/zt-diff --report $tmp/b1 $tmp/b2"
echo
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v tools/zt-diff --report "$tmp/b1" "$tmp/b2" > /dev/null 2> "$tmp/time"
	kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
	in=$(cat "$tmp/b1" "$tmp/b2" | wc -c)
	awk -v k="$kib" -v b="$in" -v m="$margin" 'BEGIN {
		r = k * 1024 / b
		printf "peak RSS of zt-diff --report b1 b2: %d KiB, %.2fx its two inputs (%d bytes); goal at most 2x%s\n",
			k, r, b, (r > 2 * m) ? " FAILED" : ""
		exit r > 2 * m }' || bench_failed=1
else
	echo "peak RSS: not measured (/usr/bin/time is not installed)"
fi
bench_end
