#!/bin/sh
# pprof-encode.sh [REPS] — zt-pprof's hand-written profile.proto encoder
# (lib/pprof.c) against Debian's protobuf-c on the same tables: time (best
# of REPS, default 5) and whether the bytes are identical. The input is xz
# compressing 20 MB under zt-collect, its samples spread over 70 threads.
# Needs libprotobuf-c-dev and protobuf-c-compiler (make bench installs them).
cd "$(dirname "$0")/../.." || exit 1
reps=${1:-5}
command -v protoc-c >/dev/null || { echo "pprof-encode.sh: protoc-c is missing (protobuf-c-compiler)" >&2; exit 1; }
[ -r lib/libzt.a ] && [ -x collect/zt-collect ] || { echo "pprof-encode.sh: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cp tests/bench/pprof-profile.proto "$tmp/" || exit 1
(cd "$tmp" && protoc-c --c_out=. pprof-profile.proto) || exit 1
cc -O2 -D_GNU_SOURCE -Ilib -I"$tmp" -o "$tmp/bench" tests/bench/pprof-encode.c \
	"$tmp/pprof-profile.pb-c.c" lib/libzt.a -lprotobuf-c -ldwarf -lz -liberty -lm || exit 1
head -c 20000000 /dev/urandom > "$tmp/data"
collect/zt-collect -o "$tmp/xz.raw" xz -9 -T1 -c "$tmp/data" > /dev/null 2> "$tmp/err" ||
	{ cat "$tmp/err" >&2; exit 1; }
awk '/^samples$/ { s = 1; print; next }
     /^[a-z]/ && s { s = 0; save = $0
	for (k = 1; k < 70; k++) for (i = 1; i <= n; i++) { split(L[i], f, " "); $0 = L[i]; $1 = f[1] + k; print }
	$0 = save }
     s { L[++n] = $0 } { print }' "$tmp/xz.raw" > "$tmp/big.raw"
echo "## zt-pprof's encoder against protobuf-c"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), best of $reps each"
echo
"$tmp/bench" "$tmp/big.raw" "$reps" | tee "$tmp/out"
# The figure: the hand-written encoder's best time against protobuf-c's, in
# the same call; goal at most 1 (not slower), failed beyond MARGIN (1.5).
awk -v m="${MARGIN:-1.5}" '/^hand-written:/ { a = $(NF - 1) } /^protobuf-c:/ { b = $(NF - 1) }
	/^identical:/ { same = $2 }
	END {
		if (b <= 0) { print "pprof-encode.sh: no figure printed" > "/dev/stderr"; exit 1 }
		bad = a / b > m || same != "yes"
		printf "\nhand-written / protobuf-c: %.2f (goal at most 1; the bytes identical: %s)%s\n",
			a / b, same, bad ? " FAILED" : ""
		exit bad }' "$tmp/out" || exit 1
