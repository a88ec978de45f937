#!/bin/sh
# collect-overhead.sh — what sampling costs, measured in one run: the same
# CPU-bound program (samples/spin) bare, under zt-collect at 997 Hz, under
# gperftools' libprofiler.so (CPUPROFILE_FREQUENCY=997) and under
# `perf record -F 997 -g`. Each is run ROUNDS times, interleaved, and the
# median is kept. It prints each one's CPU time (user + system of the whole
# command, profiler included), its ratio to the bare run's, and its samples
# per CPU-second of the program.
#
#   sh tests/bench/collect-overhead.sh [ROUNDS] [SPIN_STEPS]
#
# CPU time comes from wait4's rusage (tests/cputime). On a machine shared
# with other work the ratios move by a few percent between runs: run it on a
# quiet machine, and read the spread it prints.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-5}
steps=${2:-1000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"
cputime=tests/cputime
spin=samples/spin
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
have_perf=0
perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1 && have_perf=1

# run NAME COMMAND...: one timed run; appends "cpu samples" to $tmp/NAME.
run() {
	name=$1
	shift
	"$cputime" "$@" > /dev/null 2> "$tmp/err"
	read -r user sys _ <<EOT
$(tail -n 1 "$tmp/err")
EOT
	case $name in
	bare) n=0 ;;
	zt) n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' "$tmp/zt.raw") ;;
	gperftools) n=$(google-pprof --text "$spin" "$tmp/g.prof" 2>/dev/null |
			sed -n 's/^Total: \([0-9]*\) samples$/\1/p') ;;
	perf) n=$(perf script -i "$tmp/p.data" -F tid 2>/dev/null | wc -l) ;;
	esac
	echo "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }') ${n:-0}" >> "$tmp/$name"
}

echo "spin $steps steps, $rounds rounds each, interleaved; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	run bare "$spin" "$steps"
	run zt zt-collect -F 997 -o "$tmp/zt.raw" "$spin" "$steps"
	[ -n "$profiler" ] && env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
		CPUPROFILE_FREQUENCY=997 "$cputime" true > /dev/null 2>&1 &&
		run gperftools env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
			CPUPROFILE_FREQUENCY=997 "$spin" "$steps"
	[ "$have_perf" = 1 ] && run perf perf record -q -F 997 -g -o "$tmp/p.data" "$spin" "$steps"
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
bare=$(cut -d' ' -f1 "$tmp/bare" | median)
printf '\n| collector | CPU s (median) | min-max | vs bare | samples per CPU-s |\n'
printf '| --- | --- | --- | --- | --- |\n'
for name in bare zt gperftools perf; do
	[ -s "$tmp/$name" ] || { printf '| %s | not available | | | |\n' "$name"; continue; }
	cpu=$(cut -d' ' -f1 "$tmp/$name" | median)
	range=$(cut -d' ' -f1 "$tmp/$name" | sort -n | sed -n '1p;$p' | paste -sd- -)
	rate=$(awk '$1 > 0 { r = $2 / $1; print r }' "$tmp/$name" | median)
	awk -v n="$name" -v c="$cpu" -v b="$bare" -v r="$rate" -v m="$range" 'BEGIN {
		printf "| %s | %.3f | %s | %+.1f%% | %s |\n", n, c, m, (c / b - 1) * 100,
			n == "bare" ? "-" : sprintf("%.0f", r) }'
done
