#!/bin/sh
# unwind.sh — how deep and how whole zt's stacks are on Debian's python3 and
# xz (built without frame pointers), next to perf's: zt-collect with its
# default unwinder (auto: .eh_frame where an object has it) and with
# --unwind=fp, perf record --call-graph dwarf (twice: the second run shows
# perf's own run-to-run variation) and perf record -g (frame pointers), all at
# 997 Hz, user space only, on the same workloads as
# tests/0195-collect-unwind-perf.bats. For each: samples, median stack depth,
# the share of samples whose stack reaches the program's entry, the largest
# difference in a top-10 function's total share from the first perf dwarf
# run (tests/unwindcmp.py defines all three), and bytes per sample of the
# file the tool writes (zt's raw dump, perf.data). Then the unwind tables zt
# compiled at start (from the dump's summary: objects, rows, memory, CPU
# time), for python3 and xz.
#
#   sh tests/bench/unwind.sh
#
# The collector's CPU cost of --unwind=auto against fp is
# tests/bench/unwind-cost.sh.
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$top/tools:$top/collect:$PATH"
py=/usr/bin/python3
cmp="$py $top/tests/unwindcmp.py"
have_perf=0
perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1 && have_perf=1

"$py" samples/text.py "$tmp/input"

size() { wc -c < "$1" | tr -d ' '; }

# zt NAME UNWIND COMMAND...: a zt profile, as "zt:SYM:RAW" in $tmp/NAME.spec.
zt() {
	n=$1 u=$2
	shift 2
	zt-collect --unwind="$u" -o "$tmp/$n.raw" "$@" > /dev/null 2> "$tmp/$n.err"
	zt-symbolize "$tmp/$n.raw" > "$tmp/$n.sym"
	echo "zt:$tmp/$n.sym:$tmp/$n.raw" > "$tmp/$n.spec"
	size "$tmp/$n.raw" > "$tmp/$n.bytes"
}

# perfrun NAME CALLGRAPH COMMAND...: a perf profile, as "perf:TXT".
perfrun() {
	n=$1 g=$2
	shift 2
	perf record -q -F 997 -e cpu-clock --all-user $g -o "$tmp/$n.data" "$@" > /dev/null
	perf script -i "$tmp/$n.data" --no-inline -F comm,tid,time,event,ip,sym,dso \
		> "$tmp/$n.txt" 2> /dev/null
	echo "perf:$tmp/$n.txt" > "$tmp/$n.spec"
	size "$tmp/$n.data" > "$tmp/$n.bytes"
}

for prog in python3 xz; do
	case $prog in
	python3) set -- "$py" "$top/samples/loop.py" 12000 ;;
	xz) set -- /usr/bin/xz -9 -T1 -c "$tmp/input" ;;
	esac
	zt "$prog-zt-auto" auto "$@"
	zt "$prog-zt-fp" fp "$@"
	if [ "$have_perf" = 1 ]; then
		perfrun "$prog-perf-dwarf" "--call-graph dwarf" "$@"
		perfrun "$prog-perf-dwarf-2" "--call-graph dwarf" "$@"
		perfrun "$prog-perf-fp" -g "$@"
	fi
done

echo "python3: $py loop.py 12000 (pure-Python loop); xz: xz -9 -T1 -c on 2 MB of generated text; 997 Hz; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$have_perf" = 1 ] || echo "perf is not installed or cannot record: its rows are missing and no differences are shown"
printf '\n| program | profiler | samples | median depth | reaching the entry | max top-10 diff from perf dwarf (points) | bytes per sample |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: |\n'
for prog in python3 xz; do
	for tool in zt-auto zt-fp perf-dwarf perf-dwarf-2 perf-fp; do
		n=$prog-$tool
		[ -s "$tmp/$n.spec" ] || continue
		ref=$(cat "$tmp/$n.spec")
		[ -s "$tmp/$prog-perf-dwarf.spec" ] && ref=$(cat "$tmp/$prog-perf-dwarf.spec")
		row=$($cmp row "$ref" "$(cat "$tmp/$n.spec")")
		[ "$have_perf" = 1 ] || row=$(echo "$row" | sed 's/| [0-9.]*$/| -/')
		[ "$tool" = perf-dwarf ] && row=$(echo "$row" | sed 's/| [0-9.]*$/| (reference)/')
		samples=${row%% *}
		case $tool in
		zt-auto) label="zt (--unwind=auto)" ;;
		zt-fp) label="zt (--unwind=fp)" ;;
		perf-dwarf) label="perf --call-graph dwarf" ;;
		perf-dwarf-2) label="perf --call-graph dwarf, 2nd run" ;;
		perf-fp) label="perf -g" ;;
		esac
		printf '| %s | %s | %s | %s |\n' "$prog" "$label" "$row" \
			"$(awk -v b="$(cat "$tmp/$n.bytes")" -v s="$samples" 'BEGIN { printf "%.0f", (s > 0 ? b / s : 0) }')"
	done
done

printf '\nUnwind tables zt compiled at start (--unwind=auto, from the dump summary):\n\n'
printf '| program | cfi-objects | cfi-rows | cfi-bytes (KiB) | cfi-build-ns (ms) |\n'
printf '| --- | ---: | ---: | ---: | ---: |\n'
for prog in python3 xz; do
	awk -v p="$prog" '/^summary$/ { s = 1 } s && $1 ~ /^cfi-/ { v[$1] = $2 }
		END { printf "| %s | %d | %d | %.0f | %.1f |\n", p, v["cfi-objects"], v["cfi-rows"],
			v["cfi-bytes"] / 1024, v["cfi-build-ns"] / 1e6 }' "$tmp/$prog-zt-auto.raw"
done
