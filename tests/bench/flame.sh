#!/bin/sh
# flame.sh [RUNS] — zt-flame's time against flamegraph.pl's on the same folded
# input (issue 12's target: 10x flamegraph.pl's speed or better on
# tests/data/flamegraph/example.folded.gz).
#
# flamegraph.pl is not packaged in Debian: set FLAMEGRAPH_PL to its path, or
# put it on PATH; without it only zt-flame's times are printed. Both are run
# with the same options (flamegraph.pl --hash, zt-flame's default) on the
# same plain file, RUNS times each (default 10), interleaved; the best and
# the median wall-clock time of each are printed. A zt-flame time on the
# small input is the mean of 20 runs in a row, as one run is about as short
# as starting a process. Two inputs: example.folded
# (710 stacks) and the same stacks under 50 different roots (35,500).
cd "$(dirname "$0")/../.." || exit 1
runs=${1:-10}
data=tests/data/flamegraph/example.folded.gz
[ -r "$data" ] || { echo "flame.sh: cannot read '$data'" >&2; exit 1; }
[ -x tools/zt-flame ] || { echo "flame.sh: build tools/zt-flame first (make)" >&2; exit 1; }
fg=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl)}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

gzip -dc "$data" > "$tmp/example.folded" || exit 1
i=1
while [ $i -le 50 ]; do sed "s/^/root$i;/" "$tmp/example.folded"; i=$((i + 1)); done > "$tmp/x50.folded"

# secs N CMD...: wall-clock seconds per run of N runs in a row (output to
# $tmp/out.svg), so that the two calls of date weigh little
secs() {
	n=$1
	shift
	s=$(date +%s.%N)
	k=0
	while [ $k -lt "$n" ]; do
		"$@" > "$tmp/out.svg" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		k=$((k + 1))
	done
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" -v n="$n" 'BEGIN { printf "%.5f\n", (e - s) / n }'
}

# stats FILE: "best median" of the seconds in FILE, in ms
stats() {
	sort -n "$1" | awk '{ t[NR] = $1 } END {
		m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		printf "%.1f %.1f\n", t[1] * 1000, m * 1000 }'
}

echo "zt-flame against ${fg:-(no flamegraph.pl found: set FLAMEGRAPH_PL)}, $runs runs each, interleaved; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| input | stacks | zt-flame ms, best | median | flamegraph.pl ms, best | median | speed-up (medians) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for input in example x50; do
	f=$tmp/$input.folded
	: > "$tmp/zt"; : > "$tmp/pl"
	batch=20
	[ "$input" = x50 ] && batch=1
	r=0
	while [ $r -lt "$runs" ]; do
		secs "$batch" tools/zt-flame "$f" >> "$tmp/zt"
		[ -n "$fg" ] && secs 1 perl "$fg" --hash "$f" >> "$tmp/pl"
		r=$((r + 1))
	done
	set -- $(stats "$tmp/zt")
	zb=$1 zm=$2
	if [ -n "$fg" ]; then
		set -- $(stats "$tmp/pl")
		pb=$1 pm=$2
		ratio=$(awk -v a="$pm" -v b="$zm" 'BEGIN { printf "%.1fx", a / b }')
	else
		pb=- pm=- ratio=-
	fi
	echo "| $input.folded | $(wc -l < "$f") | $zb | $zm | $pb | $pm | $ratio |"
done
