#!/bin/sh
# stream.sh — what zt-symbolize's per-sample stream costs, and what reading
# it costs zt-fold and zt-stat, each as a ratio against a reference run in
# the same call (tests/bench/ratio.inc: CPU time, alternating pairs, median):
#   - zt-symbolize DUMP against cat of its own output (goal: at most 2x), and
#     against zt-symbolize --merge DUMP plus that cat (at most 1.5x): the
#     stream costs about its bytes;
#   - zt-fold on the stream against wc -l on it (at most 3x);
#   - zt-stat against zt-fold on the stream (at most 1.3x).
# The dumps: Debian's python3 running samples/loop.py and xz -9 compressing
# generated text, each under zt-collect at 4000 Hz (their stacks unwound
# from .eh_frame, 10 to 20 frames deep). Prints a table for
# tests/bench/README.md; exits 1 when a figure misses its goal by more than
# MARGIN (1.5).
#
#   sh tests/bench/stream.sh          # ROUNDS=7 MARGIN=1.5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
. tests/bench/ratio.inc
w=$btmp
PATH="$top/tools:$top/collect:$PATH"

python3 samples/text.py "$w/one.txt"
for i in 1 2 3 4 5 6 7 8; do cat "$w/one.txt"; done > "$w/text"
zt-collect -F 4000 -o "$w/python3.raw" /usr/bin/python3 samples/loop.py 200000 > /dev/null 2>&1
zt-collect -F 4000 -o "$w/xz.raw" /usr/bin/xz -9 -T1 -c "$w/text" > /dev/null 2>&1

bench_header "zt-symbolize's stream, zt-fold and zt-stat reading it"
for p in python3 xz; do
	zt-symbolize "$w/$p.raw" > "$w/$p.sym" 2> /dev/null
	n=$(grep -c ' zt-samples:$' "$w/$p.sym")
	mb=$(awk -v b="$(wc -c < "$w/$p.sym")" 'BEGIN { printf "%.0f", b / 1e6 }')
	bench_ratio "$p: the stream ($n records, $mb MB) vs cat of it" 2 \
		"cat $w/$p.sym" "$top/tools/zt-symbolize $w/$p.raw"
	bench_ratio "$p: the stream vs --merge plus that cat" 1.5 \
		"sh -c '$top/tools/zt-symbolize --merge $w/$p.raw; cat $w/$p.sym'" \
		"$top/tools/zt-symbolize $w/$p.raw"
	bench_ratio "$p: zt-fold on the stream vs wc -l" 3 \
		"wc -l $w/$p.sym" "$top/tools/zt-fold $w/$p.sym"
	bench_ratio "$p: zt-stat vs zt-fold on the stream" 1.3 \
		"$top/tools/zt-fold $w/$p.sym" "$top/tools/zt-stat $w/$p.sym"
done 2> "$w/stderr"
bench_end
