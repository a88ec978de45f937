#!/bin/sh
# unwind-cost.sh — what zt's CFI unwinder costs the profiled program, against
# the frame-pointer walk: samples/spin bare, with the "floor" (the perf
# task-clock counter at 997 Hz signalling an empty handler), under zt-collect
# --unwind=auto and under --unwind=fp, ROUNDS times each, interleaved. CPU
# time is user + system of the whole command from wait4's rusage
# (tests/cputime), with collect-overhead.sh's floor (tests/bench/floor.c) and
# helpers (tests/bench/cpu.sh). Ratios to bare are
# given for the best run of each and for the medians; there is no absolute
# timing and no assertion, as run-to-run variation on a shared VM exceeds the
# difference being measured: read the spread. auto also compiles every
# object's .eh_frame at start (cfi-build-ns, printed from the last dump).
#
#   sh tests/bench/unwind-cost.sh [ROUNDS] [SPIN_STEPS]
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-9}
steps=${2:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"
cputime=tests/cputime
spin=samples/spin

. tests/bench/cpu.sh
build_floor

samples_of() {
	case $1 in
	zt-*) sed -n 's/^samples \([0-9]*\)$/\1/p' "$tmp/$1.raw" ;;
	esac
}

echo "spin $steps steps, $rounds rounds each, interleaved; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	run bare "$spin" "$steps"
	run floor env LD_PRELOAD="$tmp/floor.so" "$spin" "$steps"
	run zt-auto zt-collect --unwind=auto -F 997 -o "$tmp/zt-auto.raw" "$spin" "$steps"
	run zt-fp zt-collect --unwind=fp -F 997 -o "$tmp/zt-fp.raw" "$spin" "$steps"
done

table bare floor zt-auto zt-fp
auto_min=$(cut -d' ' -f1 "$tmp/zt-auto" | least)
fp_min=$(cut -d' ' -f1 "$tmp/zt-fp" | least)
auto_med=$(cut -d' ' -f1 "$tmp/zt-auto" | median)
fp_med=$(cut -d' ' -f1 "$tmp/zt-fp" | median)
awk -v a="$auto_min" -v b="$fp_min" -v c="$auto_med" -v d="$fp_med" 'BEGIN {
	printf "\nauto / fp: %.3f best, %.3f median\n", a / b, c / d }'
awk '/^summary$/ { s = 1 } s && $1 ~ /^cfi-/ { v[$1] = $2 }
	END { printf "auto tables at start (last run): %d objects, %d rows, %.0f KiB, %.2f ms\n",
		v["cfi-objects"], v["cfi-rows"], v["cfi-bytes"] / 1024, v["cfi-build-ns"] / 1e6 }' "$tmp/zt-auto.raw"
