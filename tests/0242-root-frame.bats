#!/usr/bin/env bats
# Comparing two programs (zt-diff(1), zt-flame(1), zt-fold(1): --root=NAME,
# --no-root): the root frame of every stack, the command, renamed or dropped,
# so that programs with different names, or builds of one program under
# different names, compare function by function. The oracles are
# stackcollapse-perf.pl's own outputs (tests/data/perf-script) with their
# root rewritten by sed, and the same comparison made by each tool.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf 'gzip;main;deflate 10\ngzip;main;read 5\ngzip 1\n' > a.folded
	printf 'pigz;main;deflate 6\npigz;main;read 5\npigz;main;zero_copy 2\n' > b.folded
}

@test "zt-diff: different roots are two trees; --root=NAME and --no-root line them up" {
	run zt-diff a.folded b.folded
	assert_output "$(printf '%s\n' 'gzip 1 0' 'gzip;main;deflate 10 0' 'gzip;main;read 5 0' \
		'pigz;main;deflate 0 6' 'pigz;main;read 0 5' 'pigz;main;zero_copy 0 2')"
	run zt-diff --root=z a.folded b.folded
	assert_output "$(printf '%s\n' 'z 1 0' 'z;main;deflate 10 6' 'z;main;read 5 5' 'z;main;zero_copy 0 2')"
	# A stack that is its root alone keeps it: no sample is lost.
	run zt-diff --no-root a.folded b.folded
	assert_output "$(printf '%s\n' 'gzip 1 0' 'main;deflate 10 6' 'main;read 5 5' 'main;zero_copy 0 2')"
	# -n scales the rerooted sides; -s strips after the root is rewritten.
	run zt-diff -n --root=z a.folded b.folded
	assert_line 'z;main;deflate 8 6'
}

@test "zt-diff --report: the functions of two programs compared, not their roots" {
	run zt-diff --report --json --no-root a.folded b.folded
	assert_success
	refute_output --partial '"pigz"'
	assert_output --partial '"deflate"'
	run zt-diff --report --json a.folded b.folded
	assert_output --partial '"pigz"'
}

@test "zt-fold --root and --no-root equal stackcollapse-perf.pl's output with its root rewritten" {
	local d=$DATA/perf-script name root
	for name in perf-vertx-stacks-01 perf-dd-stacks-01 perf-funcab-cmd-01; do
		root=$(sed -n '1s/;.*//p' "$d/$name.folded")
		# Each of these has one command, so the order stays.
		[ "$(cut -d';' -f1 "$d/$name.folded" | sed 's/ [0-9]*$//' | sort -u)" = "$root" ]
		zt-fold --root=prog "$d/$name.txt" 2>/dev/null > got
		sed "s/^$root;/prog;/" "$d/$name.folded" | diff - got
		zt-fold --no-root "$d/$name.txt" 2>/dev/null > got
		sed "s/^$root;//" "$d/$name.folded" | diff - got
	done
	# Java names are still tidied by the command (vertx's is java): the
	# input's Lorg/vertx/... loses its L.
	grep -q 'Lorg/vertx/' "$d/perf-vertx-stacks-01.txt"
	zt-fold --root=prog "$d/perf-vertx-stacks-01.txt" 2>/dev/null > got
	grep -q '^prog;.*;org/vertx/' got
	! grep -q 'Lorg/vertx/' got
}

@test "zt-fold --root merges the stacks of commands that differ, and reroots folded input" {
	local d=$DATA/perf-script
	# perf-numa-stacks-01 has two commands.
	[ "$(cut -d';' -f1 "$d/perf-numa-stacks-01.folded" | sed 's/ [0-9]*$//' | sort -u | wc -l)" -eq 2 ]
	zt-fold --root=all "$d/perf-numa-stacks-01.txt" > got
	# The oracle: the expected output rerooted, then summed and sorted (zt-fold
	# on folded input with no option is that sum; checked on its own below).
	sed 's/^[^;]*;/all;/' "$d/perf-numa-stacks-01.folded" > rerooted
	LC_ALL=C sort rerooted > sorted
	[ "$(awk '{ s += $NF } END { print s }' got)" = "$(awk '{ s += $NF } END { print s }' sorted)" ]
	zt-fold sorted | diff - got
	[ "$(cut -d';' -f1 got | sed 's/ [0-9]*$//' | sort -u)" = all ]
	# Folded input is rerooted the same way.
	zt-fold --root=all "$d/perf-numa-stacks-01.folded" | diff got -
	zt-fold --no-root "$d/perf-numa-stacks-01.folded" > noroot
	[ "$(awk '{ s += $NF } END { print s }' noroot)" = "$(awk '{ s += $NF } END { print s }' got)" ]
	! grep -q '^numa' noroot
}

@test "zt-flame --root on zt-diff's output draws what zt-diff --root draws" {
	zt-diff --root=z a.folded b.folded | zt-flame > one.svg
	zt-diff a.folded b.folded | zt-flame --root=z > two.svg
	cmp one.svg two.svg
	zt-diff --no-root a.folded b.folded | zt-flame > one.svg
	zt-diff a.folded b.folded | zt-flame --no-root > two.svg
	cmp one.svg two.svg
	# The merged frame has both sides' counts: 10 before, 6 after.
	grep -q '<title>deflate (6 samples, [0-9.]*%; -[0-9.]*%)</title>' one.svg
	zt-fold --root=z a.folded b.folded | zt-flame > one.svg
	zt-flame --root=z a.folded b.folded > two.svg
	cmp one.svg two.svg
}

@test "two builds under different names: zt-diff --root on their raw dumps, the man page's example" {
	printf 'int main(void) { volatile long s = 0; for (long i = 0; i < 50000000; i++) s += i; return 0; }\n' > loop.c
	cc -O2 -o loop-old loop.c
	cc -O0 -o loop-new loop.c
	zt-collect -o old.raw ./loop-old 2>/dev/null
	zt-collect -o new.raw ./loop-new 2>/dev/null
	run zt-diff old.raw new.raw
	assert_line --regexp '^loop-old;.*;main [0-9]+ 0$'
	run zt-diff --root=loop old.raw new.raw
	assert_success
	assert_line --regexp '^loop;_start;__libc_start_main;__libc_start_call_main;main [1-9][0-9]* [1-9][0-9]*$'
	refute_output --partial 'loop-'
	zt-diff --root=loop old.raw new.raw | zt-flame > diff.svg
	zt-diff old.raw new.raw | zt-flame --root=loop | cmp - diff.svg
	run zt-fold --root=loop old.raw new.raw
	assert_line --regexp '^loop;_start;__libc_start_main;__libc_start_call_main;main [0-9]+$'
}

@test "--root and --no-root: bad usage exits 2" {
	run -2 --separate-stderr zt-diff --root=a --no-root a.folded b.folded
	[[ "$stderr" == "zt-diff: --root and --no-root are one choice: give one of them, once"$'\n'"usage: zt-diff "* ]]
	run -2 --separate-stderr zt-flame --root='a;b' a.folded
	[[ "$stderr" == "zt-flame: --root wants a frame name: not empty, no ';', no white space"* ]]
	run -2 --separate-stderr zt-fold --root= a.folded
	[[ "$stderr" == "zt-fold: --root wants a frame name: not empty, no ';', no white space"* ]]
	run -2 --separate-stderr zt-fold --root=x --tid a.folded
	[[ "$stderr" == "zt-fold: --root and --tid both say what the root frame is: give one of them"* ]]
	run -2 --separate-stderr zt-fold --no-root --pid a.folded
	[[ "$stderr" == "zt-fold: --no-root and --pid both say what the root frame is: give one of them"* ]]
	# The same option twice is not a conflict.
	run zt-fold --root=x --root=x a.folded
	assert_success
}
