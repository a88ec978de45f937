#!/bin/sh
# collect-overhead.sh — what sampling costs, measured in one run: the same
# CPU-bound program (samples/spin) bare, under zt-collect at 997 Hz, under
# gperftools' libprofiler.so (CPUPROFILE_FREQUENCY=997) and under
# `perf record -F 997 -g`. Each is run ROUNDS times, interleaved, and the
# median is kept. It prints each one's CPU time (user + system of the whole
# command, profiler included), its ratio to the bare run's, and its samples
# per CPU-second of the program. A fifth row, "floor", is the cost no
# sampler at this rate avoids: the same perf task-clock counter and signal
# with an empty handler (a library built here and preloaded), so that zt's
# own share can be told from the kernel's. The ratios are given for the fastest run of
# each (best of ROUNDS, the usual estimate on a noisy machine) and for the
# medians.
#
#   sh tests/bench/collect-overhead.sh [ROUNDS] [SPIN_STEPS]
#
# CPU time comes from wait4's rusage (tests/cputime). On a machine shared
# with other work the ratios move by a few percent between runs: run it on a
# quiet machine, and read the spread it prints.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-9}
steps=${2:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"
cputime=tests/cputime
spin=samples/spin
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
have_perf=0
perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1 && have_perf=1

. tests/bench/cpu.sh
build_floor

samples_of() {
	case $1 in
	zt) sed -n 's/^samples \([0-9]*\)$/\1/p' "$tmp/zt.raw" ;;
	gperftools) google-pprof --text "$spin" "$tmp/g.prof" 2>/dev/null |
			sed -n 's/^Total: \([0-9]*\) samples$/\1/p' ;;
	perf) perf script -i "$tmp/p.data" -F tid 2>/dev/null | wc -l ;;
	esac
}

echo "spin $steps steps, $rounds rounds each, interleaved; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	run bare "$spin" "$steps"
	run floor env LD_PRELOAD="$tmp/floor.so" "$spin" "$steps"
	run zt zt-collect -F 997 -o "$tmp/zt.raw" "$spin" "$steps"
	[ -n "$profiler" ] && env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
		CPUPROFILE_FREQUENCY=997 "$cputime" true > /dev/null 2>&1 &&
		run gperftools env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
			CPUPROFILE_FREQUENCY=997 "$spin" "$steps"
	[ "$have_perf" = 1 ] && run perf perf record -q -F 997 -g -o "$tmp/p.data" "$spin" "$steps"
done

table bare floor zt gperftools perf
