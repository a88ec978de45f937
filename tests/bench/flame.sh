#!/bin/sh
# flame.sh — zt-flame against FlameGraph's flamegraph.pl on the same folded
# stacks, as ratios of CPU time measured in the same call
# (tests/bench/ratio.inc: alternating pairs, median of the ratios); goal:
# at most 0.1 (issue 12: ten times flamegraph.pl's speed or better). Both
# draw with the same options (flamegraph.pl --hash, zt-flame's default) from
# the same plain file. Two inputs: tests/data/flamegraph/example.folded.gz
# (710 stacks) and the same stacks under 50 different roots (35,500).
#
# flamegraph.pl is not packaged in Debian: FLAMEGRAPH names a checkout of
# https://github.com/brendangregg/FlameGraph (commit 41fee1f, as
# tests/data), or flamegraph.pl is on PATH. Without it nothing is measured
# and the script fails.
#
#   FLAMEGRAPH=~/FlameGraph sh tests/bench/flame.sh    # ROUNDS=7 MARGIN=1.5
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
. tests/bench/ratio.inc
tmp=$btmp
data=tests/data/flamegraph/example.folded.gz
[ -x tools/zt-flame ] || { echo "flame.sh: build tools/zt-flame first (make)" >&2; exit 1; }
fg_dir=${FLAMEGRAPH:-$(dirname "$(command -v flamegraph.pl || echo .)")}
if [ ! -r "$fg_dir/flamegraph.pl" ]; then
	echo "flame.sh: no flamegraph.pl in '$fg_dir': set FLAMEGRAPH to a checkout of" \
	     "FlameGraph; nothing measured" >&2
	exit 1
fi
ln -s "$fg_dir/flamegraph.pl" "$tmp/flamegraph.pl"

gzip -dc "$data" > "$tmp/example.folded"
i=1
while [ $i -le 50 ]; do sed "s/^/root$i;/" "$tmp/example.folded"; i=$((i + 1)); done > "$tmp/x50.folded"

bench_header "zt-flame against flamegraph.pl"
for input in example x50; do
	f=$tmp/$input.folded
	bench_ratio "$input.folded ($(wc -l < "$f" | tr -d ' ') stacks, $(wc -c < "$f" | tr -d ' ') bytes)" 0.1 \
		"perl $tmp/flamegraph.pl --hash $f" "$top/tools/zt-flame $f"
done
bench_end
