#!/usr/bin/env bats
# The collector on aarch64, cross-built (make CROSS=aarch64-linux-gnu-) and
# run here under Debian's qemu-user. Each program runs as zt-collect runs
# it: the aarch64 libzt-prof.so preloaded (qemu-aarch64 -E LD_PRELOAD) and
# zt-collect's environment (ZT_OUT, ZT_HZ, ZT_PID: qemu-user's pid is the
# guest's). qemu-user 7.2 has no perf_event_open, so the POSIX CPU timer
# samples (at most 250/s on this HZ=250 kernel). The dumps are symbolized
# here, on x86-64, by the host's zt-symbolize: qemu's maps name the host's
# files (the sysroot's libc under /usr/aarch64-linux-gnu). The collector's
# libz.so.1 is Debian's arm64 zlib, unpacked by the cross build into
# build/aarch64-linux-gnu/sysroot (an aarch64 Debian has it in /lib).

load helper

X="$ZT_TOP/build/aarch64-linux-gnu"
SYSROOT=/usr/aarch64-linux-gnu

setup() {
	command -v qemu-aarch64 > /dev/null ||
		skip "qemu-aarch64 is not installed (Debian package qemu-user)"
	[ -f "$SYSROOT/lib/libc.so.6" ] ||
		skip "no aarch64 libc in $SYSROOT (Debian package libc6-dev-arm64-cross)"
	[ -f "$X/collect/libzt-prof.so" ] && [ -x "$X/samples/spin" ] ||
		skip "no aarch64 build in build/aarch64-linux-gnu: make CROSS=aarch64-linux-gnu- (Debian package gcc-aarch64-linux-gnu)"
	cd "$BATS_TEST_TMPDIR"
}

# a64 OUT [QEMU-OPTION...] -- PROGRAM [ARG...]: run PROGRAM under qemu with
# zt; leaves OUT.raw, OUT.out (its stdout), OUT.status and OUT.folded
# (without the program's name in front).
a64() {
	local out=$1 q=()
	shift
	while [ "$1" != -- ]; do
		q+=("$1")
		shift
	done
	shift
	local status=0
	ZT_OUT="$PWD/$out.raw" ZT_HZ=997 sh -c 'ZT_PID=$$ exec "$@"' sh qemu-aarch64 "${q[@]}" \
		-L "$SYSROOT" -E LD_PRELOAD="$X/collect/libzt-prof.so" \
		-E LD_LIBRARY_PATH="$X/sysroot/lib/aarch64-linux-gnu" "$@" > "$out.out" || status=$?
	echo "$status" > "$out.status"
	zt-symbolize "$out.raw" 2> "$out.symerr" | zt-fold | sed 's/^[^;]*;//' > "$out.folded"
}

# Samples in folded file $1 whose stack matches the extended regex $2 (passed
# through the environment, never awk -v).
count() {
	RE=$2 awk '{ n = $NF; $NF = ""; sub(/ $/, ""); if ($0 ~ ENVIRON["RE"]) s += n }
		END { print s + 0 }' "$1"
}

total() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

# No partial stack: a sample in a PLT stub or at _fini's first instruction
# (no CFI there) takes its caller from x30 (tests/0802).
no_partial() {
	RAW=$1 awk '$1 == "partial" { p = $2 } $1 == "samples" && NF == 2 { n = $2 }
		END { print "partial", p + 0, "of", n + 0; exit !(p + 0 == 0) }' "$1"
}

at_least() {
	awk -v a="$1" -v b="$3" -v p="$2" 'BEGIN { exit !(b > 0 && a * 100 >= b * p) }'
}

# The main thread's frames down to main: glibc's __libc_start_call_main has
# no symbol in the cross libc (no debug file), so it is [libc.so.6+0x...].
ROOT='_start;__libc_start_main;[^;]+;main'

@test "aarch64 spin: hot_a 3 : hot_b 1 with whole stacks from _start, on the POSIX timer" {
	qemu-aarch64 -L "$SYSROOT" "$X/samples/spin" 20 > bare.out
	a64 s -- "$X/samples/spin" 20
	cat s.folded
	[ "$(cat s.status)" -eq 0 ]
	cmp bare.out s.out
	grep -qx 'arch aarch64' s.raw
	grep -qx 'timer posix-cpu' s.raw
	no_partial s.raw
	all=$(total s.folded)
	a=$(count s.folded "^$ROOT;work;hot_a\$")
	b=$(count s.folded "^$ROOT;work;hot_b\$")
	echo "all $all hot_a $a hot_b $b"
	[ "$all" -ge 100 ]
	at_least $((a + b)) 95 "$all"
	# 3 : 1, within sampling error (a share of 0.75 +- 0.1 at 100+ samples).
	at_least "$a" 65 $((a + b))
	at_least "$b" 15 $((a + b))
}

@test "aarch64 -O2 -fomit-frame-pointer: the true callers, through CFI" {
	a64 o -- "$X/samples/omitfp" 20
	cat o.folded
	no_partial o.raw
	all=$(total o.folded)
	x=$(count o.folded "^$ROOT;outer_a;mid;leaf_x\$")
	y=$(count o.folded "^$ROOT;outer_b;mid;leaf_y\$")
	z=$(count o.folded "^$ROOT;with_vla;chain1;chain2;chain3;leaf_z\$")
	echo "all $all leaf_x $x leaf_y $y leaf_z $z"
	[ "$all" -ge 40 ]
	at_least $((x + y + z)) 90 "$all"
	[ "$x" -gt 0 ] && [ "$y" -gt 0 ] && [ "$z" -gt 0 ]
}

@test "aarch64 -mbranch-protection=pac-ret under -cpu max: signed return addresses are stripped, stacks whole" {
	if command -v aarch64-linux-gnu-objdump > /dev/null; then
		# The build signs: paciasp in its prologues, negate_ra_state in its CFI.
		aarch64-linux-gnu-objdump -d "$X/samples/spin-pac" | grep -q paciasp
		aarch64-linux-gnu-readelf --debug-dump=frames "$X/samples/spin-pac" |
			grep -q DW_CFA_AARCH64_negate_ra_state
	fi
	a64 p -cpu max -- "$X/samples/spin-pac" 20
	cat p.folded
	no_partial p.raw
	all=$(total p.folded)
	good=$(count p.folded "^$ROOT;work;hot_[ab]\$")
	echo "all $all whole $good"
	[ "$all" -ge 100 ]
	at_least "$good" 95 "$all"
	# No address in the dump keeps a pointer-authentication code (bits 48 up).
	none=$(awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
		s { for (i = 3; i <= NF; i++) if ($i !~ /^[@=-]/ && length($i) > 12) n++ } END { print n + 0 }' p.raw)
	[ "$none" -eq 0 ]
}

@test "aarch64 threads: every worker sampled on its own CPU time, stacks from its start" {
	a64 t -- "$X/samples/threads"
	cat t.folded
	no_partial t.raw
	all=$(total t.folded)
	w=$(count t.folded '^[^;]+;[^;]+;worker;burn$')
	echo "all $all workers $w"
	at_least "$w" 90 "$all"
	# Four threads besides main took samples (main, which only starts and
	# joins them, may take none: a suite run with mawk once had it so).
	[ "$(awk '$1 == "pid" && NF == 2 { pid = $2 } /^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
		s && $1 != pid { print $1 }' t.raw | sort -u | wc -l)" -ge 4 ]
}

@test "aarch64 signal handler: stacks go through the handler and the trampoline into the interrupted code" {
	# Bound lazily: a signal during a first call through the PLT leaves the
	# handler's stack in ld.so's lazy binder, which is followed too.
	a64 g -- "$X/samples/sigframe"
	cat g.folded
	[ "$(cat g.out)" = done ]
	handler=$(count g.folded 'on_alarm;handler_spin$')
	through=$(count g.folded "^$ROOT;interrupted_work;[^;]+;on_alarm;handler_spin\$")
	echo "in handler $handler through interrupted_work $through"
	# A known defect, not diagnosed: since zt's samples travel on a
	# real-time signal, under qemu-user none (or a few) land while the
	# program's SIGALRM handler runs (on x86-64, tests/0190, they do).
	[ "$handler" -ge 20 ] || skip "$handler samples in the handler under qemu-user (known defect, zt-collect(1) CAVEATS)"
	at_least "$through" 90 "$handler"
	no_partial g.raw
}

@test "aarch64 dlopen: the plugin's code is named from the snapshot taken when it was loaded" {
	a64 d -- "$X/samples/dlopener"
	cat d.folded
	[ "$(cat d.out)" = done ]
	# A known defect, not diagnosed (zt-collect(1)): under load, a sample in
	# the plugin's code the loader runs as it loads and unloads it, whose
	# first instructions have no CFI: once in 425 samples (load 695)
	# [truncated];[ld-linux-aarch64.so.1+0xf60];__cxa_finalize@plt, twice
	# in 560 (load 10, the suite run two files at a time) [truncated];_init.
	# Up to 1% of the samples (at least one), only there, is allowed.
	all=$(total d.folded)
	RAW=d.raw awk -v all="$all" '$1 == "partial" { p = $2 }
		END { print "partial", p + 0, "of", all; exit !(p + 0 <= 1 || p * 100 <= all) }' d.raw
	[ "$(count d.folded '^\[truncated\]')" -eq "$(count d.folded '^\[truncated\];([^;]*;)?(__cxa_finalize@plt|_init|_fini)$')" ]
	p=$(count d.folded "^$ROOT;plugin_work\$")
	echo "all $all plugin_work $p"
	at_least "$p" 50 "$all"
	[ "$(sed -n 's/^maps-snapshots //p' d.raw)" -ge 2 ]
}
