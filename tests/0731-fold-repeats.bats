#!/usr/bin/env bats
# zt-fold and zt-stat read a record whose frame lines repeat an earlier
# record's without reading its lines again (lib/perfscript.c's repeats):
# what they print must be what reading every line gives, across inputs,
# commands, Java names and records too long to be looked ahead.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf 'p 1/1 1.0: 1 ev:\n\t1 a (m)\n\np 1/1 2.0: 1 ev:\n\t1 a (m)\n\n' > a.txt
	printf 'p 1/1 1.0: 1 ev:\n\t1 b (m)\n\np 1/1 2.0: 1 ev:\n\t1 b (m)\n\n' > b.txt
}

@test "two inputs with the same command: each file's repeated records keep their own stacks" {
	run zt-fold a.txt b.txt
	assert_success
	assert_output "$(printf 'p_1/1_1.0:;a 1\np_1/1_1.0:;b 1\np_1/1_2.0:;a 1\np_1/1_2.0:;b 1')"
	run zt-stat -n 0 a.txt b.txt
	assert_success
	[[ "$output" == *"2  50.00%  50.00%          2  50.00%  a"* ]]
	[[ "$output" == *"2  50.00% 100.00%          2  50.00%  b"* ]]
}

@test "the same frame lines under a java command and another are named apart" {
	printf 'java 1/1 1.0: 1 ev:\n\t1 Lcom/x;.f+0x1 (m)\n\t2 main (m)\n\nperf 2/2 2.0: 1 ev:\n\t1 Lcom/x;.f+0x1 (m)\n\t2 main (m)\n\njava 1/1 3.0: 1 ev:\n\t1 Lcom/x;.f+0x1 (m)\n\t2 main (m)\n\nperf 2/2 4.0: 2 ev:\n\t1 Lcom/x;.f+0x1 (m)\n\t2 main (m)\n\n' > j.txt
	run zt-fold j.txt
	assert_output "$(printf 'java;main;com/x:.f 2\nperf;main;Lcom/x:.f 3')"
	run zt-fold --tid j.txt
	assert_output "$(printf 'java-1/1;main;com/x:.f 2\nperf-2/2;main;Lcom/x:.f 3')"
}

@test "concatenated copies of a shared case fold to its counts times three; records longer than the look-ahead fold too" {
	# The shared case, concatenated: every record after the first copy is a repeat.
	f=$DATA/perf-script/perf-cycles-instructions-01
	for i in 1 2 3; do cat "$f.txt"; done > three.txt
	zt-fold three.txt > got
	awk '{ n = $NF; $NF = ""; print $0 n * 3 }' "$f.folded" > want
	cmp got want
	# A record of 3000 frames (about 100 KB) is read line by line, each time.
	awk 'BEGIN { for (r = 0; r < 3; r++) { print "p 1/1 " r ".0: 1 ev:"
		for (i = 0; i < 3000; i++) printf "\t%x f%d (m)\n", i, i % 7; print "" } }' > long.txt
	run zt-fold long.txt
	assert_success
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ]
	[[ "$output" == *" 1" ]]
	[ "$(zt-fold long.txt long.txt | awk '{ s += $NF } END { print s }')" = 6 ]
}
