#!/bin/sh
# demo.sh — what `make demo` runs: profile samples/spin (hot_a 3 : hot_b 1),
# then show its folded stacks and where its time went, each tool reading
# the raw dump itself, and end by writing its
# flame graph. The raw dump stays beside the picture (both paths printed), so
# the run can be looked at again with the other tools.
set -e
cd "$(dirname "$0")/.."
PATH="$PWD/tools:$PWD/collect:$PATH"
raw=${TMPDIR:-/tmp}/zt-demo-spin.raw
svg=${TMPDIR:-/tmp}/zt-demo-spin.svg

echo "\$ zt-collect -o $raw samples/spin"
zt-collect -o "$raw" samples/spin 2>&1
echo
echo "\$ zt-fold $raw"
zt-fold "$raw"
echo
echo "\$ zt-stat $raw"
zt-stat "$raw"
echo
echo "\$ zt-flame --title 'samples/spin' $raw > $svg"
zt-flame --title 'samples/spin' "$raw" > "$svg"
echo "raw dump:    $raw (every zt tool reads it again)"
echo "flame graph: $svg (open it in a web browser)"
