#!/usr/bin/env bats
# A stack that looks whole but is not (LuaJIT's one FDE for its interpreter
# is wrong for the math helpers inside it, and the return address read
# there is 0): a walk that ends anywhere but a known entry is partial, and
# a zero return address read mid-walk is a truncation, not an end. The
# program's zero_leaf has a synthetic FDE that lies: after two pushes of 0
# it says CFA = rsp + 16 (readelf), where the truth is rsp + 24 (objdump
# shows the pushes), so the return address it names is a pushed 0.

load helper

setup_file() {
	[ "$(uname -m)" = x86_64 ] || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > zerora.c <<'C'
#include <stdlib.h>
__asm__(
	".text\n"
	".globl zero_leaf\n"
	".type zero_leaf, @function\n"
	"zero_leaf:\n"
	"	.cfi_startproc\n"
	"	push $0\n"
	"	push $0\n"
	"	.cfi_def_cfa_offset 16\n"
	"	mov %rdi, %rax\n"
	"1:	imul $1103515245, %rax, %rax\n"
	"	add $12345, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	add $16, %rsp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size zero_leaf, .-zero_leaf\n");
unsigned long zero_leaf(unsigned long n);
__attribute__((noinline)) unsigned long caller(unsigned long n) { return zero_leaf(n) + 1; }
int main(int argc, char **argv)
{
	unsigned long s = 0, k = strtoul(argv[1], 0, 10);
	for (unsigned long i = 0; i < k; i++)
		s += caller(1000000);
	return (int)(s & 1);
}
C
	gcc -O1 -o zerora zerora.c
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "the FDE is x86-64's"
	cd "$BATS_FILE_TMPDIR"
}

@test "zero_leaf's FDE names a pushed 0 as its return address (readelf, objdump)" {
	start=$(nm zerora | awk '$3 == "zero_leaf" { sub(/^0*/, "", $1); print $1 }')
	# The row after the two pushes: CFA rsp+16, the return address at c-8.
	run readelf --debug-dump=frames-interp zerora
	rows=$(printf '%s\n' "$output" | awk -v s="pc=$(printf '%016x' 0x$start)" \
		'index($0, s) { on = 1; next } on && /^$/ { on = 0 } on')
	echo "rows of zero_leaf's FDE: $rows"
	[[ $rows == *"rsp+16   c-8"* ]]
	run objdump -d zerora
	pushes=$(printf '%s\n' "$output" | awk '/<zero_leaf>:/ { on = 1; next } on && /^$/ { on = 0 }
		on && /push +\$0x0/ { n++ } END { print n + 0 }')
	echo "pushes of 0 in zero_leaf: $pushes"
	[ "$pushes" = 2 ]
}

@test "a walk that reads a zero return address is partial: [truncated], not a whole stack" {
	zt-collect -o z.raw ./zerora 300 2> collect.err
	cat collect.err
	# The dump marks those stacks partial.
	lines=$(awk '/^samples/ { on = 1; next } /^[a-z]/ { on = 0 } on' z.raw | wc -l)
	partial=$(awk '/^samples/ { on = 1; next } /^[a-z]/ { on = 0 } on && / -$/' z.raw | wc -l)
	echo "$partial of $lines sample lines end in ' -'"
	run zt-fold z.raw
	printf '%s\n' "$output"
	total=$(printf '%s\n' "$output" | awk '{ n += $NF } END { print n + 0 }')
	leaf=$(printf '%s\n' "$output" | awk '$1 ~ /;zero_leaf$/ { n += $NF } END { print n + 0 }')
	cut=$(printf '%s\n' "$output" | awk '$1 == "zerora;[truncated];zero_leaf" { n += $NF } END { print n + 0 }')
	echo "$leaf of $total samples in zero_leaf; $cut of them shown cut short"
	[ "$total" -ge 100 ]
	[ $((leaf * 100)) -ge $((total * 90)) ]
	# Every one of them is cut short; none looks like a whole stack.
	[ "$cut" = "$leaf" ]
	grep -q "could not be unwound to the thread's entry" collect.err
}
