#!/usr/bin/env bats
# Issues 3, 8 and 9's behaviours on aarch64, through the aarch64 zt-collect
# run as tests/0801 runs it (qemu-aarch64 registered with binfmt_misc in a
# private user and mount namespace only): children under -f (fork, and
# exec of another aarch64 program), the endings (exit from a thread, _exit,
# abort, pthread_exit from main), build-ids, a stack deeper than the 128
# frames kept marked [truncated], and hostile programs (every descriptor
# closed, a symlink planted at the temporary name, a forged thread name).
# The x86-64 tests of each are tests/0130, 0120, 0140, 0165 and 0175; the
# programs here are samples/ cross-built (make CROSS=aarch64-linux-gnu-) or
# written below and built with aarch64-linux-gnu-gcc.

load helper

X="$ZT_TOP/build/aarch64-linux-gnu"
SYSROOT=/usr/aarch64-linux-gnu
ROOT='_start;__libc_start_main;[^;]+;main'

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	QEMU=$(command -v qemu-aarch64) || return 0
	# inns CMD...: CMD in the namespace, qemu-aarch64 registered there
	# (tests/0801's).
	cat > inns <<EOF
#!/bin/sh
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 97
printf '%s' ':qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$QEMU:POC' \\
	> /proc/sys/fs/binfmt_misc/register || exit 98
QEMU_LD_PREFIX=$SYSROOT LD_LIBRARY_PATH=$X/sysroot/lib/aarch64-linux-gnu exec "\$@"
EOF
	chmod +x inns
	# ends MODE: burn() in main (or in a thread), then end as MODE says.
	cat > ends.c <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void burn(void)
{
	for (unsigned long i = 0; i < 100000000; i++)
		sink += i;
}
static void *exiter(void *a) { burn(); exit(5); return a; }
static void *worker(void *a) { burn(); return a; }
int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "thread-exit") == 0) {
		pthread_create(&t, 0, exiter, 0);
		pthread_join(t, 0);
		return 1;
	}
	if (strcmp(argv[1], "pthread-exit") == 0) {
		pthread_create(&t, 0, worker, 0);
		pthread_exit(0);
	}
	burn();
	if (strcmp(argv[1], "_exit") == 0)
		_exit(6);
	if (strcmp(argv[1], "abort") == 0)
		abort();
	return 1;
}
C
	# deep N: rec() N deep, then bottom() burns; 1000 times.
	cat > deep.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void bottom(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i;
}
__attribute__((noinline)) void rec(int n)
{
	if (n > 0)
		rec(n - 1);
	else
		bottom();
	sink++;
}
int main(int argc, char **argv)
{
	int d = argc > 1 ? atoi(argv[1]) : 300;

	for (int r = 0; r < 1000; r++)
		rec(d);
	return 0;
}
C
	# tname: its thread named with newlines, then with terminal escapes
	# (tests/0165's).
	cat > tname.c <<'C'
#include <sys/prctl.h>
static volatile unsigned long sink;
__attribute__((noinline)) void spin_here(void)
{
	for (unsigned long i = 0; i < 50000000; i++)
		sink += i;
}
int main(void)
{
	prctl(PR_SET_NAME, "\nsamples\n1 99 1", 0, 0, 0);
	spin_here();
	prctl(PR_SET_NAME, "\033[2J;x\a", 0, 0, 0);
	spin_here();
	return 0;
}
C
	if command -v aarch64-linux-gnu-gcc > /dev/null; then
		for p in ends deep tname; do
			aarch64-linux-gnu-gcc -O0 -fno-omit-frame-pointer -o "$p" "$p.c" -lpthread
		done
	fi
	unshare --user --map-root-user --mount true 2> userns.err || echo \
		"no user namespace here: $(cat userns.err)" > noreason
	[ -e noreason ] || unshare --user --map-root-user --mount ./inns true 2> binfmt.err ||
		echo "the kernel refuses binfmt_misc in a user namespace (Linux 6.7 and later allow it): $(cat binfmt.err)" > noreason
}

setup() {
	[ -n "$(command -v qemu-aarch64)" ] ||
		skip "qemu-aarch64 is not installed (Debian package qemu-user)"
	[ -f "$SYSROOT/lib/libc.so.6" ] ||
		skip "no aarch64 libc in $SYSROOT (Debian package libc6-dev-arm64-cross)"
	[ -f "$X/collect/libzt-prof.so" ] && [ -x "$BATS_FILE_TMPDIR/ends" ] ||
		skip "no aarch64 build in build/aarch64-linux-gnu: make CROSS=aarch64-linux-gnu- (Debian package gcc-aarch64-linux-gnu)"
	[ -x "$X/samples/forker" ] && [ -x "$X/samples/daemon" ] ||
		skip "build/aarch64-linux-gnu has no samples/forker or samples/daemon: make CROSS=aarch64-linux-gnu- again"
	[ ! -e "$BATS_FILE_TMPDIR/noreason" ] || skip "$(cat "$BATS_FILE_TMPDIR/noreason")"
	cd "$BATS_TEST_TMPDIR"
	cp "$X/samples/forker" "$X/samples/spin" "$X/samples/daemon" "$X/samples/dlopener" \
		"$X/samples/libplugin.so" "$BATS_FILE_TMPDIR/ends" "$BATS_FILE_TMPDIR/deep" \
		"$BATS_FILE_TMPDIR/tname" .
}

# a64 CMD...: CMD (the aarch64 zt-collect or a program) with aarch64 programs
# run by the kernel through qemu.
a64() {
	unshare --user --map-root-user --mount "$BATS_FILE_TMPDIR/inns" "$@"
}

# zt-collect, the aarch64 launcher, through binfmt_misc.
ztc() {
	a64 "$X/collect/zt-collect" "$@"
}

# fold RAW: its folded stacks without the program's name in front.
fold() {
	zt-symbolize "$1" 2> /dev/null | zt-fold | sed 's/^[^;]*;//'
}

count() {
	RE=$2 awk '{ n = $NF; $NF = ""; sub(/ $/, ""); if ($0 ~ ENVIRON["RE"]) s += n }
		END { print s + 0 }' "$1"
}

total() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

at_least() {
	awk -v a="$1" -v b="$3" -v p="$2" 'BEGIN { exit !(b > 0 && a * 100 >= b * p) }'
}

# The value of summary key $2 in dump $1.
key() {
	K=$2 awk '$1 == ENVIRON["K"] && NF == 2 { v = $2 } END { print v }' "$1"
}

line_samples() {
	awk '/^samples$/ { s = 1; next } /^(maps( @[0-9]+)?|buildids|threads|summary|end)$/ { s = 0 }
		s && NF >= 3 { n += $2 } END { print n + 0 }' "$1"
}

# The dump is whole (ends in "end") and left no temporary file behind.
whole() {
	[ "$(tail -n 1 "$1")" = end ]
	! ls "$1".tmp.* 2> /dev/null
}

@test "aarch64 zt-collect -f: a forked child gets its own dump FILE.PID, named on the summary line" {
	run --separate-stderr ztc -f -o f.raw ./forker
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'child done\nchild status 3')" ]
	[ "$(ls f.raw.[0-9]* | wc -l)" -eq 1 ]
	child=$(ls f.raw.[0-9]*)
	[[ "${stderr_lines[-1]}" == "zt-collect: with -f, 2 dumps: "*"; wrote '$PWD/f.raw' (forker, "*" samples), '$PWD/$child' (forker, "*" samples)" ]]
	grep -qx 'arch aarch64' "$child"
	grep -qx "pid ${child#f.raw.}" "$child"
	whole f.raw
	whole "$child"
	fold f.raw > p.folded
	fold "$child" > c.folded
	cat p.folded c.folded
	at_least "$(count p.folded "^$ROOT;parent_work\$")" 90 "$(total p.folded)"
	at_least "$(count c.folded "^$ROOT;child_work\$")" 90 "$(total c.folded)"
	[ "$(count c.folded parent_work)" -eq 0 ]
	[ "$(count p.folded child_work)" -eq 0 ]
}

@test "aarch64 zt-collect -f: a child that execs another aarch64 program is profiled as that program" {
	run --separate-stderr ztc -f -o f.raw ./forker exec ./spin 20
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "child status 0" ]
	child=$(ls f.raw.[0-9]*)
	[[ "${stderr_lines[-1]}" == *"'$PWD/f.raw' (forker, "*" samples), '$PWD/$child' (spin, "*" samples)" ]]
	grep -qx "exe $PWD/spin" "$child"
	grep -qx "exe $PWD/forker" f.raw
	whole "$child"
	fold "$child" > c.folded
	cat c.folded
	a=$(count c.folded "^$ROOT;work;hot_a\$")
	b=$(count c.folded "^$ROOT;work;hot_b\$")
	echo "hot_a $a hot_b $b of $(total c.folded)"
	at_least $((a + b)) 90 "$(total c.folded)"
	at_least "$a" 65 $((a + b))
}

@test "aarch64 endings: exit from a thread, _exit, abort and pthread_exit from main each leave a whole dump and the program's status" {
	for m in thread-exit:5:';exiter;burn$' _exit:6:"^$ROOT;burn\$" \
		abort:134:"^$ROOT;burn\$" pthread-exit:0:';worker;burn$'; do
		mode=${m%%:*} rest=${m#*:}
		want=${rest%%:*} re=${rest#*:}
		rm -f e.raw
		run --separate-stderr ztc -o e.raw ./ends "$mode"
		echo "$mode: status $status"
		echo "$stderr"
		[ "$status" -eq "$want" ]
		[[ $stderr == *"wrote '$PWD/e.raw'"* ]]
		whole e.raw
		fold e.raw > e.folded
		cat e.folded
		at_least "$(count e.folded "$re")" 90 "$(total e.folded)"
	done
}

@test "aarch64 build-ids: the dump's buildids are those aarch64-linux-gnu-readelf -n reads" {
	command -v aarch64-linux-gnu-readelf > /dev/null ||
		skip "no aarch64-linux-gnu-readelf (Debian package binutils-aarch64-linux-gnu)"
	run --separate-stderr ztc -o d.raw ./dlopener
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	sed -n '/^buildids$/,/^threads$/p' d.raw > ids
	cat ids
	for f in ./dlopener ./libplugin.so "$SYSROOT/lib/libc.so.6" "$SYSROOT/lib/ld-linux-aarch64.so.1"; do
		id=$(aarch64-linux-gnu-readelf -n "$f" | sed -n 's/^ *Build ID: //p')
		echo "$f $id"
		[ -n "$id" ]
		# "ADDR @NS ID PATH", at the address its first mapping has
		addr=$(F=$(cd "$(dirname "$f")" && pwd)/$(basename "$f") awk \
			'$NF == ENVIRON["F"] && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' d.raw)
		[ -n "$addr" ]
		ID=$id A=$addr awk '$3 == ENVIRON["ID"] && $1 == ENVIRON["A"] { found = 1 }
			END { exit !found }' ids
	done
}

@test "aarch64: a stack deeper than 128 frames keeps its 128 leaf frames under a [depth limit] root; a shallow one reaches _start" {
	run --separate-stderr ztc -o d.raw ./deep 300
	echo "$stderr"
	[ "$status" -eq 0 ]
	fold d.raw > d.folded
	n=$(key d.raw samples)
	# No {127}: mawk before 20200731 takes braces as themselves.
	cut=$(count d.folded "^\\[depth limit\\]$(printf ';rec%.0s' $(seq 127));bottom\$")
	echo "samples $n cut at 128 $cut truncated $(key d.raw truncated) partial $(key d.raw partial)"
	at_least "$cut" 95 "$n"
	[ "$(key d.raw truncated)" -ge "$cut" ]
	[ "$(key d.raw partial)" -ge "$(key d.raw truncated)" ]
	[[ $stderr == *"were cut at the depth limit (128 frames; --max-depth); they show [depth limit] at the root"* ]]
	# 50 deep: whole stacks, nothing marked.
	run --separate-stderr ztc -o s.raw ./deep 50
	[ "$status" -eq 0 ]
	fold s.raw > s.folded
	whole_stacks=$(count s.folded "^$ROOT$(printf ';rec%.0s' $(seq 51));bottom\$")
	echo "samples $(key s.raw samples) whole $whole_stacks"
	at_least "$whole_stacks" 95 "$(key s.raw samples)"
	[ "$(key s.raw truncated)" -eq 0 ]
	[ "$(count s.folded truncated)" -eq 0 ]
}

@test "aarch64: a daemon that closes every descriptor (close, closefrom, a raw close_range) keeps its log to itself and is still sampled" {
	for m in close closefrom raw; do
		rm -f log d.raw
		run --separate-stderr ztc -o d.raw ./daemon log "$m" 200
		echo "$m: $stderr"
		[ "$status" -eq 0 ]
		[ "$(cat log)" = "$(printf 'daemon log\ndaemon log')" ]
		whole d.raw
		n=$(key d.raw samples)
		echo "$m: $n samples"
		[ "$n" -ge 100 ]
		[ "$(line_samples d.raw)" = "$n" ]
	done
	# raw: the dump's descriptor was closed under it and its number reused.
	grep -qx 'dump-reopened 1' d.raw
	[[ $stderr == *"zt reopened its file and lost nothing"* ]]
}

@test "aarch64: a symlink planted at the temporary name is not written through" {
	echo precious > target
	# The program's pid is the shell's ($$ survives exec, and qemu runs the
	# aarch64 program in the process binfmt_misc gave it).
	run a64 sh -c 'ln -s target "x.raw.tmp.$$" && exec env LD_PRELOAD="$1" ZT_OUT="$PWD/x.raw" \
		ZT_PID="$$" ZT_HZ=997 ./spin 5' sh "$X/collect/libzt-prof.so"
	[ "$status" -eq 0 ]
	[ "$(cat target)" = precious ]
	[ -L x.raw.tmp.* ]
	[ ! -e x.raw ]
}

@test "aarch64: a thread name cannot forge samples, and control characters never reach the output raw" {
	run --separate-stderr ztc -o t.raw ./tname
	[ "$status" -eq 0 ]
	n=$(key t.raw samples)
	echo "samples $n"
	[ "$n" -ge 50 ]
	[ "$(line_samples t.raw)" = "$n" ]
	grep -q '\\033\[2J;x\\007' t.raw
	zt-symbolize t.raw > t.sym 2> /dev/null
	! grep -q $'\033' t.sym
	! grep -q $'\a' t.sym
	grep -q '^\\033\[2J\\073x\\007 ' t.sym
	zt-fold t.sym > t.folded
	[ "$(total t.folded)" = "$n" ]
	grep -q ';main;spin_here ' t.folded
}
