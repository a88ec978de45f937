#!/bin/sh
# shortthreads.sh — what 3,000 short threads cost in system time under
# zt-collect (997 Hz) against the bare program: samples/shortthreads (3,000
# threads of 0.4 ms of CPU one after another, a main thread of 1.8 s), in
# alternating pairs (bare, zt, bare, zt ..., after one warm-up of each);
# the figures are the medians of the pairs' ratios of system time and of
# CPU time (user + system, from wait4's rusage: tests/cputime).
#
#   sh tests/bench/shortthreads.sh          # ROUNDS=7 pairs, MARGIN=1.5
#
# Each thread gets a perf counter of its own, opened, armed and closed
# (some thirty system calls more than the bare thread's start and end). The
# goal was missed by far before each thread's first period had a floor of
# 0.1 ms (timer.c, first_floor): first periods as short as the kernel's
# 10 us stormed with timer interrupts (seconds of system time; a
# system-time ratio of 2.9 to 24 on a loaded machine).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/ratio.inc"

prog=$top/samples/shortthreads
zt=$top/collect/zt-collect
[ -x "$prog" ] && [ -x "$zt" ] || { echo "shortthreads.sh: build first (make all)" >&2; exit 1; }

# "USER SYS" of one run of the command "$@", its output thrown away.
one() {
	"$cputime" "$@" > /dev/null 2> "$btmp/err" || {
		echo "shortthreads.sh: failed: $*" >&2; tail -3 "$btmp/err" >&2; exit 1; }
	tail -n 1 "$btmp/err" | awk '{ print $1, $2 }'
}

# One table row from "A B" pairs in file $2, A over B: median, min, max, goal.
row() {
	awk -v g="$3" -v m="$margin" -v name="$1" '
		{ r[NR] = $2 > 0 ? $1 / $2 : 0 }
		END {
			n = NR
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
			med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
			bad = g != "-" && med > g * m
			printf "| %s | %.2f | %.2f | %.2f | %s%s |\n", name, med, r[1], r[n],
			       g == "-" ? "-" : "at most " g, bad ? " FAILED" : ""
		}' "$2"
}

echo "## System time of 3,000 short threads (samples/shortthreads)"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds pairs"
echo
echo "| figure | median ratio | min | max | goal |"
echo "| --- | ---: | ---: | ---: | ---: |"
one "$prog" > /dev/null
one "$zt" -o "$btmp/st.raw" "$prog" > /dev/null
: > "$btmp/runs"
i=0
while [ "$i" -lt "$rounds" ]; do
	b=$(one "$prog")
	a=$(one "$zt" -o "$btmp/st.raw" "$prog")
	echo "$a $b" >> "$btmp/runs"	# zt user, zt sys, bare user, bare sys
	i=$((i + 1))
done
awk '{ print $2, $4 }' "$btmp/runs" > "$btmp/sys"
awk '{ print $1 + $2, $3 + $4 }' "$btmp/runs" > "$btmp/cpu"
out=$( { row "zt-collect vs bare, system time" "$btmp/sys" 2.5; row "zt-collect vs bare, CPU time" "$btmp/cpu" 1.3; } )
echo "$out"
echo
awk '{ z[NR] = $2; b[NR] = $4 }
	END {
		n = NR
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
			if (z[j] < z[i]) { t = z[i]; z[i] = z[j]; z[j] = t }
			if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		}
		printf "System time, median of the runs: zt-collect %.2f s, bare %.2f s\n", z[int((n + 1) / 2)], b[int((n + 1) / 2)]
	}' "$btmp/runs"
case $out in *FAILED*) bench_failed=1 ;; esac
bench_end
