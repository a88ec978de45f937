#!/bin/sh
# spread.sh — is zt's run-to-run spread its own, or the program's? Five runs
# of zt-collect and five of perf record --call-graph dwarf, alternating (zt,
# perf, zt, perf, ...: a drift of the shared machine moves both alike), at
# the same rate (997 Hz, user time) on the same workload, xz -6 -T2 on 4 MB
# of generated text in 1 MiB blocks (two worker threads). For the liblzma
# functions with the largest self share it prints each profiler's mean,
# standard deviation and range over its runs, the spread that sampling alone
# would give at each run's sample count (binomial), and their ratio over
# those functions (tests/unwindcmp.py spread); the same for each thread's
# share of the samples. Functions are matched by object and FDE start, as
# tests/bench/unwind.sh matches them (liblzma has no symbols here).
#
#   sh tests/bench/spread.sh            # RUNS=5 by default
#
# No figure here has a goal: the script fails only when a profiler fails.
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$top/tools:$top/collect:$PATH"
py=/usr/bin/python3
runs=${RUNS:-5}
if ! perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1; then
	echo "spread.sh: perf is not installed or cannot record (make deps installs linux-perf)" >&2
	exit 1
fi
"$py" samples/text.py "$tmp/text"
cat "$tmp/text" "$tmp/text" > "$tmp/text4"
set -- /usr/bin/xz -6 -T2 --block-size=1MiB -c "$tmp/text4"

specs=
i=1
while [ "$i" -le "$runs" ]; do
	zt-collect -o "$tmp/zt$i.raw" "$@" > /dev/null 2> "$tmp/zt$i.err" ||
		{ cat "$tmp/zt$i.err" >&2; exit 1; }
	zt-symbolize "$tmp/zt$i.raw" > "$tmp/zt$i.sym" 2> /dev/null
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o "$tmp/perf$i.data" "$@" > /dev/null
	perf script -i "$tmp/perf$i.data" --no-inline -F comm,pid,tid,time,event,ip,sym,dso \
		> "$tmp/perf$i.txt" 2> /dev/null
	specs="$specs zt=zt:$tmp/zt$i.sym:$tmp/zt$i.raw perf=perf:$tmp/perf$i.txt"
	i=$((i + 1))
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "xz -6 -T2 --block-size=1MiB -c, 4 MB of text; 997 Hz, user time; $runs runs of each, alternating"
# shellcheck disable=SC2086 # the specs are words without spaces
$py tests/unwindcmp.py spread --top 5 --object liblzma $specs
printf '\nzt-collect'"'"'s line, each run:\n'
for i in $(seq 1 "$runs"); do tail -n 1 "$tmp/zt$i.err"; done
