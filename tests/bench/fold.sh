#!/bin/sh
# fold.sh — zt-fold's throughput on perf script text (DESIGN.md: at least
# 180 MiB/s on one core, memory bounded by distinct stacks).
#
# Input: tests/data/perf-script/example-perf-stacks.txt.gz, unpacked and
# concatenated until it is at least 200 MB, in a plain file so that the
# figure is about folding, not inflating. The reference is `wc -l` on the
# same file: a pass that only finds line ends. Prints MiB/s, the ratio to
# wc -l, and zt-fold's peak RSS. Best of three runs of each.
cd "$(dirname "$0")/../.." || exit 1
data=tests/data/perf-script/example-perf-stacks.txt.gz
[ -r "$data" ] || { echo "fold.sh: cannot read '$data'" >&2; exit 1; }
[ -x tools/zt-fold ] || { echo "fold.sh: build tools/zt-fold first (make)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

gzip -dc "$data" > "$tmp/one.txt" || exit 1
one=$(wc -c < "$tmp/one.txt")
copies=$(( (200 * 1000 * 1000 + one - 1) / one ))
i=0
while [ $i -lt $copies ]; do cat "$tmp/one.txt"; i=$((i + 1)); done > "$tmp/big.txt"
bytes=$(wc -c < "$tmp/big.txt")
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "input: $copies copies of example-perf-stacks.txt, $bytes bytes ($mib MiB)"

# Seconds of the fastest of three runs of "$@" on the big file.
best() {
	b=
	for r in 1 2 3; do
		s=$(date +%s.%N)
		"$@" "$tmp/big.txt" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		e=$(date +%s.%N)
		b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { t = e - s; if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$b"
}

tw=$(best wc -l)
tf=$(best tools/zt-fold)
lines=$(wc -l < "$tmp/out")
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v tools/zt-fold "$tmp/big.txt" > /dev/null 2> "$tmp/time"
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
	rss="$rss KiB"
else
	rss="unknown (/usr/bin/time is not installed)"
fi
awk -v m="$mib" -v tw="$tw" -v tf="$tf" 'BEGIN {
	printf "wc -l:   %.3f s, %.0f MiB/s\n", tw, m / tw
	printf "zt-fold: %.3f s, %.0f MiB/s (%.2fx the time of wc -l)\n", tf, m / tf, tf / tw
}'
echo "zt-fold: $lines distinct stacks, peak RSS $rss"
