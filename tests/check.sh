#!/bin/sh
# check.sh — run the C unit tests and every bats file, then print one closing
# line with the totals: "check: N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

tests/unit/run > "$out/unit" 2>&1
cat "$out/unit"
up=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/unit")
uf=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/unit")
[ -n "$up" ] || { up=0; uf=1; echo "check: the unit runner did not finish" >&2; }

bats --tap tests/*.bats > "$out/bats" 2>&1
brc=$?
cat "$out/bats"
bp=$(grep -c '^ok ' "$out/bats")
bf=$(grep -c '^not ok ' "$out/bats")
[ "$brc" -ne 0 ] && [ "$bf" -eq 0 ] && bf=1

echo "check: $((up + bp)) passed, $((uf + bf)) failed"
[ "$uf" -eq 0 ] && [ "$bf" -eq 0 ]
