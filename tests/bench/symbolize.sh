#!/bin/sh
# symbolize.sh — zt-symbolize against addr2line and llvm-symbolizer on the
# same addresses, as ratios measured in the same call (tests/bench/ratio.inc:
# CPU time, alternating pairs, median): 100,000 random pcs inside libc's
# functions, with source lines and inlined frames, from libc6-dbg's debug
# file (tests/symcompare.py makes the dump and the list of pcs):
#   - zt-symbolize --lines against addr2line -C -f -i (goal: at most 0.5x),
#     and against llvm-symbolizer (at most 0.35x);
#   - zt-symbolize, names only, against addr2line -f (no lines asked).
# The per-sample stream of real dumps is tests/bench/stream.sh.
#
#   sh tests/bench/symbolize.sh       # ROUNDS=7 MARGIN=1.5 by default
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
. tests/bench/ratio.inc
w=$btmp
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
b=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$b" | cut -c1-2)/$(echo "$b" | cut -c3-).debug
[ -r "$dbg" ] || { echo "symbolize.sh: libc6-dbg's debug file '$dbg' is missing" >&2; exit 1; }

(cd "$w" && python3 "$top/tests/symcompare.py" dump "$libc" "$dbg" 100000 1 > libc.raw)
bench_header "zt-symbolize against addr2line and llvm-symbolizer (100,000 libc pcs)"
bench_ratio "--lines vs addr2line -C -f -i" 0.5 \
	"addr2line -C -f -i -e $dbg < $w/pcs.txt" "$top/tools/zt-symbolize --lines $w/libc.raw"
bench_ratio "--lines vs llvm-symbolizer" 0.35 \
	"llvm-symbolizer -C -f -i --obj=$dbg < $w/pcs.txt" "$top/tools/zt-symbolize --lines $w/libc.raw"
bench_ratio "names only vs addr2line -f" - \
	"addr2line -f -e $dbg < $w/pcs.txt" "$top/tools/zt-symbolize $w/libc.raw"
bench_end
