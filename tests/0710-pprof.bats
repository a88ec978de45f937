#!/usr/bin/env bats
# zt-pprof: go tool pprof reads its profile and finds in it what zt-stat and
# zt-fold find in the same dump (-top's flat and cum, -traces' stacks, -raw's
# addresses and names), with thread labels, inlined frames (--lines),
# partial stacks, a stale binary (no names), debug directories, errors and
# determinism.

load helper

# pprof with every node shown, counting samples (not the cpu value).
pp() {
	go tool pprof -sample_index=samples -nodefraction=0 -edgefraction=0 \
		-nodecount=1000000 "$@"
}

# "function flat cum" rows of a pprof -top or zt-stat table, sorted.
top_rows() {
	awk 'go { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n, $1, $4 }
	     $1 == "flat" && $2 == "flat%" { go = 1 }' | LC_ALL=C sort
}

# pprof -traces as folded stacks (root first), summed, sorted.
traces_folded() {
	awk '/^-----------\+/ { if (s != "") print s, v; s = ""; inst = 0; next }
	     !inst && /^ +[0-9]+   / { inst = 1; v = $1; sub(/^ +[0-9]+   /, "") }
	     inst { sub(/ \(inline\)$/, ""); sub(/^ +/, ""); s = (s == "" ? $0 : $0 ";" s) }
	     END { if (s != "") print s, v }' |
	awk '{ c = $NF; $NF = ""; sub(/ $/, ""); t[$0] += c } END { for (k in t) print k, t[k] }' |
	LC_ALL=C sort
}

# zt-fold's stacks without the process name at the root.
fold_stacks() {
	zt-fold "$@" | sed 's/^[^;]*;//' |
		awk '{ c = $NF; $NF = ""; sub(/ $/, ""); t[$0] += c } END { for (k in t) print k, t[k] }' |
		LC_ALL=C sort
}

setup_file() {
	command -v go >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR"
	export HOME=$BATS_FILE_TMPDIR PPROF_TMPDIR=$BATS_FILE_TMPDIR
	zt-collect -o spin.raw "$SAMPLES/spin" 100 2>/dev/null
	zt-collect -o threads.raw "$SAMPLES/threads" 100 2>/dev/null
	cat > inl.c <<'C'
#include <stdlib.h>
static inline __attribute__((always_inline)) long sq(long x) { for (int k = 0; k < 64; k++) x = x * x + k; return x; }
static inline __attribute__((always_inline)) long twice(long x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) long work(long n)
{ long s = 0; for (long i = 0; i < n; i++) s += twice(i) ^ s; return s; }
int main(int argc, char **argv) { return work(argc > 1 ? atol(argv[1]) : 100) == 42; }
C
	gcc -O2 -g -fno-omit-frame-pointer -o inl inl.c
	# sq's loop holds nearly every instruction, so samples land inside the
	# inlined frames whatever the CPU's skid (a one-line sq got none in
	# some runs).
	zt-collect -o inl.raw ./inl 3000000 2>/dev/null
}

setup() {
	command -v go >/dev/null ||
		skip "go tool pprof is missing: golang-go is not installed (make deps installs it)"
	cd "$BATS_FILE_TMPDIR"
	# go tool pprof needs a HOME and may write ~/pprof.
	export HOME=$BATS_FILE_TMPDIR PPROF_TMPDIR=$BATS_FILE_TMPDIR
}

@test "pprof -top gives zt-stat's flat and cum for every function" {
	run --separate-stderr zt-pprof -o spin.pb.gz spin.raw
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	pp -top spin.pb.gz > top 2>top.err
	zt-symbolize spin.raw | zt-stat -n 1000000 > stat
	top_rows < top > a
	top_rows < stat > b
	[ "$(wc -l < a)" -ge 5 ]
	grep -q '^hot_a ' a
	diff a b
	# And the total is the dump's number of samples.
	n=$(awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 } s { t += $2 } END { print t }' spin.raw)
	grep -q "Total samples = $n \?\$" top
}

@test "pprof -traces gives zt-fold's stacks and counts" {
	zt-pprof -o spin.pb.gz spin.raw
	pp -traces spin.pb.gz | traces_folded > a
	zt-symbolize spin.raw | fold_stacks > b
	[ "$(wc -l < a)" -ge 2 ]
	diff a b
	# Threads: four workers, each its own labels.
	zt-pprof -o threads.pb.gz threads.raw
	pp -traces threads.pb.gz | traces_folded > a
	zt-symbolize threads.raw | fold_stacks > b
	diff a b
}

@test "pprof -raw: each sample's addresses are the dump's, each location named as zt-symbolize names it" {
	# Read without zt-code, a sample in zt's own work (at exit, rare)
	# keeps its addresses: with it, they are one frame [zt] (formats/raw.md).
	sed -e '/^zt-code /d' -e '/^zt-handover /d' spin.raw > plain.raw
	zt-pprof -o plain.pb.gz plain.raw
	pp -raw plain.pb.gz > raw
	# Location id -> address; samples as "addresses count", summed.
	awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0; l = 1; next } /^Mappings/ { l = 0 }
	     l && $1 ~ /:$/ { id = $1; sub(/:$/, "", id); a[id] = substr($2, 3) }
	     s && $2 ~ /:$/ { n++; c[n] = $1; st = ""; for (i = 3; i <= NF; i++) ids[n, i - 2] = $i; k[n] = NF - 2 }
	     END { for (j = 1; j <= n; j++) { st = ""; for (i = 1; i <= k[j]; i++) st = st " " a[ids[j, i]]; print substr(st, 2), c[j] } }' raw |
		awk '{ c = $NF; $NF = ""; t[$0] += c } END { for (s in t) print s t[s] }' | LC_ALL=C sort > a
	awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
	     s { st = ""; for (i = 3; i <= NF; i++) { x = $i; if (x ~ /^@/) continue; sub(/^=/, "", x); if (x == "-") x = "0"; st = st " " x }; t[substr(st, 2)] += $2 }
	     END { for (s in t) print s, t[s] }' plain.raw | LC_ALL=C sort > b
	[ "$(wc -l < b)" -ge 2 ]
	diff a b
	zt-pprof -o spin.pb.gz spin.raw
	pp -raw spin.pb.gz > raw
	# Names: every address's function is zt-symbolize's. A partial stack
	# (a frame zt could not unwind past, rare in spin but possible) ends in
	# a location at address 0 without a mapping: "7: 0x0 [truncated] :0".
	awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	     l && $1 ~ /:$/ { print substr($2, 3), ($3 ~ /^M=/ ? $4 : $3) }' raw |
		LC_ALL=C sort > a
	zt-symbolize spin.raw | awk '/^\t/ { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); print $1, n }' |
		LC_ALL=C sort -u > b
	diff a b
	# The mapping of the executable comes first, with its build-id.
	b=$(readelf -n "$SAMPLES/spin" | awk '/Build ID/ { print $3 }')
	awk '/^Mappings/ { m = 1; next } m' raw | sed -n 1p | grep -q " $SAMPLES/spin $b \[FN\]\$"
}

@test "sample types, period, duration from cpu-ns, the dump's start time; thread labels" {
	zt-pprof -o spin.pb.gz spin.raw
	go tool pprof -raw spin.pb.gz > raw
	grep -qx 'PeriodType: cpu nanoseconds' raw
	grep -qx 'Period: 1003009' raw
	grep -qx 'samples/count cpu/nanoseconds' raw
	ns=$(awk '$1 == "cpu-ns" { print $2 }' spin.raw)
	# -raw cuts the duration to 4 characters, units and all: read -top's
	# header, "Duration: 1.21s" or "Duration: 956.12ms".
	go tool pprof -top spin.pb.gz 2>/dev/null | grep -m1 '^Duration:' > dur
	awk -v n="$ns" '{ v = $2; sub(/,$/, "", v); s = v + 0; if (v ~ /ms$/) s /= 1000
		d = s - n / 1e9; ok = d < 0.01 && d > -0.01 } END { exit !ok }' dur
	# Each sample's cpu value is its count times the period.
	awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $2 ~ /:$/ { n++; if ($2 + 0 != $1 * 1003009) bad++ }
	     END { exit !(n > 0 && bad == 0) }' raw
	# The start time is the dump's wall clock (version 3); none is invented
	# for a dump without it: pprof prints no Time line, a comment says why.
	run go tool pprof -raw spin.pb.gz
	start=$(awk '$1 == "start-time-ns" { print $2 }' spin.raw)
	[[ "$output" == *"Time: $(date -u -d "@$((start / 1000000000))" '+%Y-%m-%d %H:%M:%S')"* ]]
	sed -e '/^start-time-ns /d' -e 's/ @[0-9]*//' spin.raw > old.raw
	zt-pprof -o old.pb.gz old.raw
	run go tool pprof -top old.pb.gz
	[[ "$output" != *"Time:"* ]]
	[[ "$output" == *"the dump records no start time"* ]]
	# Thread ids and names, as zt-stat --by=thread counts them.
	zt-pprof -o threads.pb.gz threads.raw
	pp -tags -sample_index=samples threads.pb.gz > tags
	# A row is "482.0 (48.93%): worker4", or "1.0 (  0.1%): threads" for a
	# small share: the name is the last field, not the third.
	awk '/^ thread:/ { t = 1; next } /^ tid:/ { t = 0 } t && /\): / { printf "%s %d\n", $NF, $1 }' tags | LC_ALL=C sort > a
	zt-symbolize threads.raw | zt-stat --by=thread | top_rows | sed 's/-[0-9]*\/[0-9]* / /' |
		awk '{ print $1, $2 }' | LC_ALL=C sort > b
	# The four workers, and the main thread when a sample caught it.
	[ "$(wc -l < b)" -ge 4 ]
	diff a b
}

@test "--lines: inlined frames are a location's lines; -traces agrees with zt-fold of zt-symbolize --lines" {
	zt-pprof --lines -o inl.pb.gz inl.raw
	pp -traces inl.pb.gz | traces_folded > a
	zt-symbolize --lines inl.raw | fold_stacks > b
	diff a b
	grep -q ';work;twice;sq ' a
	pp -traces inl.pb.gz | grep -q '^ *twice (inline)$'
	# Files and lines are there for pprof -list and -lines.
	pp -top -lines inl.pb.gz | grep -q " sq $PWD/inl.c:2 (inline)\$"
	go tool pprof -raw inl.pb.gz | awk '/^Mappings/ { m = 1; next } m' | sed -n 1p | grep -q '\[FN\]\[FL\]\[LN\]\[IN\]$'
	# Without --lines: names only, no inlined frames.
	zt-pprof -o noinl.pb.gz inl.raw
	pp -traces noinl.pb.gz | traces_folded > a
	zt-symbolize inl.raw | fold_stacks > b
	diff a b
	! grep -q 'twice' a
}

@test "a partial stack ends in [truncated], as in zt-fold" {
	awk '/^samples$/ { s = 1; print; next } /^[a-z]/ { s = 0 } s && NR % 3 == 0 && $NF != "-" { print $0 " -"; next } { print }' \
		spin.raw > part.raw
	grep -q ' -$' part.raw
	zt-pprof -o part.pb.gz part.raw
	pp -traces part.pb.gz | traces_folded > a
	zt-symbolize part.raw | fold_stacks > b
	diff a b
	grep -q '^\[truncated\];' a
	pp -top part.pb.gz | top_rows > a
	zt-symbolize part.raw | zt-stat -n 1000000 | top_rows > b
	diff a b
}

@test "a stale binary gives no names, and the same warning as zt-symbolize" {
	cp "$SAMPLES/spin.c" stale.c
	gcc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o stale stale.c
	zt-collect -o stale.raw ./stale 50 2>/dev/null
	echo 'int rebuilt(void) { return 1; }' >> stale.c
	gcc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o stale stale.c
	zt-symbolize stale.raw 2> sym.err > /dev/null
	grep -q 'build-id mismatch' sym.err
	run --separate-stderr zt-pprof -o stale.pb.gz stale.raw
	[ "$status" -eq 0 ]
	[ "$stderr" = "$(sed 's/^zt-symbolize: /zt-pprof: /' sym.err)" ]
	run --separate-stderr pp -top stale.pb.gz
	[ "$status" -eq 0 ]
	[[ "$output" == *" [stale]"* ]]
	[[ "$output" != *hot_a* && "$output" != *work* ]]
	[[ "$output" == *"zt: warning: '$PWD/stale': build-id mismatch"* ]]
	# pprof does not try the file itself: every frame already has a name.
	[[ "$stderr" != *"symbolization"* ]]
	pp -traces stale.pb.gz | traces_folded > a
	zt-symbolize stale.raw 2>/dev/null | fold_stacks > b
	diff a b
}

@test "--debug-dir and --sysroot find files as zt-symbolize does" {
	cp "$SAMPLES/spin.c" dd.c
	gcc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o dd dd.c
	zt-collect -o dd.raw ./dd 50 2>/dev/null
	b=$(readelf -n dd | awk '/Build ID/ { print $3 }')
	mkdir -p "dbg/.build-id/${b:0:2}" root/"$PWD"
	cp dd "dbg/.build-id/${b:0:2}/${b:2}"
	mv dd root/"$PWD"/dd
	zt-pprof -o dd.pb.gz dd.raw 2>/dev/null
	! pp -top dd.pb.gz | grep -q hot_a
	zt-pprof -d dbg -o dd.pb.gz dd.raw
	pp -top dd.pb.gz | grep -q ' hot_a$'
	zt-pprof --sysroot=root -o dd.pb.gz dd.raw 2>err
	pp -top dd.pb.gz | grep -q ' hot_a$'
}

@test "the same dump gives the same bytes; stdout works; gzip is valid" {
	zt-pprof -o one.pb.gz spin.raw
	zt-pprof spin.raw > two.pb.gz
	cmp one.pb.gz two.pb.gz
	gzip -t one.pb.gz
	gzip -c spin.raw | zt-pprof > three.pb.gz
	cmp one.pb.gz three.pb.gz
}

@test "zt-pprof: usage errors exit 2, bad dumps exit 1 and leave no file" {
	run zt-pprof --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: zt-pprof "* ]]
	run zt-pprof --version
	[ "$status" -eq 0 ]
	run --separate-stderr zt-pprof --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: zt-pprof "* ]]
	# Several inputs are added up (tests/0312); stdin twice is a usage error.
	run --separate-stderr zt-pprof -o x.pb.gz - -
	[ "$status" -eq 2 ]
	[[ "$stderr" == "zt-pprof: stdin can be read only once"* ]]
	run --separate-stderr zt-pprof -d /nonexistent spin.raw
	[ "$status" -eq 2 ]
	printf 'zt-prof 3\nsamples\n1 1 xyz\nend\n' > bad.raw
	rm -f bad.pb.gz
	run --separate-stderr zt-pprof -o bad.pb.gz bad.raw
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-pprof: 'bad.raw': line 3: "* ]]
	[ ! -e bad.pb.gz ]
	run --separate-stderr zt-pprof -o /nonexistent/x.pb.gz spin.raw
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-pprof: cannot open '/nonexistent/x.pb.gz': "* ]]
	run --separate-stderr sh -c 'zt-pprof spin.raw > /dev/full'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-pprof: cannot write <stdout>: "* ]]
}
