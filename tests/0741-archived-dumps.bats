#!/usr/bin/env bats
# Dumps written by an earlier zt (samples/archive, never rewritten) still
# read: the program's frames are named from the archive by build-id, with
# the counts the dump was written with, in every tool.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	A="$SAMPLES/archive"
}

@test "an archived version 4 dump: zt-fold names the program's frames by build-id and gives its counts" {
	zt-fold --debug-dir "$A" "$A/spin-v4.raw.gz" > f 2> err
	cat err
	grep -o 'main;work;hot_[ab] [0-9]*$' f > got
	diff -u "$A/spin-v4.expected" got
}

@test "an archived version 4 dump: zt-stat and zt-symbolize | zt-fold agree with it" {
	zt-stat --debug-dir "$A" "$A/spin-v4.raw.gz" > stat
	head -8 stat
	grep -qx 'samples: 672 (sampling error .*' stat
	awk '$NF == "hot_a" { a = $1 } $NF == "hot_b" { b = $1 } END { print "hot_a " a, "hot_b " b; exit !(a == 529 && b == 142) }' stat
	zt-symbolize --debug-dir "$A" "$A/spin-v4.raw.gz" | zt-fold | grep -o 'main;work;hot_[ab] [0-9]*$' > got
	diff -u "$A/spin-v4.expected" got
}

@test "an archived dump's program, found nowhere else, is unnamed without the archive, and said so" {
	run --separate-stderr zt-fold "$A/spin-v4.raw.gz"
	echo "$stderr"
	assert_success
	refute_output --partial 'hot_a'
	[[ $stderr == *"/tmp/arch1/spin"* ]]
}
