#!/usr/bin/env bats
# Debian's own binaries, built without frame pointers, run to the same
# output and exit status under zt, and their dumps symbolize.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	seq 1 400000 | awk '{ print ($1 * 7919) % 100003, $1 }' > numbers
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	ln -s "$BATS_FILE_TMPDIR/numbers" numbers
}

# Run a command bare and under zt-collect; outputs and statuses must match.
same_output_and_status() {
	local bare_status=0 zt_status=0
	"$@" > bare.out 2> bare.err || bare_status=$?
	zt-collect -o p.raw "$@" > zt.out 2> zt.err || zt_status=$?
	echo "status bare $bare_status zt $zt_status"
	[ "$bare_status" -eq "$zt_status" ]
	cmp bare.out zt.out
	# stderr is the program's, then zt-collect's own summary line.
	grep -v '^zt-collect: ' zt.err | cmp bare.err -
}

# The same, and the dump must fold to at least 20 samples.
same_under_zt() {
	same_output_and_status "$@"
	zt-symbolize p.raw > p.sym
	zt-fold p.sym > p.folded
	[ "$(awk '{ s += $NF } END { print s + 0 }' p.folded)" -ge 20 ]
}

@test "python3 runs the same and symbolizes" {
	same_under_zt /usr/bin/python3 -c 'import sys
s = sum(i * i for i in range(2000000))
print(s)
sys.exit(3)'
	grep -q 'python3' p.folded
}

@test "perl runs the same and symbolizes" {
	same_under_zt /usr/bin/perl -e 'my %h; $h{$_ % 1000} += $_ for 1 .. 1500000; print join(",", map { $h{$_} } 0 .. 9), "\n"; exit 2'
	grep -q '^perl;' p.folded
}

@test "gzip runs the same and symbolizes" {
	for i in 1 2 3 4; do cat numbers; done > big
	same_under_zt /bin/gzip -9 -c big
	grep -q '^gzip;' p.folded
}

@test "xz runs the same and symbolizes" {
	same_under_zt /usr/bin/xz -c numbers
	grep -q '^xz;' p.folded
}

@test "sort runs the same (with its threads) and symbolizes" {
	for i in 1 2 3; do cat numbers; done > big
	same_under_zt /usr/bin/sort -n big
	grep -q '^sort;' p.folded
}

@test "a failing Debian program keeps its exit status and messages" {
	same_output_and_status /usr/bin/sort /nonexistent-file
	[ "$(tail -n 1 p.raw)" = "end" ]
}
