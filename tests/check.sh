#!/bin/sh
# check.sh — run the C unit tests and every bats file, each file's results
# printed as it finishes, then one closing line with the totals:
# "check: N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
# The tests' own awk, sort and grep behave alike in every locale.
LC_ALL=C
export LC_ALL
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

# The unit runner's status and each bats file's reach the totals through
# files, as a pipeline's status is its last command's.
{ tests/unit/run 2>&1; echo $? > "$out/unit.rc"; } | tee "$out/unit"
up=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/unit")
uf=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/unit")
[ -n "$up" ] || { up=0; uf=1; echo "check: the unit runner did not finish" >&2; }
[ "$(cat "$out/unit.rc")" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

bp=0 bf=0
for f in tests/*.bats; do
	echo "# $f"
	{ bats --tap "$f" 2>&1; echo $? > "$out/rc"; } | tee "$out/bats"
	p=$(grep -c '^ok ' "$out/bats")
	n=$(grep -c '^not ok ' "$out/bats")
	# A file that failed outside its tests (setup_file, a syntax error)
	# counts as one failure.
	[ "$(cat "$out/rc")" -ne 0 ] && [ "$n" -eq 0 ] && n=1
	bp=$((bp + p)) bf=$((bf + n))
done

echo "check: $((up + bp)) passed, $((uf + bf)) failed"
[ "$uf" -eq 0 ] && [ "$bf" -eq 0 ]
