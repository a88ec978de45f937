# 0780-alloc-collect.bats — zt-collect --alloc (issue 31, items 1, 3 and 4):
# the raw dump's allocation samples against programs of known behaviour
# (samples/allocs.c), read straight from the dump's lines (formats/raw.md,
# "Version 6"), and the program unchanged.
load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The weights of the "$KIND" lines ($1: a, i or p) of dump $2, summed by size: "SIZE BYTES LINES".
by_size() {
	awk -v k="\$$1" '$0 ~ " \\" k { w = 0; s = 0
		for (i = 3; i <= NF; i++) {
			if (substr($i, 1, 1) == "^") w = substr($i, 2)
			if (substr($i, 1, 2) == k) s = substr($i, 3) }
		W[s] += w; N[s]++ }
		END { for (s in W) printf "%s %.0f %d\n", s, W[s], N[s] }' "$2" | sort -n
}

# Summary key $1 of dump $2.
key() {
	sed -n "s/^$1 //p" "$2" | tail -1
}

@test "four sites in known byte proportions, 16 B to 1 MiB, 4 threads, 4 GiB: alloc_space within 2 points of each" {
	run zt-collect --alloc -o sites.raw "$SAMPLES/allocs" sites 4096
	assert_success
	assert_line "allocated 4096 MiB"
	[ "$(head -1 sites.raw)" = "zt-prof 6" ]
	[ "$(key alloc-rate sites.raw)" = 524288 ]
	by_size a sites.raw > sizes
	cat sizes
	awk 'BEGIN { want[16] = 10; want[1000] = 20; want[65536] = 30; want[1048576] = 40 }
	     { w[$1] = $2; t += $2 }
	     END { bad = 0
		for (s in want) { share = 100 * w[s] / t; d = share - want[s]; if (d < 0) d = -d
			printf "size %s: %.2f%% of the bytes, truth %d%%\n", s, share, want[s]
			if (d > 2) bad = 1 }
		exit bad }' sizes
	# The exact count of the bytes asked for, and the samples' estimate of it.
	bytes=$(key alloc-bytes sites.raw)
	estimate=$(awk '{ t += $2 } END { printf "%.0f", t }' sizes)
	echo "alloc-bytes $bytes, estimated $estimate, alloc-samples $(key alloc-samples sites.raw)"
	[ "$bytes" -ge $((4096 * 1048576 - 4 * 1048576)) ] && [ "$bytes" -le $((4096 * 1048576 + 1048576)) ]
	awk -v b="$bytes" -v e="$estimate" 'BEGIN { d = e - b; if (d < 0) d = -d; exit !(d <= 0.03 * b) }' 
}

@test "a sample's stack starts at the allocator's caller: the site's own function, then its thread's" {
	zt-collect --alloc=64K -o sites.raw "$SAMPLES/allocs" sites 256 > /dev/null
	exe=$(readlink -f "$SAMPLES/allocs")
	base=$(awk -v e="$exe" '$1 == "maps" { m = 1; next } m && $NF == e { split($1, r, "-"); print r[1]; exit }' sites.raw)
	for size in 16 1000 65536 1048576; do
		line=$(grep -m1 " \\\$a$size " sites.raw)
		leaf=$(echo "$line" | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^[0-9a-f]+$/) { print $i; exit } }')
		caller=$(echo "$line" | awk '{ n = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9a-f]+$/ && ++n == 2) { print $i; exit } }')
		names=$(addr2line -f -e "$exe" $(printf '%x %x' $((0x$leaf - 0x$base)) $((0x$caller - 0x$base - 1))) | sed -n '1p;3p' | tr '\n' ' ')
		echo "size $size: $line -> $names"
		[ "$names" = "site$( [ $size = 65536 ] && echo 64k || { [ $size = 1048576 ] && echo 1m || echo $size; })	sites_worker " ] ||
			[ "$names" = "site$( [ $size = 65536 ] && echo 64k || { [ $size = 1048576 ] && echo 1m || echo $size; }) sites_worker " ]
	done
}

@test "blocks leaked at three sites are in use at exit, each within 10% of its bytes" {
	run zt-collect --alloc=16K -o leaks.raw "$SAMPLES/allocs" leaks
	assert_success
	assert_output --regexp "zt-collect: allocations: [0-9]+ calls, [0-9.]+ MiB asked for; [0-9]+ samples, one a mean 16384 bytes; live at the end 9[0-9.]+ MiB"
	by_size i leaks.raw > sizes
	cat sizes
	for s in 32 4096 1048576; do
		awk -v s=$s '$1 == s { d = $2 - 33554432; if (d < 0) d = -d
			printf "%s-byte blocks: %.1f MiB in use, truth 32 MiB\n", s, $2 / 1048576
			found = 1; exit !(d <= 3355443) } END { if (!found) exit 1 }' sizes
	done
	# The churn of 512-byte blocks freed at once is not in use.
	[ "$(grep -c ' \$i512 ' leaks.raw)" = 0 ]
	inuse=$(key alloc-inuse-bytes leaks.raw)
	echo "alloc-inuse-bytes $inuse"
	near "$((inuse / 1048576))" 96 10
}

@test "realloc growth, calloc, reallocarray and the aligned allocators are each counted once" {
	run zt-collect --alloc -o exact.raw "$SAMPLES/allocs" exact
	assert_success
	asked=$(echo "$output" | sed -n 's/^asked //p')
	bytes=$(key alloc-bytes exact.raw)
	calls=$(key alloc-calls exact.raw)
	echo "asked $asked, alloc-bytes $bytes, alloc-calls $calls"
	# stdio's own buffer is the only allocation besides the program's.
	[ "$bytes" -ge "$asked" ] && [ "$bytes" -le $((asked + 65536)) ]
	[ "$calls" -ge 8024 ] && [ "$calls" -le 8030 ]
}

@test "the peak: the blocks held then, found at the right moment, and what is live at exit after it" {
	run zt-collect --alloc -o peak.raw "$SAMPLES/allocs" peak
	assert_success
	read -r from to <<< "$(echo "$output" | sed -n 's/^peak //p')"
	start=$(sed -n 's/^start-ns //p' peak.raw)
	at=$(( start + $(key alloc-peak-ns peak.raw) ))
	echo "first phase $from to $to, peak at $at"
	[ "$at" -ge "$from" ] && [ "$at" -le "$to" ]
	by_size p peak.raw > sizes
	by_size i peak.raw > live
	cat sizes live
	awk '$1 == 1048577 { d = $2 - 209715400; if (d < 0) d = -d; exit !(d <= 0.1 * 209715400) }' sizes
	[ "$(grep -c '^4096 ' sizes)" = 0 ]
	awk '$1 == 4096 { d = $2 - 52428800; if (d < 0) d = -d; exit !(d <= 0.25 * 52428800) }' live
	[ "$(grep -c '^1048577 ' live)" = 0 ]
}

@test "the program is unchanged: what the allocator says back, double frees, fork beside threads, a handler's allocations" {
	for m in behave forks double; do
		"$SAMPLES/allocs" $m > bare.out 2> bare.err && s1=0 || s1=$?
		zt-collect --alloc -o $m.raw "$SAMPLES/allocs" $m > zt.out 2> zt.err && s2=0 || s2=$?
		echo "$m: status $s1 bare, $s2 under zt"
		diff bare.out zt.out
		[ "$s1" = "$s2" ]
		grep -v '^zt-collect' zt.err | diff bare.err -
		grep -q '^alloc-calls ' $m.raw
	done
	grep -q 'double free' bare.err
}

@test "--alloc with --clock=wall: one dump, version 6, wall-clock and allocation samples" {
	run zt-collect --alloc --clock=wall -o both.raw "$SAMPLES/allocs" forks
	assert_success
	[ "$(head -1 both.raw)" = "zt-prof 6" ]
	grep -qx 'profile-clock wall' both.raw
	grep -q ' !' both.raw
	grep -q ' \$a' both.raw
	[ "$(key alloc-samples both.raw)" -gt 0 ]
}

@test "without --alloc nothing of it is loaded: no libzt-alloc.so, a version 4 dump" {
	run zt-collect -o plain.raw sh -c 'echo "$LD_PRELOAD"'
	assert_success
	refute_output --partial libzt-alloc.so
	[ "$(head -1 plain.raw)" = "zt-prof 4" ]
	[ "$(grep -c ' \$' plain.raw)" = 0 ]
	run zt-collect --alloc -o with.raw sh -c 'echo "$LD_PRELOAD"'
	assert_output --partial libzt-alloc.so
}

@test "--alloc's bad sizes are usage errors" {
	for v in 0 abc 2T 12Q -5 ''; do
		run zt-collect --alloc="$v" -o x.raw true
		echo "--alloc=$v: $status $output"
		assert_failure 2
		assert_output --partial "--alloc: '$v' is not a size"
	done
	run zt-collect --alloc=1M -o x.raw true
	assert_success
	[ "$(sed -n 's/^alloc-rate //p' x.raw)" = 1048576 ]
}

@test "a SIGKILLed run under --alloc: zt-collect finishes the dump; its samples key counts no allocation line" {
	zt-collect --alloc=4K -o killed.raw "$SAMPLES/allocs" sites 100000 > /dev/null 2>&1 &
	pid=$!
	sleep 1.5
	# The program, zt-collect's child: zt-collect itself waits for it.
	pkill -KILL -P $pid
	wait $pid || true
	grep -qx 'finished zt-collect' killed.raw
	cpu=$(awk '/^samples$/ { s = 1; next } s && /^[0-9]/ && !/ \$/ { n += $2 } END { print n + 0 }' killed.raw)
	echo "samples key $(key samples killed.raw), CPU sample lines $cpu, allocation lines $(grep -c ' \$a' killed.raw)"
	[ "$(key samples killed.raw)" = "$cpu" ]
	grep -q ' \$a' killed.raw
	[ "$(grep -c ' \$i' killed.raw)" = 0 ]
}

@test "Go: a 0.1 s cgo program's 200 MiB of C malloc, though the runtime ends by a raw exit_group, estimated within 25%" {
	command -v go > /dev/null || skip "no Go toolchain (golang-go)"
	mkdir go && cp "$BATS_TEST_DIRNAME/alloc/gomalloc.go" go/
	printf 'module gomalloc\n\ngo 1.19\n' > go/go.mod
	(cd go && GOCACHE="$BATS_TEST_TMPDIR/gocache" GOPATH="$BATS_TEST_TMPDIR/gopath" \
		GOFLAGS=-mod=mod GOPROXY=off CGO_ENABLED=1 go build -o ../gomalloc .)
	run --separate-stderr zt-collect --alloc -o go.raw ./gomalloc
	echo "$stderr"
	assert_success
	grep -qx 'finished zt-collect' go.raw
	# 3,200 blocks of 64 KiB, each sampled with probability 1 - exp(-1/8):
	# about 376 samples, so 25% is more than 4 standard deviations. The
	# last buffer's samples are in it too: without them (private buffers)
	# two runs here estimated 69% and 70%.
	got=$(by_size a go.raw | awk '$1 == 65536 { print $2 }')
	echo "estimated bytes in 64 KiB blocks: ${got:-none}, of $((200 << 20))"
	awk -v g="${got:-0}" -v w=$((200 << 20)) 'BEGIN { exit !(g > 0.75 * w && g < 1.25 * w) }'
}

@test "allocators: jemalloc or tcmalloc preloaded are sampled through zt's interposers; an ASan build's is named, and nothing is seen" {
	jemalloc=$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2 2>/dev/null | head -1)
	tcmalloc=$(ls /usr/lib/*-linux-gnu/libtcmalloc.so.4 2>/dev/null | head -1)
	[ -n "$jemalloc" ] && [ -n "$tcmalloc" ] || skip "libjemalloc2 and libgoogle-perftools4 are not installed (make deps)"
	# LD_PRELOAD reaches zt-collect too: a sanitizer's build of it (make
	# SANITIZE=address) refuses an allocator loaded before its runtime.
	asan=$(ldd "$(command -v zt-collect)" | grep -c 'libasan' || true)
	for lib in "$jemalloc" "$tcmalloc"; do
		[ "$asan" = 0 ] || break
		LD_PRELOAD=$lib zt-collect --alloc -o pre.raw "$SAMPLES/allocs" exact > out 2> err
		asked=$(sed -n 's/^asked //p' out)
		bytes=$(key alloc-bytes pre.raw)
		echo "$lib: asked $asked, alloc-bytes $bytes, samples $(key alloc-samples pre.raw)"
		grep -q "$lib" pre.raw
		[ "$(grep -c '^alloc-allocator' pre.raw)" = 0 ]
		# The allocator's own mappings are not counted: at most its stdio buffer more.
		[ "$bytes" -ge "$asked" ] && [ "$bytes" -le $((asked + 131072)) ]
		[ "$(key alloc-samples pre.raw)" -gt 500 ]
	done
	command -v clang > /dev/null || skip "clang is not installed"
	printf '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { long n = 0; for (int i = 0; i < 100000; i++) { char *p = malloc(1000); p[0] = 1; n += p[0]; free(p); } printf("%%ld\\n", n); return 0; }\n' > asan.c
	clang -fsanitize=address -g -o asan asan.c
	run zt-collect --alloc -o asan.raw ./asan
	assert_success
	assert_line 100000
	grep -x "alloc-allocator $PWD/asan\|alloc-allocator ./asan" asan.raw || { grep '^alloc' asan.raw; false; }
	assert_output --partial "--alloc: the program's malloc is not zt's but that of '"
	[ "$(key alloc-samples asan.raw)" = 0 ]
	# A statically linked tcmalloc takes the program's calls before zt's interposers: said.
	static=$(ls /usr/lib/*-linux-gnu/libtcmalloc_minimal.a 2>/dev/null | head -1)
	[ -n "$static" ] || skip "libgoogle-perftools-dev is not installed (make deps)"
	cc -O1 -o static asan.c "$static" -lstdc++ -lpthread
	run zt-collect --alloc -o static.raw ./static
	assert_success
	assert_line 100000
	assert_output --partial "(so few calls: an allocator linked statically into the program takes its calls before zt's interposers)"
	[ "$(key alloc-calls static.raw)" -lt 16 ]
}

@test "a snapshot holds the blocks live at its moment; the end's dump those live at the end" {
	cat > snap.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zt.h"
int main(void)
{
	static char *held[100];
	for (int i = 0; i < 100; i++) { held[i] = malloc(1 << 20); memset(held[i], 1, 4096); }
	if (zt_snapshot() != 1) { fprintf(stderr, "no snapshot\n"); return 1; }
	for (int i = 0; i < 50; i++) free(held[i]);
	printf("done\n");
	return 0;
}
SRC
	cc -O1 -g -I"$ZT_TOP/collect" -o snap snap.c
	run zt-collect --alloc=64K --control -o snap.raw ./snap
	assert_success
	assert_line done
	[ -f snap.raw.1 ]
	by_size i snap.raw.1
	by_size i snap.raw
	awk '$1 == 1048576 { exit !($2 > 95e6 && $2 < 115e6) }' <(by_size i snap.raw.1)
	awk '$1 == 1048576 { exit !($2 > 47e6 && $2 < 58e6) }' <(by_size i snap.raw)
	# Each dump counts its own allocations: the end's made none of the 1 MiB ones.
	[ "$(grep -c ' \$a1048576 ' snap.raw)" = 0 ]
	[ "$(grep -c ' \$a1048576 ' snap.raw.1)" = 100 ]
}

@test "10 million live blocks: the collector's memory, CPU and allocation sampling together, stays under 8 MiB" {
	"$ZT_TOP/tests/cputime" "$SAMPLES/allocs" live 10000000 > /dev/null 2> bare.err
	"$ZT_TOP/tests/cputime" zt-collect --alloc -o live.raw "$SAMPLES/allocs" live 10000000 > /dev/null 2> zt.err
	bare=$(tail -1 bare.err | awk '{ print $3 }')
	zt=$(tail -1 zt.err | awk '{ print $3 }')
	echo "peak resident: bare $bare KiB, under zt-collect --alloc $zt KiB, $((zt - bare)) KiB more"
	[ "$(key alloc-calls live.raw)" -ge 10000000 ]
	[ $((zt - bare)) -lt 8192 ]
}

@test "C++: operator new reaches malloc through libstdc++; the stack goes on to the function that called new" {
	command -v g++ > /dev/null || skip "g++ is not installed"
	cat > news.cc <<'SRC'
#include <cstdio>
#include <vector>
__attribute__((noinline)) int *make_block() { return new int[4096]; }
int main()
{
	long n = 0;
	for (int i = 0; i < 20000; i++) { int *p = make_block(); p[0] = i; n += p[0]; delete[] p; }
	std::printf("%ld\n", n > 0 ? 1L : 0L);
	return 0;
}
SRC
	g++ -O1 -g -fno-omit-frame-pointer -o news news.cc
	run zt-collect --alloc -o news.raw ./news
	assert_success
	assert_line 1
	line=$(grep -m1 ' \$a16384 ' news.raw)
	echo "$line"
	exe=$(readlink -f news)
	base=$(awk -v e="$exe" '$1 == "maps" { m = 1; next } m && $NF == e { split($1, r, "-"); print r[1]; exit }' news.raw)
	# The first address is in libstdc++ (operator new); one of the next is make_block's call.
	found=
	for a in $(echo "$line" | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^=?[0-9a-f]+$/) { sub(/^=/, "", $i); print $i } }'); do
		off=$((0x$a - 0x$base - 1))
		[ "$off" -ge 0 ] && [ "$off" -lt 1048576 ] || continue
		f=$(addr2line -f -e "$exe" "$(printf '%x' "$off")" | head -1)
		echo "$a: $f"
		case $f in *make_block*) found=1 ;; esac
	done
	[ -n "$found" ]
	[ "$(key alloc-calls news.raw)" -ge 20000 ]
}

@test "against heaptrack on real programs (git log -p, sqlite3): the top allocation sites agree within 3 points of alloc_space" {
	command -v heaptrack > /dev/null && command -v zstd > /dev/null || skip "heaptrack and zstd are not installed (make deps)"
	command -v setarch > /dev/null || skip "setarch is not installed"
	git -C "$ZT_TOP" rev-parse --git-dir > /dev/null 2>&1 || skip "not a git checkout"
	# A repository of its own, 200 commits of a growing file: the same work wherever the test runs.
	git init -q repo
	for i in $(seq 200); do seq "$i" 4000 > repo/f; printf '%s\n' "$i" >> repo/g; git -C repo add f g
		git -C repo -c user.name=t -c user.email=t@t commit -qm "c$i"; done
	printf 'create table t (a integer, b text, c text); create index ta on t(b);\nwith recursive n(i) as (select 1 union all select i + 1 from n where i < 50000) insert into t select i, hex(randomblob(16)), hex(randomblob(40)) from n;\nselect count(*) from t;\n' > rows.sql
	for prog in "git -C repo log -p" "sqlite3 :memory: -init rows.sql .quit"; do
		set -- $prog
		command -v "$1" > /dev/null || continue
		# Address randomization off: the executable's calls are at one address in both runs.
		setarch -R heaptrack -o ht $prog > /dev/null 2>&1
		zstd -dcq ht.zst > ht.txt
		rm -f ht.zst
		setarch -R zt-collect --alloc=64K -o zt.raw $prog > /dev/null 2>&1
		echo "== $prog"
		python3 "$ZT_TOP/tests/heapcheck.py" ht.txt zt.raw "$(command -v "$1")" 10 3
	done
}

@test "the program's own anonymous mmaps of 128 KiB or more are allocations, munmap frees them; reserved address space is not" {
	cat > maps.c <<'SRC'
#include <stdio.h>
#include <sys/mman.h>
int main(void)
{
	static char *kept[64];
	for (int i = 0; i < 64; i++) {
		kept[i] = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		kept[i][0] = 1;
	}
	for (int i = 0; i < 64; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		p[0] = 1;
		munmap(p, 1 << 20);
	}
	/* Address space reserved, as runtimes do: 4 GiB, no access. */
	void *r = mmap(NULL, 1ul << 32, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	printf("%d\n", r != MAP_FAILED);
	return 0;
}
SRC
	cc -O1 -o maps maps.c
	run zt-collect --alloc=64K -o maps.raw ./maps
	assert_success
	assert_line 1
	bytes=$(key alloc-bytes maps.raw)
	echo "alloc-bytes $bytes"
	[ "$bytes" -ge $((128 * 1048576)) ] && [ "$bytes" -lt $((129 * 1048576)) ]
	by_size i maps.raw | tee live
	# The 64 kept are live at the end (each sampled: 1 MiB at a 64 KiB rate), the 64 unmapped are not.
	awk '$1 == 1048576 { exit !($3 == 64) }' live
}
