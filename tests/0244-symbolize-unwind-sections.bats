#!/usr/bin/env bats
# .eh_frame and .eh_frame_hdr of section type SHT_X86_64_UNWIND: what
# clang's assembler gives .eh_frame and GNU gold keeps for both sections,
# as in Debian's libLLVM-14, libclang-cpp and clang (readelf -SW; their
# .note.gnu.gold-version says gold linked them). A stripped library linked
# so, without frame pointers, is unwound through to main and its functions
# named by their FDEs, as the same library linked by ld.bfd is.

load helper

setup_file() {
	[ "$(uname -m)" = x86_64 ] || return 0
	command -v clang > /dev/null || return 0
	cd "$BATS_FILE_TMPDIR"
	cat > lib.c <<'EOT'
volatile unsigned long sink;
__attribute__((noinline, visibility("hidden"))) unsigned long unw_leaf(unsigned long n)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	return x;
}
__attribute__((noinline, visibility("hidden"))) unsigned long unw_middle(unsigned long n)
{
	unsigned long r = unw_leaf(n) + 1;
	sink = r;
	return r * 3;
}
unsigned long unw_entry(unsigned long n)
{
	return unw_middle(n) + 1;
}
EOT
	cat > main.c <<'EOT'
#include <stdlib.h>
unsigned long unw_entry(unsigned long n);
__attribute__((noinline)) unsigned long caller(unsigned long n) { return unw_entry(n) + 1; }
int main(int argc, char **argv)
{
	unsigned long s = 0, k = strtoul(argv[1], 0, 10);
	for (unsigned long i = 0; i < k; i++)
		s += caller(1000000);
	return (int)(s & 1);
}
EOT
	for ld in gold bfd; do
		mkdir -p "$ld"
		clang -O2 -fomit-frame-pointer -shared -fPIC -fuse-ld=$ld -nostartfiles \
			-o "$ld/libunw.so" lib.c
		# The FDEs' starts, from the unstripped copy's symbols.
		nm "$ld/libunw.so" | awk '$3 == "unw_leaf" || $3 == "unw_middle" { print $3, $1 }' \
			> "$ld/syms"
		strip --strip-all "$ld/libunw.so"
		gcc -O2 -fomit-frame-pointer -o "$ld/main" main.c -L"$ld" -lunw -Wl,-rpath,'$ORIGIN'
	done
}

setup() {
	[ "$(uname -m)" = x86_64 ] || skip "SHT_X86_64_UNWIND is x86-64's"
	command -v clang > /dev/null || skip "clang is not installed"
	cd "$BATS_FILE_TMPDIR"
}

# The stack every sample in the library must have, root to leaf, in $1/.
want_stack() {
	leaf=$(awk '$1 == "unw_leaf" { sub(/^0*/, "", $2); print $2 }' "$1/syms")
	middle=$(awk '$1 == "unw_middle" { sub(/^0*/, "", $2); print $2 }' "$1/syms")
	echo "main;_start;__libc_start_main;__libc_start_call_main;main;caller;unw_entry;[libunw.so+0x$middle];[libunw.so+0x$leaf]"
}

@test "gold keeps clang's SHT_X86_64_UNWIND for .eh_frame and .eh_frame_hdr (readelf)" {
	run readelf -SW gold/libunw.so
	printf '%s\n' "$output" | grep eh_frame
	assert_line --regexp '\.eh_frame +X86_64_UNWIND '
	assert_line --regexp '\.eh_frame_hdr +X86_64_UNWIND '
	run readelf -SW bfd/libunw.so
	assert_line --regexp '\.eh_frame_hdr +PROGBITS '
}

@test "a gold-linked library with X86_64_UNWIND sections is unwound to main and named by its FDEs, as ld.bfd's" {
	for ld in gold bfd; do
		zt-collect -o "$ld/run.raw" "$ld/main" 400 2> "$ld/collect.err"
		run --separate-stderr zt-fold "$ld/run.raw"
		echo "$ld: status $status; stderr: $stderr"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" > "$ld/folded"
		# No warning that the library has no .eh_frame.
		[[ "$stderr" != *"no .eh_frame"* ]]
		want=$(want_stack "$ld")
		total=$(awk '{ n += $NF } END { print n + 0 }' "$ld/folded")
		whole=$(W="$want" awk 'substr($0, 1, length(ENVIRON["W"]) + 1) == ENVIRON["W"] " " \
			{ n += $NF } END { print n + 0 }' "$ld/folded")
		echo "$ld: $whole of $total samples have the stack $want"
		head -5 "$ld/folded"
		# The leaf takes nearly all the time; a few samples land in main,
		# caller, unw_entry or the loader.
		[ "$total" -ge 100 ]
		[ $((whole * 100)) -ge $((total * 90)) ]
	done
}
