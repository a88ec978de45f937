#!/bin/sh
# demo.sh — what `make demo` runs: profile samples/spin (hot_a 3 : hot_b 1),
# then show its folded stacks and where its time went, and end by writing its
# flame graph. The raw dump stays beside the picture (both paths printed), so
# the run can be looked at again with the other tools.
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"
raw=${TMPDIR:-/tmp}/zt-demo-spin.raw
svg=${TMPDIR:-/tmp}/zt-demo-spin.svg

echo "\$ zt-collect -o $raw samples/spin"
zt-collect -o "$raw" samples/spin 2>&1
echo
echo "\$ zt-symbolize $raw > spin.sym"
zt-symbolize "$raw" > "$tmp/spin.sym"
echo
echo "\$ zt-fold spin.sym"
zt-fold "$tmp/spin.sym"
echo
echo "\$ zt-stat spin.sym"
zt-stat "$tmp/spin.sym"
echo
echo "\$ zt-fold spin.sym | zt-flame --title 'samples/spin' > $svg"
zt-fold "$tmp/spin.sym" | zt-flame --title 'samples/spin' > "$svg"
echo "raw dump:    $raw (zt-symbolize reads it again)"
echo "flame graph: $svg (open it in a web browser)"
