#!/bin/sh
# symbolize.sh — what symbolization costs, measured in one run on this
# machine: CPU time (user + system, from wait4's rusage: tests/cputime) and
# peak RSS of
#   - 100,000 random pcs in libc's functions, with source lines and inlined
#     frames: zt-symbolize --lines, addr2line -C -f -i and llvm-symbolizer,
#     on the same addresses, against libc6-dbg's debug file;
#   - a real dump of 1,000,000 samples: xz compressing, under zt-collect,
#     its sample lines repeated up to 1M; zt-symbolize with and without
#     --lines.
# Each command runs ROUNDS times (default 3); the median is printed.
#
#   sh tests/bench/symbolize.sh [ROUNDS]
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$PWD
PATH="$top/tools:$top/collect:$PATH"
cputime=$top/tests/cputime
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
b=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$b" | cut -c1-2)/$(echo "$b" | cut -c3-).debug
[ -r "$dbg" ] || { echo "symbolize.sh: libc6-dbg's debug file '$dbg' is missing" >&2; exit 1; }

# measure NAME INPUT COMMAND...: ROUNDS runs with stdin from INPUT; prints
# "NAME cpu_s rss_mib" (medians).
measure() {
	name=$1 input=$2
	shift 2
	: > "$tmp/m"
	i=0
	while [ "$i" -lt "$rounds" ]; do
		"$cputime" "$@" < "$input" > "$tmp/out" 2> "$tmp/err" || {
			echo "symbolize.sh: $name failed:" >&2; tail -3 "$tmp/err" >&2; exit 1; }
		tail -n 1 "$tmp/err" >> "$tmp/m"
		i=$((i + 1))
	done
	awk -v n="$name" '{ c[NR] = $1 + $2; r[NR] = $3 }
		END { m = int((NR + 1) / 2);
		      for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
			if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
			if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t } }
		      printf "| %s | %.2f | %.0f |\n", n, c[m], r[m] / 1024 }' "$tmp/m"
}

cd "$tmp"
python3 "$top/tests/symcompare.py" dump "$libc" "$dbg" 100000 1 > libc.raw
echo "| command | CPU s | peak RSS MiB |"
echo "| --- | ---: | ---: |"
measure "zt-symbolize --lines (100k libc pcs)" libc.raw zt-symbolize --lines
measure "addr2line -C -f -i -e libc.debug (same pcs)" pcs.txt addr2line -C -f -i -e "$dbg"
measure "llvm-symbolizer --obj=libc.debug (same pcs)" pcs.txt llvm-symbolizer -C -f -i --obj="$dbg"
measure "zt-symbolize, names only (same pcs)" libc.raw zt-symbolize

# A real dump: xz at work, its samples repeated to a million.
head -c 20000000 /dev/urandom > data
zt-collect -o xz.raw xz -T1 -6 -k -c data > /dev/null 2> /dev/null
awk -v want=1000000 '
	/^samples$/ { insamples = 1; print; next }
	insamples && /^[0-9]+ [0-9]+ / { s[++n] = $0; next }
	insamples { insamples = 0; total = 0
		    while (total < want) for (i = 1; i <= n && total < want; i++) {
			print s[i]; split(s[i], f, " "); total += f[2] } }
	/^samples [0-9]+$/ { print "samples " total; next }
	{ print }' xz.raw > big.raw
n=$(awk '/^samples$/ { on = 1; next } on && /^[0-9]+ [0-9]+ / { t += $2; next } on { on = 0 } END { print t }' big.raw)
measure "zt-symbolize ($n-sample xz dump)" big.raw zt-symbolize
measure "zt-symbolize --lines ($n-sample xz dump)" big.raw zt-symbolize --lines
