# 0401-stat-errors.bats — zt-stat's bad usage (exit 2) and bad input (exit 1
# with the line).
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
}

@test "stat with an unknown --by exits 2 and prints usage" {
	run -2 --separate-stderr zt-stat --by=colour
	assert_output ""
	assert_equal "${stderr_lines[0]}" "zt-stat: --by wants function, module, line, thread, state or label:NAME, not 'colour'"
	assert_equal "${stderr_lines[1]}" "usage: zt-stat [-n rows] [--by=function|module|line|thread|state|label:NAME]"
}

@test "stat with a bad -n exits 2" {
	run -2 --separate-stderr zt-stat -n many
	assert_equal "${stderr_lines[0]}" "zt-stat: -n wants a number of rows, not 'many'"
}

@test "stat --help prints usage to stdout" {
	run zt-stat --help
	assert_success
	assert_line --index 0 "usage: zt-stat [-n rows] [--by=function|module|line|thread|state|label:NAME]"
	# Every long option is documented.
	for o in nodes by label sort focus ignore hide peek list source-dir json help version; do
		assert_output --partial -- "--$o"
	done
}

@test "stat names a folded line with a missing count" {
	printf 'a;b 1\na;b\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_output ""
	assert_equal "$stderr" "zt-stat: '$T/f': line 2: missing count"
}

@test "stat names a negative count" {
	printf 'a;b 1\na;c -3\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': line 2: negative count"
}

@test "stat names a count that is not a number, on stdin by line only" {
	run -1 --separate-stderr zt-stat < <(printf 'a;b 1\na;c 1x\n')
	assert_equal "$stderr" "zt-stat: line 2: count is not a number"
}

@test "stat names a fractional count" {
	printf 'a;b 1.5\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': line 1: fractional count (counts are whole numbers of samples)"
}

@test "stat names CRLF line endings" {
	printf 'a;b 1\r\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': line 1: line ends in CR (CRLF line endings are not accepted)"
}

@test "stat rejects an empty file" {
	: > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': empty file"
}

@test "stat rejects a binary file" {
	printf 'a;b 1\n\000\001\002 3\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': line 2: NUL byte in text (a binary file?)"
}

@test "stat rejects comments without samples" {
	printf '# zt hz 997\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': no samples in the input"
}

@test "stat rejects a bad zt fact" {
	printf '# zt hz fast\na 1\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': line 1: '# zt hz' wants a number"
}

@test "stat --by=module on folded stacks says they carry no modules" {
	printf 'a;b 1\n' > "$T/f"
	run -1 --separate-stderr zt-stat --by=module "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': folded stacks carry no modules; --by=module needs perf script input or a raw dump"
}

@test "stat --by=line without source lines says how to get them" {
	printf 'pp 1/1 0.0: 1 zt-samples:\n\t1 a (m)\n\n' > "$T/f"
	run -1 --separate-stderr zt-stat --by=line "$T/f"
	assert_equal "$stderr" "zt-stat: '$T/f': no source lines in the input; --by=line needs perf script -F +srcline or zt-symbolize --lines"
}

@test "stat names a bad line in perf script input" {
	printf 'pp 1/1 0.0: 1 zt-samples:\n\t1 a (m)\n\n???\n' > "$T/f"
	run -1 --separate-stderr zt-stat "$T/f"
	assert_output ""
	assert_equal "$stderr" "zt-stat: '$T/f': line 4: not a record header, a frame or a source line"
}
