#!/bin/sh
# demo.sh — what `make demo` runs: profile samples/spin (hot_a 3 : hot_b 1),
# then show its folded stacks and where its time went, and end by writing its
# flame graph and printing the path.
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"

echo "\$ zt-collect -o spin.raw samples/spin"
zt-collect -o "$tmp/spin.raw" samples/spin 2>&1
echo
echo "\$ zt-symbolize spin.raw > spin.sym"
zt-symbolize "$tmp/spin.raw" > "$tmp/spin.sym"
echo
echo "\$ zt-fold spin.sym"
zt-fold "$tmp/spin.sym"
echo
echo "\$ zt-stat spin.sym"
zt-stat "$tmp/spin.sym"
echo
svg=${TMPDIR:-/tmp}/zt-demo-spin.svg
echo "\$ zt-fold spin.sym | zt-flame --title 'samples/spin' > $svg"
zt-fold "$tmp/spin.sym" | zt-flame --title 'samples/spin' > "$svg"
echo "flame graph: $svg (open it in a web browser)"
