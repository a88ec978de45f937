#!/bin/sh
# footprint.sh — what zt's own memory does to the program's: the minor page
# faults (the program's getrusage, printed by samples/bigcopy) and the CPU
# time (wait4's rusage, tests/cputime) of samples/bigcopy, a memory-heavy
# program (64 MiB copies, frames of 150-900 KiB allocated and freed), bare
# and under zt-collect (CFI tables, the default), --unwind=fp (no tables)
# and --paused (a control thread beside the program). Run in turns (bare,
# zt, fp, paused, bare, ...), ROUNDS times after one warm-up of each; each
# row gives the median, min and max of its faults and CPU seconds, and the
# median of the pairs' ratios against the bare run of the same turn, and
# the faults zt counted as its own (the dump's zt-minflt) with the count
# less them against bare.
# Faults do not depend on the load; CPU time does (a tenth or two).
#
#   sh tests/bench/footprint.sh      # ROUNDS=5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
ROUNDS=${ROUNDS:-5}
cputime=$top/tests/cputime
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=$top/samples/bigcopy
zt=$top/collect/zt-collect

# one NAME COMMAND...: a run; appends "FAULTS CPU OWN" to $tmp/NAME, OWN
# the faults zt counted as its own (the dump $tmp/NAME.raw's zt-minflt).
one() {
	name=$1
	shift
	rm -f "$tmp/$name.raw"
	"$cputime" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	f=$(sed -n 's/^bigcopy: minflt \([0-9]*\) .*/\1/p' "$tmp/err")
	own=
	[ -f "$tmp/$name.raw" ] && own=$(sed -n 's/^zt-minflt \([0-9]*\)$/\1/p' "$tmp/$name.raw")
	tail -n 1 "$tmp/err" | awk -v f="$f" -v o="${own:-0}" '{ printf "%d %.4f %d\n", f, $1 + $2, o }' >> "$tmp/$name"
}

turn() {
	one bare "$prog"
	one zt "$zt" -o "$tmp/zt.raw" "$prog"
	one fp "$zt" --unwind=fp -o "$tmp/fp.raw" "$prog"
	one paused "$zt" --paused -o "$tmp/paused.raw" "$prog"
}

turn
rm -f "$tmp/bare" "$tmp/zt" "$tmp/fp" "$tmp/paused"
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	turn
	i=$((i + 1))
done

echo "## zt's footprint: samples/bigcopy's page faults and CPU time"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS turns"
echo
echo "| run | minor faults (median, min-max) | vs bare | zt's own (zt-minflt) | vs bare, less zt's own | CPU s (median, min-max) | vs bare (median of ratios) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for name in bare zt fp paused; do
	paste "$tmp/$name" "$tmp/bare" | awk -v name="$name" '
		{ f[NR] = $1; c[NR] = $2; o[NR] = $3; fr[NR] = $1 / $4; lr[NR] = ($1 - $3) / $4; cr[NR] = $2 / $5 }
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			n = NR
			label = name == "bare" ? "bare" : name == "zt" ? "zt-collect" : name == "fp" ? "zt-collect --unwind=fp" : "zt-collect --paused"
			fm = med(f, n); fmin = f[1]; fmax = f[n]
			cm = med(c, n); cmin = c[1]; cmax = c[n]
			printf "| %s | %d (%d-%d) | %+.2f%% | %s | %s | %.3f (%.3f-%.3f) | %.3f |\n", label, fm, fmin, fmax,
				100 * (med(fr, n) - 1), name == "bare" ? "-" : sprintf("%d", med(o, n)),
				name == "bare" ? "-" : sprintf("%+.2f%%", 100 * (med(lr, n) - 1)), cm, cmin, cmax, med(cr, n)
		}'
done
echo
