#!/usr/bin/env bats
# The aarch64 zt-collect (make CROSS=aarch64-linux-gnu-) run as a user runs
# it on aarch64 hardware, `zt-collect ./prog`, here on x86-64: qemu-aarch64
# is registered with binfmt_misc inside a private user and mount namespace
# only (unshare --user --map-root-user --mount; Linux 6.7 and later give such
# a namespace its own binfmt_misc), so the aarch64 launcher's execve of an
# aarch64 program runs it under qemu as the kernel runs it on real hardware.
# The machine's own binfmt_misc is never touched. QEMU_LD_PREFIX names
# Debian's cross libc, LD_LIBRARY_PATH the build's arm64 zlib (the
# launcher's and the collector's libz.so.1, which an aarch64 Debian has in
# /lib). The host's qemu-aarch64, itself a dynamically linked x86-64
# program, inherits the program's LD_PRELOAD and says its ld.so cannot load
# the aarch64 libzt-prof.so: that line is qemu's, on the program's stderr.

load helper

X="$ZT_TOP/build/aarch64-linux-gnu"
SYSROOT=/usr/aarch64-linux-gnu
ROOT='_start;__libc_start_main;[^;]+;main'

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	QEMU=$(command -v qemu-aarch64) || return 0
	# inns CMD...: CMD in the namespace, qemu-aarch64 registered there.
	cat > inns <<EOF
#!/bin/sh
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 97
printf '%s' ':qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$QEMU:POC' \\
	> /proc/sys/fs/binfmt_misc/register || exit 98
QEMU_LD_PREFIX=$SYSROOT LD_LIBRARY_PATH=$X/sysroot/lib/aarch64-linux-gnu exec "\$@"
EOF
	chmod +x inns
	ls /proc/sys/fs/binfmt_misc > host.before 2>&1
	# status N ends with status N, status kill by SIGTERM.
	printf '%s\n' '#include <signal.h>' '#include <stdlib.h>' \
		'int main(int c, char **v) { if (v[1][0] == 107) raise(SIGTERM); return atoi(v[1]); }' > status.c
	! command -v aarch64-linux-gnu-gcc > /dev/null || aarch64-linux-gnu-gcc -o status status.c
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
	[ -f "$X/collect/libzt-prof.so" ] ||
		skip "no aarch64 build in build/aarch64-linux-gnu: make CROSS=aarch64-linux-gnu- (Debian package gcc-aarch64-linux-gnu)"
	[ ! -e "$BATS_FILE_TMPDIR/noreason" ] || skip "$(cat "$BATS_FILE_TMPDIR/noreason")"
	cd "$BATS_TEST_TMPDIR"
	cp "$X/samples/spin" "$X/samples/threads" .
}

# a64 CMD...: CMD (the aarch64 zt-collect or a program) with aarch64 programs
# run by the kernel through qemu.
a64() {
	unshare --user --map-root-user --mount "$BATS_FILE_TMPDIR/inns" "$@"
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

@test "aarch64 zt-collect ./spin, exec'd through binfmt_misc: 3:1 with whole stacks, the summary from the aarch64 launcher" {
	[ -x "$X/collect/zt-collect" ]
	file=$(od -An -tx1 -j18 -N2 "$X/collect/zt-collect" | tr -d ' ')
	[ "$file" = b700 ]	# e_machine EM_AARCH64: the launcher is aarch64's
	a64 ./spin 20 > bare.out
	run --separate-stderr a64 "$X/collect/zt-collect" -o s.raw ./spin 20
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat bare.out)" ]
	[[ $stderr == *"zt-collect: "*" samples in "*"timer posix-cpu"*"wrote '$PWD/s.raw'"* ]]
	grep -qx 'arch aarch64' s.raw
	grep -qx "exe $PWD/spin" s.raw
	zt-symbolize s.raw 2> /dev/null | zt-fold | sed 's/^[^;]*;//' > s.folded
	cat s.folded
	all=$(total s.folded)
	a=$(count s.folded "^$ROOT;work;hot_a\$")
	b=$(count s.folded "^$ROOT;work;hot_b\$")
	echo "all $all hot_a $a hot_b $b"
	[ "$all" -ge 100 ]
	at_least $((a + b)) 95 "$all"
	at_least "$a" 65 $((a + b))
	at_least "$b" 15 $((a + b))
	# The machine's own binfmt_misc is as it was: no qemu handler from here.
	ls /proc/sys/fs/binfmt_misc 2>&1 | cmp - "$BATS_FILE_TMPDIR/host.before"
}

@test "aarch64 zt-collect -z: a gzip dump written with the arm64 zlib, read on x86-64" {
	run --separate-stderr a64 "$X/collect/zt-collect" -z -o t.raw.gz ./threads
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ $stderr != *gzip-failed* ]]
	[ "$(od -An -tx1 -N2 t.raw.gz | tr -d ' ')" = 1f8b ]
	gzip -t t.raw.gz
	gzip -dc t.raw.gz | grep -qx 'arch aarch64'
	zt-symbolize t.raw.gz 2> /dev/null | zt-fold | sed 's/^[^;]*;//' > t.folded
	cat t.folded
	all=$(total t.folded)
	w=$(count t.folded '^[^;]+;[^;]+;worker;burn$')
	echo "all $all workers $w"
	at_least "$w" 90 "$all"
}

@test "aarch64 zt-collect passes on the program's status, 128+N for its signal, 127 when it cannot run it" {
	cp "$BATS_FILE_TMPDIR/status" .
	run --separate-stderr a64 "$X/collect/zt-collect" -o e.raw ./status 3
	echo "$stderr"
	[ "$status" -eq 3 ]
	grep -qx 'arch aarch64' e.raw
	run --separate-stderr a64 "$X/collect/zt-collect" -o k.raw ./status k
	echo "$stderr"
	[ "$status" -eq 143 ]
	# The dump of a program killed by a signal is still written, and whole.
	grep -qx 'arch aarch64' k.raw
	grep -q '^cpu-ns ' k.raw
	run -127 --separate-stderr a64 "$X/collect/zt-collect" -o n.raw ./no-such-program
	echo "$stderr"
	[ "$status" -eq 127 ]
	[[ $stderr == *"'./no-such-program'"* ]]
	run -2 --separate-stderr a64 "$X/collect/zt-collect" -F 0 ./status 0
	[[ $stderr == "zt-collect: -F: '0' is not a frequency"* ]]
}
