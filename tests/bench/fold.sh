#!/bin/sh
# fold.sh — zt-fold and zt-stat on perf script text, as ratios against a
# reference run in the same call (tests/bench/ratio.inc: CPU time,
# alternating pairs, median):
#   - zt-fold against wc -l on the same file (goal: at most 3x, about
#     1 GiB/s of CPU time here): a pass that only finds line ends;
#   - zt-stat against zt-fold (at most 1.3x).
# Input: tests/data/perf-script/example-perf-stacks.txt.gz (perf record -a
# -g, FlameGraph's example), unpacked and concatenated to at least 200 MB,
# in a plain file so that the figure is about folding, not inflating. Then
# zt-fold's peak RSS: memory follows the distinct stacks, not the input.
#
#   sh tests/bench/fold.sh            # ROUNDS=7 MARGIN=1.5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
. tests/bench/ratio.inc
w=$btmp
data=tests/data/perf-script/example-perf-stacks.txt.gz
[ -r "$data" ] || { echo "fold.sh: cannot read '$data'" >&2; exit 1; }

gzip -dc "$data" > "$w/one.txt"
one=$(wc -c < "$w/one.txt")
copies=$(( (200 * 1000 * 1000 + one - 1) / one ))
i=0
while [ $i -lt $copies ]; do cat "$w/one.txt"; i=$((i + 1)); done > "$w/big.txt"
mib=$(awk -v b="$(wc -c < "$w/big.txt")" 'BEGIN { printf "%.0f", b / 1048576 }')

bench_header "zt-fold and zt-stat on perf script text"
bench_ratio "zt-fold, $copies copies of example-perf-stacks ($mib MiB), vs wc -l" 3 \
	"wc -l $w/big.txt" "$top/tools/zt-fold $w/big.txt"
bench_ratio "zt-stat vs zt-fold on the same" 1.3 \
	"$top/tools/zt-fold $w/big.txt" "$top/tools/zt-stat $w/big.txt"
"$cputime" tools/zt-fold "$w/big.txt" > "$w/out" 2> "$w/err"
echo
echo "zt-fold: $(wc -l < "$w/out") distinct stacks, peak RSS $(tail -n 1 "$w/err" | awk '{ print $3 }') KiB;" \
     "$(awk -v m="$mib" -v c="$(tail -n 1 "$w/err" | awk '{ print $1 + $2 }')" 'BEGIN { printf "%.0f", m / c }') MiB/s of CPU time"
bench_end
