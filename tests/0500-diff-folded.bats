# 0500-diff-folded.bats — zt-diff's default output, difffolded.pl's format:
# `stack before after`, sorted; -n and -s as difffolded.pl has them.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	printf 'a;b 3\na;c 2\nx;0x12 1\n' > "$T/before"
	printf 'a;b 3\na;c 5\nx;0x13 2\nz 1\n' > "$T/after"
}

@test "diff prints every stack with both counts, merged in byte order" {
	run --separate-stderr zt-diff "$T/before" "$T/after"
	assert_success
	assert_output "a;b 3 3
a;c 2 5
x;0x12 1 0
x;0x13 0 2
z 0 1"
	[ -z "$stderr" ]
}

@test "diff sorts an unsorted input first, summing repeated stacks" {
	printf 'z 1\na;c 4\na;b 3\na;c 1\n' > "$T/after2"
	run zt-diff "$T/before" "$T/after2"
	assert_success
	assert_output "a;b 3 3
a;c 2 5
x;0x12 1 0
z 0 1"
}

@test "diff -n scales the first profile's counts to the second's total, rounding down" {
	run zt-diff -n "$T/before" "$T/after"
	assert_success
	assert_output "a;b 5 3
a;c 3 5
x;0x12 1 0
x;0x13 0 2
z 0 1"
}

@test "diff -s strips hex addresses so that the stacks meet" {
	run zt-diff -s "$T/before" "$T/after"
	assert_success
	assert_output "a;b 3 3
a;c 2 5
x;0x... 1 2
z 0 1"
}

@test "diff reads one of the profiles from stdin" {
	run zt-diff - "$T/after" < "$T/before"
	assert_success
	assert_line --index 0 "a;b 3 3"
	assert_line --index 4 "z 0 1"
}

@test "diff reads gzip-compressed profiles" {
	gzip -c "$T/before" > "$T/before.gz"
	run zt-diff "$T/before.gz" "$T/after"
	assert_success
	assert_line --index 1 "a;c 2 5"
}

@test "diff skips comment lines" {
	printf '# a comment\na;b 3\n' > "$T/c"
	run zt-diff "$T/c" "$T/c"
	assert_success
	assert_output "a;b 3 3"
}

@test "diff accepts a tab before the count" {
	printf 'a;b\t3\n' > "$T/tab"
	run zt-diff "$T/tab" "$T/before"
	assert_success
	assert_line --index 0 "a;b 3 3"
}
