# 0502-diff-errors.bats — zt-diff's bad usage (exit 2) and bad input (exit 1,
# naming the file and line), with nothing on stdout.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	printf 'a;b 3\n' > "$T/good"
}

@test "diff with one profile exits 2 and prints usage" {
	run -2 --separate-stderr zt-diff "$T/good"
	assert_output ""
	assert_equal "${stderr_lines[0]}" "zt-diff: two profiles are needed, before and after"
	assert_equal "${stderr_lines[1]}" "usage: zt-diff [-n] [-s] [--root=NAME | --no-root] [--event=NAME] before after"
}

@test "diff with stdin for both profiles exits 2" {
	run -2 --separate-stderr zt-diff - -
	assert_equal "${stderr_lines[0]}" "zt-diff: only one of the profiles can be stdin"
}

@test "diff --json without --report exits 2" {
	run -2 --separate-stderr zt-diff --json "$T/good" "$T/good"
	assert_equal "${stderr_lines[0]}" "zt-diff: --json goes with --report"
}

@test "diff --fdr outside (0,1) exits 2" {
	run -2 --separate-stderr zt-diff --report --fdr 2 "$T/good" "$T/good"
	assert_equal "${stderr_lines[0]}" "zt-diff: --fdr wants a level between 0 and 1, not '2'"
}

@test "diff --help prints usage to stdout" {
	run zt-diff --help
	assert_success
	assert_line --index 0 "usage: zt-diff [-n] [-s] [--root=NAME | --no-root] [--event=NAME] before after"
}

@test "diff names the file and line of a missing count, and prints nothing" {
	printf 'a;b 3\na;c\n' > "$T/bad"
	run -1 --separate-stderr zt-diff "$T/good" "$T/bad"
	assert_output ""
	assert_equal "$stderr" "zt-diff: '$T/bad': line 2: missing count"
}

@test "diff names a negative count" {
	printf 'a;b -3\n' > "$T/bad"
	run -1 --separate-stderr zt-diff "$T/bad" "$T/good"
	assert_equal "$stderr" "zt-diff: '$T/bad': line 1: negative count"
}

@test "diff names a count that is not a number" {
	printf 'a;b three\n' > "$T/bad"
	run -1 --separate-stderr zt-diff --report "$T/bad" "$T/good"
	assert_equal "$stderr" "zt-diff: '$T/bad': line 1: count is not a number"
}

@test "diff names a fractional count" {
	printf 'a;b 2.5\n' > "$T/bad"
	run -1 --separate-stderr zt-diff "$T/good" "$T/bad"
	assert_equal "$stderr" "zt-diff: '$T/bad': line 1: fractional count (counts are whole numbers of samples)"
}

@test "diff names CRLF line endings" {
	printf 'a;b 3\r\n' > "$T/bad"
	run -1 --separate-stderr zt-diff "$T/good" "$T/bad"
	assert_equal "$stderr" "zt-diff: '$T/bad': line 1: line ends in CR (CRLF line endings are not accepted)"
}

@test "diff names an empty line" {
	printf 'a;b 3\n\na;c 1\n' > "$T/bad"
	run -1 --separate-stderr zt-diff "$T/good" "$T/bad"
	assert_equal "$stderr" "zt-diff: '$T/bad': line 2: empty line"
}

@test "diff keeps a space that ends a stack as part of its last frame" {
	printf 'a;b  3\n' > "$T/sp"
	run zt-diff "$T/good" "$T/sp"
	assert_success
	assert_output "a;b 3 0
a;b  0 3"
}

@test "diff rejects an empty file" {
	: > "$T/empty"
	run -1 --separate-stderr zt-diff "$T/good" "$T/empty"
	assert_output ""
	assert_equal "$stderr" "zt-diff: '$T/empty': empty file"
}

@test "diff rejects a binary file" {
	printf 'a\000b 3\n' > "$T/bin"
	run -1 --separate-stderr zt-diff "$T/bin" "$T/good"
	assert_equal "$stderr" "zt-diff: '$T/bin': line 1: NUL byte in text (a binary file?)"
}

@test "diff on stdin names only the line" {
	run -1 --separate-stderr zt-diff - "$T/good" < <(printf 'a;b x\n')
	assert_equal "$stderr" "zt-diff: line 1: count is not a number"
}

@test "diff rejects a file of comments only" {
	printf '# nothing\n' > "$T/c"
	run -1 --separate-stderr zt-diff "$T/good" "$T/c"
	assert_equal "$stderr" "zt-diff: '$T/c': no stacks"
}
