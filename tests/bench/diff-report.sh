#!/bin/sh
# diff-report.sh — how long zt-diff --report takes on large profiles, and
# that its time does not grow with the counts (compare.c loops over
# functions and runs, never over a count).
#
# Input: two folded files of 300,000 distinct stacks each (100,000
# functions under 1,000 callers), drawn with a fixed seed; in the "big"
# pair one stack's count is near 2^63 and the others are scaled up, so
# the counts span 1 to 2^63 and the total still fits in 64 bits. Prints
# the best of three runs of each pair, and zt-diff's peak RSS against the
# size of its two inputs (compare.c keeps a few numbers per function).
cd "$(dirname "$0")/../.." || exit 1
[ -x tools/zt-diff ] || { echo "diff-report.sh: build tools/zt-diff first (make)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

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

best() {
	b=
	for r in 1 2 3; do
		s=$(date +%s.%N)
		tools/zt-diff --report "$@" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		e=$(date +%s.%N)
		b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { t = e - s; if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$b"
}

ts=$(best "$tmp/a1" "$tmp/a2") && [ -n "$ts" ] || exit 1
tb=$(best "$tmp/b1" "$tmp/b2") && [ -n "$tb" ] || exit 1
head -2 "$tmp/out"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v tools/zt-diff --report "$tmp/b1" "$tmp/b2" > /dev/null 2> "$tmp/time"
	kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
	in=$(cat "$tmp/b1" "$tmp/b2" | wc -c)
	rss="$kib KiB, $(awk -v k="$kib" -v b="$in" 'BEGIN { printf "%.2f", k * 1024 / b }')x the two inputs' $in bytes (goal: at most 2x)"
else
	rss="unknown (/usr/bin/time is not installed)"
fi
echo "zt-diff --report, counts 1 to 1000:  $ts s"
echo "zt-diff --report, counts up to 2^63: $tb s, peak RSS $rss"
