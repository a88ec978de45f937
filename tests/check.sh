#!/bin/sh
# check.sh — run the C unit tests, then every bats file, ZT_CHECK_JOBS files
# at a time (default: the number of CPUs), each file's results printed whole
# as it finishes with the seconds it took, then one closing line with the
# totals: "check: N passed, N failed".
#
# Files run side by side as on a busy machine: every test judges a rate or a
# count against the CPU time its program got, and each works in its own
# temporary directory.
cd "$(dirname "$0")/.." || exit 1
# The tests' own awk, sort and grep behave alike in every locale.
LC_ALL=C
export LC_ALL
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

jobs=${ZT_CHECK_JOBS:-$(nproc 2> /dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0)
	echo "check: ZT_CHECK_JOBS must be a positive number, not '$jobs'" >&2
	exit 2
	;;
esac

# The unit runner's status and each bats file's reach the totals through
# files, as a pipeline's status is its last command's.
{ tests/unit/run 2>&1; echo $? > "$out/unit.rc"; } | tee "$out/unit"
up=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/unit")
uf=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/unit")
[ -n "$up" ] || { up=0; uf=1; echo "check: the unit runner did not finish" >&2; }
[ "$(cat "$out/unit.rc")" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

# One bats file: its TAP output and status into $out/NAME.tap and
# $out/NAME.rc, then printed whole under a lock, so that files finishing
# together do not interleave.
cat > "$out/one" << 'EOF'
out=$1 f=$2
n=$(basename "$f" .bats)
t0=$(date +%s)
bats --tap "$f" > "$out/$n.tap" 2>&1
echo $? > "$out/$n.rc"
t=$(($(date +%s) - t0))
flock "$out/lock" sh -c 'echo "# $1 ($2 s)"; cat "$3"' sh "$f" "$t" "$out/$n.tap"
EOF
: > "$out/lock"
# The slowest files start first (tests/check.slow), so that the last to
# finish is not one started last.
{
	for f in $(grep -v "^#" tests/check.slow 2> /dev/null); do
		[ -f "tests/$f" ] && echo "tests/$f"
	done
	for f in tests/*.bats; do
		grep -qx "${f#tests/}" tests/check.slow 2> /dev/null || echo "$f"
	done
} | xargs -P "$jobs" -n 1 sh "$out/one" "$out" || true

bp=0 bf=0
for f in tests/*.bats; do
	n=$(basename "$f" .bats)
	if [ ! -f "$out/$n.rc" ]; then
		echo "check: $f did not run" >&2
		bf=$((bf + 1))
		continue
	fi
	p=$(grep -c '^ok ' "$out/$n.tap")
	k=$(grep -c '^not ok ' "$out/$n.tap")
	# A file that failed outside its tests (setup_file, a syntax error)
	# counts as one failure.
	[ "$(cat "$out/$n.rc")" -ne 0 ] && [ "$k" -eq 0 ] && k=1
	[ "$k" -eq 0 ] || echo "check: $f: $k failed" >&2
	bp=$((bp + p)) bf=$((bf + k))
done

echo "check: $((up + bp)) passed, $((uf + bf)) failed"
[ "$uf" -eq 0 ] && [ "$bf" -eq 0 ]
