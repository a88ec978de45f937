#!/usr/bin/env bats
# Raw dump version 5 (formats/raw.md "Version 5"), a wall-clock profile:
# every sample line may carry the ns each of its samples stands for
# ("^ns") and an off-CPU sample its wait ("!futex"); the header says
# "profile-clock wall" and "off-cpu-hz N". Every reader takes it, and every
# bad mark is refused with its line.

load helper
load wall

setup_file() {
	wall_setup
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# bad LINE MESSAGE: a version 5 dump whose only sample line is LINE is
# refused by zt-symbolize and zt-stat with "line 3: MESSAGE", exit 1.
bad() {
	printf 'zt-prof 5\nsamples\n%s\nend\n' "$1" > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 3: $2"
	run -1 --separate-stderr zt-stat bad.raw
	assert_equal "$stderr" "zt-stat: 'bad.raw': line 3: $2"
}

@test "a version 5 dump reads, with the same samples as its version 4 twin" {
	grep -qx 'zt-prof 5' w.raw
	grep -q ' !futex ' w.raw
	grep -q ' !waiting\\040for\\040a\\040CPU ' w.raw
	zt-symbolize w.raw > w.sym
	grep -qx '# zt version 5' w.sym
	zt-symbolize c.raw > c.sym
	[ "$(grep -c '^$' w.sym)" = "$(grep -c '^$' c.sym)" ]
	[ "$(grep -c '^$' w.sym)" -gt 50 ]
}

@test "a version 5 sample line's marks come in order: @ns ^weight !wait" {
	printf 'zt-prof 5\nsamples\n7 1 @5 ^1000 !futex =401136 401170\n7 1 !futex 401136\n7 1 ^3 401136\n7 1 401136\nend\n' > ok.raw
	zt-symbolize --merge ok.raw > /dev/null
	bad '7 1 ^5 @3 401136' "sample: '@' out of order (a sample line is 'tid count [@ns] [^weight] [!wait] address...')"
	bad '7 1 !futex ^5 401136' "sample: '^' out of order (a sample line is 'tid count [@ns] [^weight] [!wait] address...')"
	bad '7 1 !futex !read 401136' "sample: '!' out of order (a sample line is 'tid count [@ns] [^weight] [!wait] address...')"
	bad '7 1 ^5 ^5 401136' "sample: '^' out of order (a sample line is 'tid count [@ns] [^weight] [!wait] address...')"
}

@test "a bad weight is refused with its line" {
	bad '7 1 ^x 401136' 'sample: weight is not a number of ns'
	bad '7 1 ^ 401136' 'sample: weight is not a number of ns'
	bad '7 1 ^0 401136' 'sample: weight is zero'
	bad '7 1 ^18446744073709551616 401136' 'sample: weight is not a number of ns'
	bad '7 2 ^18446744073709551615 401136' 'sample: count times weight passes 2^64 - 1 ns'
}

@test "an empty, overlong or badly escaped wait is refused with its line" {
	bad '7 1 ! 401136' "sample: empty wait after '!'"
	bad "7 1 !$(printf 'w%.0s' $(seq 65)) 401136" 'sample: wait longer than 64 bytes'
	# 64 bytes after decoding is the most: escapes count once.
	printf 'zt-prof 5\nsamples\n7 1 !%s 401136\nend\n' "$(printf '\\040%.0s' $(seq 64))" > long.raw
	zt-symbolize long.raw > /dev/null
	bad '7 1 !a\9 401136' 'sample: wait: bad escape (a backslash wants three octal digits, \001 to \377)'
	bad '7 1 !a\000 401136' 'sample: wait: bad escape (a backslash wants three octal digits, \001 to \377)'
	bad '7 1 !a\ 401136' 'sample: wait: bad escape (a backslash wants three octal digits, \001 to \377)'
}

@test "the version 5 header keys are checked" {
	printf 'zt-prof 5\nprofile-clock sundial\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 2: profile-clock wants 'cpu' or 'wall', not 'sundial'"
	printf 'zt-prof 5\noff-cpu-hz 1001\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 2: off-cpu-hz 1001 is out of range (1 to 1000)"
	printf 'zt-prof 5\nsummary\nwall-ns x\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 3: wall-ns is not a number"
	# A wall-clock profile's weights are version 5's: an older dump that
	# says it is one would be read with no weights at all.
	printf 'zt-prof 4\nprofile-clock wall\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 2: profile-clock wall needs version 5, not 4"
}

@test "the marks of version 5 are not part of version 4, and version 7 is refused" {
	printf 'zt-prof 4\nsamples\n7 1 ^5 401136\nend\n' > v4.raw
	run -1 --separate-stderr zt-symbolize v4.raw
	assert_equal "$stderr" "zt-symbolize: 'v4.raw': line 3: sample: bad address '^5'"
	printf 'zt-prof 7\nend\n' > v7.raw
	run -1 --separate-stderr zt-symbolize v7.raw
	assert_equal "$stderr" "zt-symbolize: 'v7.raw': line 1: raw dump version '7' is not one this tool reads (1 to 6)"
}
