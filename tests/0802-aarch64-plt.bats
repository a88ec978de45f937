#!/usr/bin/env bats
# aarch64 code without CFI, and ld.so's lazy binder (collect/unwind.c's
# leaf rule, arch-aarch64.h's zt_arch_leaf_at), under qemu-user as
# tests/0800 runs it. samples/plt's hot loop calls libpltlib.so's plt_tiny
# through its PLT entry (the linker writes no CFI for .plt on aarch64: the
# caller is in x30) and nocfi, a function without CFI (a sample at its first
# instruction has its caller in x30). With LD_BIND_NOT=1 every call goes
# through PLT0 (16 bytes pushed) and glibc's _dl_runtime_resolve, whose CFI
# counts PLT0's push as the caller's (CFA = sp at entry, x30 at CFA + 8).
# Every stack must reach _start, none partial.

load helper

X="$ZT_TOP/build/aarch64-linux-gnu"
SYSROOT=/usr/aarch64-linux-gnu
ROOT='_start;__libc_start_main;[^;]+;main'

setup() {
	command -v qemu-aarch64 > /dev/null ||
		skip "qemu-aarch64 is not installed (Debian package qemu-user)"
	[ -f "$SYSROOT/lib/libc.so.6" ] ||
		skip "no aarch64 libc in $SYSROOT (Debian package libc6-dev-arm64-cross)"
	[ -f "$X/collect/libzt-prof.so" ] ||
		skip "no aarch64 build in build/aarch64-linux-gnu: make CROSS=aarch64-linux-gnu- (Debian package gcc-aarch64-linux-gnu)"
	cd "$BATS_TEST_TMPDIR"
}

# a64 OUT [QEMU-OPTION...] -- PROGRAM [ARG...], as tests/0800's: OUT.raw,
# OUT.out, OUT.sym (zt-symbolize's stream) and OUT.folded.
a64() {
	local out=$1 q=()
	shift
	while [ "$1" != -- ]; do
		q+=("$1")
		shift
	done
	shift
	ZT_OUT="$PWD/$out.raw" ZT_HZ=997 sh -c 'ZT_PID=$$ exec "$@"' sh qemu-aarch64 "${q[@]}" \
		-L "$SYSROOT" -E LD_PRELOAD="$X/collect/libzt-prof.so" \
		-E LD_LIBRARY_PATH="$X/sysroot/lib/aarch64-linux-gnu" "$@" > "$out.out"
	zt-symbolize "$out.raw" 2> /dev/null > "$out.sym"
	zt-fold < "$out.sym" | sed 's/^[^;]*;//' > "$out.folded"
}

count() {
	RE=$2 awk '{ n = $NF; $NF = ""; sub(/ $/, ""); if ($0 ~ ENVIRON["RE"]) s += n }
		END { print s + 0 }' "$1"
}

total() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

partial() {
	sed -n 's/^partial //p' "$1"
}

@test "aarch64 samples in a PLT entry and at the entry of a function without CFI take their caller from x30" {
	# About 1,000 samples: the 4-instruction stub gets a few percent of
	# them (qemu delivers a signal at the start of a translated block); at
	# 100 rounds (about 250) a run once had none in it.
	a64 p -- "$X/samples/plt" 400
	cat p.folded
	[ "$(cat p.out)" = done ]
	all=$(total p.folded)
	stub=$(count p.folded "^$ROOT;calls;plt_tiny@plt\$")
	entry=$(count p.folded "^$ROOT;calls;nocfi\$")
	echo "all $all in plt_tiny@plt $stub in nocfi $entry partial $(partial p.raw)"
	[ "$(partial p.raw)" -eq 0 ]
	[ "$(count p.folded '\[truncated\]')" -eq 0 ]
	[ "$stub" -ge 1 ]
	[ "$entry" -ge 1 ]
	# Every stack through calls is main's.
	[ "$(count p.folded ';calls(;|$)')" -eq "$(count p.folded "^$ROOT;calls(;|\$)")" ]
}

@test "aarch64 LD_BIND_NOT=1: stacks in PLT0 and in ld.so's lazy binder reach main through the caller" {
	a64 b -E LD_BIND_NOT=1 -- "$X/samples/plt" 20
	cat b.folded
	[ "$(cat b.out)" = done ]
	all=$(total b.folded)
	binder=$(count b.folded "^$ROOT;calls;\\[ld-linux-aarch64\\.so\\.1\\+0x[0-9a-f]+\\]")
	plt0=$(count b.folded "^$ROOT;calls;\\[plt\\]\$")
	echo "all $all in the binder $binder in PLT0 $plt0 partial $(partial b.raw)"
	[ "$(partial b.raw)" -eq 0 ]
	[ "$(count b.folded '\[truncated\]')" -eq 0 ]
	# Most of the time is in the binder (about 85% in two runs).
	[ "$binder" -ge $((all / 2)) ]
	[ "$plt0" -ge 1 ]
}
