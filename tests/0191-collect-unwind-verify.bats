#!/usr/bin/env bats
# zt-collect --unwind=auto: no stack is presented as whole unless it is.
# A frame-pointer step through code without CFI is taken only when it checks
# out (zt-collect(1), UNWINDING): Debian's libgmp assembly, which has no
# .eh_frame entries and leaves rbp to its caller, and the frames of a C++
# exception's unwinder, which hold strings, must end as [truncated] rather
# than skip a caller or name a frame outside code. gdb is the oracle.

load helper

# gawk -M multiplies big numbers: __gmpz_mul calls __gmpn_mul_1 for a
# one-limb factor, at every step of the loop.
GMP_PROG='BEGIN { x = 1; for (i = 1; i <= 60000; i++) x *= i; print length(x) }'

# Samples in folded file $1 whose stack matches the extended regex $2 (through
# the environment: `awk -v` would process its backslashes first).
count() {
	RE=$2 awk '{ n = $NF; $NF = ""; sub(/ $/, ""); if ($0 ~ ENVIRON["RE"]) s += n }
		END { print s + 0 }' "$1"
}

total() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	g++ -O2 -o throwing "$SAMPLES/throwing.cc"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "gdb, the oracle: in gawk -M every stop in __gmpn_mul_1 has __gmpz_mul as its caller" {
	gdb -batch -nx -ex 'set debuginfod enabled off' -ex 'set breakpoint pending on' \
	    -ex 'break __gmpn_mul_1' -ex run -ex 'bt 2' -ex 'ignore 1 500' -ex continue \
	    -ex 'bt 2' -ex continue -ex 'bt 2' -ex continue -ex 'bt 2' -ex kill \
	    --args gawk -M "$GMP_PROG" > gdb.out 2>&1 || true
	grep '^#' gdb.out
	[ "$(grep -c '^#0 .* in __gmpn_mul_1 ' gdb.out)" = 4 ]
	[ "$(grep -c '^#1 .* in __gmpz_mul ' gdb.out)" = 4 ]
}

@test "gawk -M: every sample in __gmpn_mul_1 shows __gmpz_mul as its caller or a [truncated] root" {
	zt-collect -o g.raw gawk -M "$GMP_PROG" > g.out 2> g.err
	[ "$(cat g.out)" = 260635 ]
	zt-symbolize g.raw 2> /dev/null | zt-fold > g.folded
	grep '__gmpn_mul_1 [0-9]*$' g.folded
	in_mul=$(count g.folded ';__gmpn_mul_1$')
	good=$(count g.folded '(;__gmpz_mul;__gmpn_mul_1|^gawk;\[truncated\];.*__gmpn_mul_1)$')
	echo "$good of $in_mul samples in __gmpn_mul_1 have their caller or are marked"
	[ "$in_mul" -ge 30 ]
	[ "$good" = "$in_mul" ]
	# The partial stacks are counted on zt-collect's last line.
	grep -q '^zt-collect: note: [0-9]* of [0-9]* stacks .* could not be unwound' g.err
}

@test "a C++ exception thrown through three -O2 frames: no frame outside code, stacks still whole" {
	zt-collect -F 2000 -o t.raw "$BATS_FILE_TMPDIR/throwing" 100000 > t.out
	[ "$(cat t.out)" = 100000 ]
	zt-symbolize t.raw > t.sym 2> /dev/null
	# Every frame but the [truncated] root lies in a file's code.
	grep -P '^\t' t.sym | grep -v ' \[truncated\] (\[unknown\])$' > frames
	[ -s frames ]
	bad=$(grep -c -e '(\[unknown\])$' -e '(\[stack\])$' -e '(\[heap\])$' frames || true)
	grep -e '(\[unknown\])$' -e '(\[stack\])$' -e '(\[heap\])$' frames | head -5
	[ "$bad" = 0 ]
	zt-fold t.sym > t.folded
	all=$(total t.folded)
	whole=$(count t.folded '^throwing;_start;__libc_start_main[^;]*;__libc_start_call_main;main')
	echo "$whole of $all stacks reach _start"
	[ "$all" -ge 100 ]
	awk -v a="$whole" -v b="$all" 'BEGIN { exit !(a * 100 >= b * 95) }'
}
