# 0302-fold-errors.bats — zt-fold's bad usage (exit 2) and bad input (exit 1,
# naming the line), and that a failed run prints nothing on stdout.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	printf 'pp 1 1.0: 1 ev:\n\t1 a (m)\n\n' > "$T/good.txt"
}

@test "fold with an unknown option exits 2 and prints usage" {
	run -2 --separate-stderr zt-fold --bogus
	assert_output ""
	[[ "$stderr" == *"usage: zt-fold"* ]]
}

@test "fold names the file and line of an unparseable line and prints no output" {
	printf 'pp 1 1.0: 1 ev:\n\t1 a (m)\n\nthis is not perf output\n' > "$T/bad.txt"
	run -1 --separate-stderr zt-fold "$T/good.txt" "$T/bad.txt"
	assert_output ""
	assert_equal "$stderr" "zt-fold: '$T/bad.txt': line 4: not a record header, a frame or a source line"
}

@test "fold on stdin names only the line" {
	run -1 --separate-stderr zt-fold < <(printf 'pp 1 1.0: 1 ev:\n\t1 a (m)\n\n???\n')
	assert_output ""
	assert_equal "$stderr" "zt-fold: line 4: not a record header, a frame or a source line"
}

@test "fold rejects CRLF line endings with the line number" {
	printf 'pp 1 1.0: 1 ev:\r\n\t1 a (m)\r\n\r\n' > "$T/crlf.txt"
	run -1 --separate-stderr zt-fold "$T/crlf.txt"
	assert_output ""
	assert_equal "$stderr" "zt-fold: '$T/crlf.txt': line 1: line ends in CR (CRLF line endings are not accepted)"
}

@test "fold rejects a binary file (NUL bytes)" {
	printf 'pp 1 1.0: 1 ev:\n\t1 a\000b (m)\n\n' > "$T/bin.txt"
	run -1 --separate-stderr zt-fold "$T/bin.txt"
	assert_output ""
	assert_equal "$stderr" "zt-fold: '$T/bin.txt': line 2: NUL byte in text (a binary file?)"
}

@test "fold rejects an empty file" {
	: > "$T/empty.txt"
	run -1 --separate-stderr zt-fold "$T/empty.txt"
	assert_output ""
	assert_equal "$stderr" "zt-fold: '$T/empty.txt': empty file"
}

@test "fold rejects input with comments but no samples" {
	printf '# zt hz 997\n# zt samples 0\n' > "$T/none.txt"
	run -1 --separate-stderr zt-fold "$T/none.txt"
	assert_output ""
	assert_equal "$stderr" "zt-fold: '$T/none.txt': no samples in the input"
}

@test "fold rejects a frame before any record header" {
	printf '\t1 a (m)\n\n' > "$T/f.txt"
	run -1 --separate-stderr zt-fold "$T/f.txt"
	assert_equal "$stderr" "zt-fold: '$T/f.txt': line 1: frame line outside a record (no header before it)"
}

@test "fold rejects a record header with no blank line before it" {
	printf 'pp 1 1.0: 1 ev:\n\t1 a (m)\np 1 2.0: 1 ev:\n\n' > "$T/h.txt"
	run -1 --separate-stderr zt-fold "$T/h.txt"
	assert_equal "$stderr" "zt-fold: '$T/h.txt': line 3: record header inside a record (no blank line before it)"
}

@test "fold rejects a period too large for 64 bits" {
	printf 'pp 1 1.0: 99999999999999999999 ev:\n\t1 a (m)\n\n' > "$T/big.txt"
	run -1 --separate-stderr zt-fold "$T/big.txt"
	assert_equal "$stderr" "zt-fold: '$T/big.txt': line 1: period does not fit in 64 bits"
}

@test "fold rejects a truncated gzip file" {
	seq 1 20000 | sed 's/.*/pp 1 1.0: 1 ev:\n\t1 a& (m)\n/' | gzip -c > "$T/whole.gz"
	head -c $(( $(wc -c < "$T/whole.gz") / 2 )) "$T/whole.gz" > "$T/cut.gz"
	run -1 --separate-stderr zt-fold "$T/cut.gz"
	assert_output ""
	[[ "$stderr" == "zt-fold: '$T/cut.gz': truncated gzip data after line "* ]]
}

@test "fold reports a file it cannot open" {
	run -1 --separate-stderr zt-fold "$T/missing.txt"
	assert_equal "$stderr" "zt-fold: cannot open '$T/missing.txt': No such file or directory"
}
