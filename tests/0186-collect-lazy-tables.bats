#!/usr/bin/env bats
# Tables that cost nothing on big programs (issue 18, item 4): an object
# with many FDEs (here 20,007, over ZT_CFI_LAZY_FDES, 4,096) is not compiled at
# start; its rows are found in its CFI by the handler when a sample first
# lands in it. Its start cost is counted, not timed: with the object loaded
# and never sampled, the collector holds exactly the rows it holds without
# it, and the bytes of one lazy table's cache, far less than the object's
# compiled rows would take (cfidump). Stacks through it are whole, and its
# rejected FDE is counted once and makes its stacks partial, as a compiled
# table's does (tests/0168).

load helper

key() { sed -n "s/^$2 //p" "$1"; }

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# The hot chain, without frame pointers: only CFI finds its callers.
	cat > hot.c <<'EOF'
volatile double zt_sink;

__attribute__((noinline)) double zt_leaf(double x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

__attribute__((noinline)) double zt_mid(double x)
{
	double y = zt_leaf(x);

	zt_sink = y;
	return y + 1;
}

__attribute__((noinline)) double zt_hot(double x)
{
	double y = zt_mid(x);

	zt_sink = y;
	return y + 2;
}

__attribute__((noinline)) double zt_badleaf(double x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 1.0000001 + 0.25;
	return x;
}

__attribute__((noinline)) double zt_bad(double x)
{
	double y = zt_badleaf(x);

	zt_sink = y;
	return y + 3;
}
EOF
	cat > main.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) static double own(double x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 1.0000001 + 0.75;
	return x;
}

/*
 * main LIB|none idle|hot|bad: 0.3 s of CPU time in main's own loop, or in
 * LIB; main LIB storm: LIB opened, run a little and closed, 300 times.
 */
int main(int argc, char **argv)
{
	double (*fn)(double) = NULL;
	void *h = NULL;

	if (argc != 3)
		return 2;
	if (strcmp(argv[2], "storm") == 0) {
		for (int i = 0; i < 300; i++) {
			if (!(h = dlopen(argv[1], RTLD_NOW)) ||
			    !(fn = (double (*)(double))dlsym(h, "zt_hot")))
				return 1;
			for (int j = 0; j < 20; j++)
				sink = fn(sink);
			dlclose(h);
		}
		printf("done\n");
		return 0;
	}
	if (strcmp(argv[1], "none") != 0 && !(h = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (strcmp(argv[2], "idle") != 0 &&
	    !(fn = (double (*)(double))dlsym(h, strcmp(argv[2], "hot") == 0 ? "zt_hot" : "zt_bad")))
		return 1;
	while (clock() < CLOCKS_PER_SEC * 3 / 10)
		sink = fn ? fn(sink) : own(sink);
	printf("done\n");
	return 0;
}
EOF
	# 20,000 small functions with CFI that nothing calls.
	awk 'BEGIN {
		print "\t.text"
		for (i = 0; i < 20000; i++) {
			printf "\t.globl zt_gen_%d\n\t.type zt_gen_%d, @function\nzt_gen_%d:\n", i, i, i
			print "\t.cfi_startproc\n\tpushq %rbx\n\t.cfi_def_cfa_offset 16"
			print "\t.cfi_offset rbx, -16\n\tpopq %rbx\n\t.cfi_def_cfa_offset 8\n\tret\n\t.cfi_endproc"
		}
		print "\t.section .note.GNU-stack,\"\",@progbits"
	}' > gen.s
	gcc -O2 -fomit-frame-pointer -fPIC -shared -o libbig.so hot.c gen.s
	# Its zt_badleaf's FDE claims 2 GiB, as samples/libfdelib.so's lib_bad does.
	"$ZT_TOP/tests/patchfde" libbig.so libbad.so \
		"$(nm libbig.so | sed -n 's/^\([0-9a-f]*\) T zt_badleaf$/\1/p')" 7ffff000
	gcc -O2 -o main main.c
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "libbig.so is big enough to be lazy: over 20,000 FDEs, 60,000 rows once compiled" {
	run "$ZT_TOP/tests/cfidump" libbig.so
	assert_success
	assert_line --index 0 --regexp '^# fdes 2000[0-9] skipped 0 bad_rows 0 rows 6[0-9]{4}$'
	# The lazy lookup agrees with the compiled rows at every row.
	run "$ZT_TOP/tests/cfidump" --lazy libbig.so
	assert_success
	assert_output --regexp '^lazy checked [0-9]{6,} differ 0 '
}

@test "a big object loaded and never sampled adds no rows, and a cache instead of its compiled rows" {
	run --separate-stderr zt-collect -o none.raw ./main none idle
	assert_success
	run --separate-stderr zt-collect -o idle.raw ./main ./libbig.so idle
	assert_success
	assert_output done
	grep '^cfi' none.raw idle.raw
	[ "$(key idle.raw cfi-objects)" -eq $(($(key none.raw cfi-objects) + 1)) ]
	# The same rows: libbig.so's 60,000 are not compiled.
	[ "$(key idle.raw cfi-rows)" -eq "$(key none.raw cfi-rows)" ]
	[ "$(key none.raw cfi-lazy)" -eq 0 ]
	[ "$(key idle.raw cfi-lazy)" -eq 1 ]
	# Its bytes: the cache, under a third of the 16-byte rows compiling would map.
	rows=$("$ZT_TOP/tests/cfidump" libbig.so | sed -n 's/^# .* rows //p')
	more=$(($(key idle.raw cfi-bytes) - $(key none.raw cfi-bytes)))
	echo "more $more, compiled $((rows * 16))"
	[ "$more" -gt 0 ] && [ $((more * 3)) -lt $((rows * 16)) ]
}

@test "stacks through a lazily read object are whole, which frame pointers alone cannot give" {
	run --separate-stderr zt-collect -o hot.raw ./main ./libbig.so hot
	assert_success
	[ "$(key hot.raw cfi-lazy)" -eq 1 ]
	zt-symbolize hot.raw | zt-fold > hot.folded
	cat hot.folded
	chain='main;_start;__libc_start_main;__libc_start_call_main;main;zt_hot;zt_mid;zt_leaf'
	leaf=$(awk '$1 ~ /;zt_leaf$/ { n += $2 } END { print n + 0 }' hot.folded)
	whole=$(awk -v s="$chain" '$1 == s { print $2 }' hot.folded)
	echo "leaf $leaf whole $whole partial $(key hot.raw partial)"
	[ "$leaf" -ge 100 ] && [ "${whole:-0}" -eq "$leaf" ]
	[ "$(key hot.raw partial)" -le 1 ]
	# Without CFI the chain is lost: the test needs the lazy rows.
	zt-collect --unwind=fp -o fp.raw ./main ./libbig.so hot 2> /dev/null
	zt-symbolize fp.raw | zt-fold > fp.folded
	run awk -v s="$chain" '$1 == s { print $2 }' fp.folded
	assert_output ''
}

@test "a rejected FDE in a lazily read object is counted once, and its stacks are partial" {
	run --separate-stderr zt-collect -o none.raw ./main none idle
	assert_success
	run --separate-stderr zt-collect -o bad.raw ./main ./libbad.so bad
	assert_success
	[ "$(key bad.raw cfi-lazy)" -eq 1 ]
	# Hundreds of samples in it, one FDE rejected.
	[ "$(key bad.raw cfi-skipped)" -eq $(($(key none.raw cfi-skipped) + 1)) ]
	zt-symbolize bad.raw | zt-fold > bad.folded
	cat bad.folded
	bad=$(awk '$1 ~ /;zt_badleaf$/ { n += $2 } END { print n + 0 }' bad.folded)
	partial=$(awk '$1 ~ /^main;\[truncated\];.*zt_badleaf$/ { n += $2 } END { print n + 0 }' bad.folded)
	echo "bad $bad partial $partial"
	[ "$bad" -ge 100 ] && [ "$partial" -eq "$bad" ]
}

@test "a lazily read object opened and closed 300 times while sampled at 4000 Hz: whole stacks, the program's own output" {
	run --separate-stderr zt-collect -F 4000 -o storm.raw ./main ./libbig.so storm
	assert_success
	assert_output done
	[ "$(key storm.raw cfi-lazy)" -eq 0 ]	# closed at the end
	zt-symbolize storm.raw | zt-fold > storm.folded
	chain='main;_start;__libc_start_main;__libc_start_call_main;main;zt_hot;zt_mid;zt_leaf'
	leaf=$(awk '$1 ~ /;zt_leaf$/ { n += $2 } END { print n + 0 }' storm.folded)
	whole=$(awk -v s="$chain" '$1 == s { print $2 }' storm.folded)
	echo "leaf $leaf whole $whole"; cat storm.folded
	# A sample while a dlclose may unmap it reads no CFI (only the cache).
	[ "$leaf" -ge 50 ] && [ $((${whole:-0} * 100)) -ge $((leaf * 95)) ]
}
