#!/usr/bin/env bats
# STT_OBJECT symbols in a section of code name the code under them, as perf
# names it: GHC's info tables (stg_upd_frame_info, stg_ap_pv_info) are such
# symbols, with the code that follows each table. The program below runs its
# hot loop inside one, info_loop (`.type info_loop, @object`, sized, in
# .text); readelf says so, perf names the loop's addresses by it, and so must
# zt-symbolize (tests/perfnames.py, as in tests/0240).

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > objcode.c <<'C'
#include <stdlib.h>
__asm__(
	".text\n"
	".globl info_loop\n"
	".type info_loop, @object\n"
	"info_loop:\n"
	"	mov %rdi, %rax\n"
	"1:	imul $1103515245, %rax, %rax\n"
	"	add $12345, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".size info_loop, .-info_loop\n");
unsigned long info_loop(unsigned long n);
int main(int argc, char **argv)
{
	unsigned long s = 0, k = strtoul(argv[1], 0, 10);
	for (unsigned long i = 0; i < k; i++)
		s += info_loop(1000000);
	return (int)(s & 1);
}
C
	[ "$(uname -m)" = x86_64 ] || return 0
	gcc -O1 -fno-omit-frame-pointer -o objcode objcode.c
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "the loop is x86-64 assembly"
	cd "$BATS_FILE_TMPDIR"
}

@test "info_loop is an STT_OBJECT symbol with a size in .text (readelf)" {
	text=$(readelf -SW objcode | awk '$2 == ".text" { sub(/\]/, "", $1); sub(/\[/, "", $1); print $1 }')
	run readelf -sW objcode
	line=$(printf '%s\n' "$output" | awk '$8 == "info_loop"')
	echo "symbol: $line; .text is section $text"
	[ "$(echo "$line" | awk '{ print $4 }')" = OBJECT ]
	[ "$(echo "$line" | awk '{ print $3 }')" -gt 0 ]
	[ "$(echo "$line" | awk '{ print $7 }')" = "$text" ]
}

@test "code under an STT_OBJECT symbol in .text gets perf's name and offset" {
	command -v perf > /dev/null ||
		skip "perf is not installed (make deps installs linux-perf)"
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o p.data ./objcode 300
	perf script -i p.data --no-inline -F ip,sym,symoff,dso > p.perf
	# perf names the loop by the object: the oracle holds.
	perfnamed=$(grep -c ' info_loop+0x' p.perf || true)
	echo "frames perf names info_loop: $perfnamed"
	[ "$perfnamed" -ge 10 ]
	/usr/bin/python3 "$ZT_TOP/tests/perfnames.py" dump p.perf > p.raw
	zt-symbolize p.raw > p.sym
	run --separate-stderr /usr/bin/python3 "$ZT_TOP/tests/perfnames.py" compare p.perf p.sym
	printf '# %s\n' "${stderr_lines[@]}"
	printf '%s\n' "$output"
	assert_success
	assert_output ''
}

@test "a profile of the loop has info_loop as its leaf" {
	zt-collect -o z.raw ./objcode 300 2> /dev/null
	run zt-fold z.raw
	printf '%s\n' "$output"
	total=$(printf '%s\n' "$output" | awk '{ n += $NF } END { print n + 0 }')
	inloop=$(printf '%s\n' "$output" | awk '$1 ~ /;info_loop$/ { n += $NF } END { print n + 0 }')
	echo "$inloop of $total samples end in info_loop"
	[ "$total" -ge 100 ]
	[ $((inloop * 100)) -ge $((total * 90)) ]
}
