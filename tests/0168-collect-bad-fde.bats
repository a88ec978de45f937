#!/usr/bin/env bats
# One object's bad unwind data spoils nothing else: an FDE of
# samples/libfdelib.so claims 2 GiB (patched in by tests/patchfde). It is
# rejected and counted, every other object keeps its table, and the stacks
# walked where its rule was missing are marked partial. (Issue 17, item 3.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

key() { sed -n "s/^$2 //p" "$1"; }

@test "cfidump: the patched FDE is rejected, the library's others kept" {
	run "$ZT_TOP/tests/cfidump" "$SAMPLES/libfdelib.so"
	assert_success
	assert_line --index 0 --regexp '^# fdes [1-9][0-9]* skipped 1 '
}

@test "an FDE claiming 2 GiB: rejected and counted, every other object's table kept" {
	run --separate-stderr zt-collect -o spin.raw "$SAMPLES/spin" 20
	assert_success
	run --separate-stderr zt-collect -o bad.raw "$SAMPLES/badfde"
	assert_success
	assert_output "$("$SAMPLES/badfde")"
	[ "$(key bad.raw cfi-skipped)" -ge 1 ]
	# The same objects as spin's (libc, ld.so, the vDSO, libzt...), and libfdelib.
	[ "$(key bad.raw cfi-objects)" -eq $(($(key spin.raw cfi-objects) + 1)) ]
}

@test "stacks through the rejected FDE are partial, the others complete" {
	zt-collect -o bad.raw "$SAMPLES/badfde" 2> err
	zt-symbolize bad.raw | zt-fold > bad.folded
	cat bad.folded
	root='badfde;_start;__libc_start_main;__libc_start_call_main;main'
	own=$(awk -v s="$root;own" '$1 == s { print $2 }' bad.folded)
	good=$(awk -v s="$root;lib_good" '$1 == s { print $2 }' bad.folded)
	bad=$(awk '$1 ~ /;lib_bad$/ { n += $2 } END { print n + 0 }' bad.folded)
	badpartial=$(awk '$1 ~ /^badfde;\[truncated\];.*;lib_bad$/ { n += $2 } END { print n + 0 }' bad.folded)
	echo "own $own good $good bad $bad partial $badpartial"
	[ "${own:-0}" -ge 40 ] && [ "${good:-0}" -ge 40 ] && [ "$bad" -ge 40 ]
	[ "$badpartial" -eq "$bad" ]
	[ "$(key bad.raw partial)" -eq "$bad" ]
}
