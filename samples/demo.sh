#!/bin/sh
# demo.sh — what `make demo` runs: profile samples/spin, then show its
# folded stacks and where its time went.
set -e
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"

echo "\$ zt-collect -o spin.raw samples/spin"
zt-collect -o "$tmp/spin.raw" samples/spin
echo
echo "\$ zt-symbolize spin.raw | zt-fold"
zt-symbolize "$tmp/spin.raw" | zt-fold | tee "$tmp/spin.folded"
if [ -x tools/zt-stat ]; then
	echo
	echo "\$ zt-stat spin.folded"
	zt-stat "$tmp/spin.folded"
fi
