#!/bin/sh
# unwind-cost.sh — what zt's CFI unwinder costs the profiled program as a
# whole, against the frame-pointer walk: samples/spin (400 steps, about 2
# CPU-seconds) under zt-collect --unwind=auto against --unwind=fp, and each
# against the bare program, as ratios of CPU time measured in the same call
# (tests/bench/ratio.inc: alternating pairs, median of the ratios). No goal
# fails here: on a shared VM the run-to-run variation of a whole program
# exceeds the difference (about 0.09% at 997 Hz, which
# tests/bench/unwind-micro.sh measures and checks). auto also compiles
# every object's .eh_frame at start (cfi-build-ns, printed from a dump).
#
#   sh tests/bench/unwind-cost.sh      # ROUNDS=5 MARGIN=1.5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
ROUNDS=${ROUNDS:-5}
. tests/bench/ratio.inc
tmp=$btmp
spin="$top/samples/spin 400"
auto="$top/collect/zt-collect --unwind=auto -F 997 -o $tmp/auto.raw $spin"
fp="$top/collect/zt-collect --unwind=fp -F 997 -o $tmp/fp.raw $spin"

bench_header "What CFI unwinding costs samples/spin at 997 Hz"
bench_ratio "zt-collect --unwind=auto vs --unwind=fp" - "$fp" "$auto"
bench_ratio "zt-collect --unwind=auto vs the bare program" - "$spin" "$auto"
bench_ratio "zt-collect --unwind=fp vs the bare program" - "$spin" "$fp"
echo
awk '/^summary$/ { s = 1 } s && $1 ~ /^cfi-/ { v[$1] = $2 }
	END { printf "the tables of --unwind=auto at start (last run): %d objects, %d rows, %.0f KiB, %.2f ms\n",
		v["cfi-objects"], v["cfi-rows"], v["cfi-bytes"] / 1024, v["cfi-build-ns"] / 1e6 }' "$tmp/auto.raw"
bench_end
