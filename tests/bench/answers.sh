#!/bin/sh
# answers.sh — from a raw dump straight to an answer, against perf's own way
# to the same answer on a recording of the same program, each as a ratio of
# CPU time measured in the same call (tests/bench/ratio.inc: alternating
# pairs, median of the ratios):
#   - `zt-flame zt.raw` against `perf script | stackcollapse-perf.pl |
#     flamegraph.pl` on a `perf record --call-graph dwarf` recording (goal:
#     at most 0.02);
#   - `zt-stat zt.raw` against `perf report --stdio` on a `perf record -g`
#     recording (goal: at most 0.5; perf's stacks there are 1 or 2 frames
#     deep, zt's 10 to 20).
# The programs: Debian's python3 running samples/loop.py 100000 and xz -9
# compressing 16 MB of generated text (about 10 CPU-seconds each), each
# recorded at 997 and 4000 Hz by zt-collect and by perf (cpu-clock,
# --all-user). The ratios depend on the length of the run: perf's cost grows
# with every sample it unwinds, zt's mostly with the distinct addresses.
#
# FlameGraph's scripts are not packaged in Debian: FLAMEGRAPH names a
# checkout of https://github.com/brendangregg/FlameGraph (commit 41fee1f,
# as tests/data), or stackcollapse-perf.pl and flamegraph.pl are on PATH.
# Without them, or without perf, the figures cannot be measured and the
# script fails.
#
#   FLAMEGRAPH=~/FlameGraph sh tests/bench/answers.sh   # ROUNDS=3 MARGIN=1.5
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
ROUNDS=${ROUNDS:-3}
. tests/bench/ratio.inc
w=$btmp
PATH="$top/tools:$top/collect:$PATH"

fg_dir=${FLAMEGRAPH:-$(dirname "$(command -v flamegraph.pl || echo .)")}
sc=$fg_dir/stackcollapse-perf.pl fg=$fg_dir/flamegraph.pl
if [ ! -r "$sc" ] || [ ! -r "$fg" ]; then
	echo "answers.sh: no stackcollapse-perf.pl and flamegraph.pl in '$fg_dir':" \
	     "set FLAMEGRAPH to a checkout of FlameGraph; nothing measured" >&2
	exit 1
fi
ln -s "$sc" "$w/stackcollapse-perf.pl"
ln -s "$fg" "$w/flamegraph.pl"
sc=$w/stackcollapse-perf.pl fg=$w/flamegraph.pl
if ! perf record -q -o "$w/probe.data" true > /dev/null 2>&1; then
	echo "answers.sh: perf cannot record here; nothing measured" >&2
	exit 1
fi

py=/usr/bin/python3
"$py" samples/text.py "$w/one.txt"
for i in 1 2 3 4 5 6 7 8; do cat "$w/one.txt"; done > "$w/text"

# record NAME HZ COMMAND...: NAME-HZ.raw, NAME-HZ.dwarf.data, NAME-HZ.g.data
record() {
	n=$1-$2 hz=$2
	shift 2
	zt-collect -F "$hz" -o "$w/$n.raw" "$@" > /dev/null 2> "$w/$n.err"
	perf record -q -F "$hz" -e cpu-clock --all-user --call-graph dwarf \
		-o "$w/$n.dwarf.data" "$@" > /dev/null 2>&1
	perf record -q -F "$hz" -e cpu-clock --all-user -g -o "$w/$n.g.data" "$@" \
		> /dev/null 2>&1
}

for hz in 997 4000; do
	record python3 "$hz" "$py" samples/loop.py 100000
	record xz "$hz" /usr/bin/xz -9 -T1 -c "$w/text"
done

bench_header "From a raw dump to an answer, against perf's pipeline on the same program"
for p in python3 xz; do
	for hz in 997 4000; do
		n=$p-$hz
		zs=$(sed -n 's/^zt-collect: \([0-9]*\) samples.*/\1/p' "$w/$n.err")
		ds=$(perf report -i "$w/$n.dwarf.data" --stats 2> /dev/null |
		     awk '/SAMPLE events:/ { print $3; exit }') || true
		bench_ratio "$p $hz Hz: zt-flame on the dump (${zs:-?} samples) vs perf's pipeline to a flame graph (--call-graph dwarf, ${ds:-?} samples)" 0.02 \
			"sh -c 'perf script -i $w/$n.dwarf.data 2> /dev/null | perl $sc | perl $fg'" \
			"$top/tools/zt-flame $w/$n.raw"
		bench_ratio "$p $hz Hz: zt-stat on the dump vs perf report --stdio (-g)" 0.5 \
			"perf report --stdio -i $w/$n.g.data" \
			"$top/tools/zt-stat $w/$n.raw"
	done
done
bench_end
