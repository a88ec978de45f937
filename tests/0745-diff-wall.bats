#!/usr/bin/env bats
# zt-diff on wall-clock profiles: both sides weigh ns, the output declares
# it, and a wall-clock profile is never compared with a CPU one.

load helper
load wall

setup_file() {
	wall_setup
	# The same run, its waiter blocked twice as long a tick.
	sed 's/ ^10309278 !futex / ^20618556 !futex /' w.raw > w2.raw
	zt-fold w.raw > w.folded 2> /dev/null
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "two wall-clock profiles compare in ns, stack by stack" {
	zt-diff w.raw w2.raw > d.txt
	[ "$(head -1 d.txt)" = '# zt weight: ns' ]
	# Every stack but the waiter's weighs the same on both sides.
	run awk '!/^#/ && $(NF - 1) != $NF' d.txt
	for l in "${lines[@]}"; do
		[[ $l == waiter\;*'[futex] '* ]]
		set -- $l
		[ "${@: -1}" = "$(( ${@: -2:1} * 2 ))" ]
	done
	[ "${#lines[@]}" -ge 1 ]
	# The folded stacks of one side give the same comparison.
	zt-diff w.folded w2.raw | cmp - d.txt
	# A differential flame graph of it: widths in ns, the waiter's growth red.
	zt-flame d.txt > d.svg
	grep -q '^<g><title>all ([0-9,]* ns, 100%)' d.svg
	grep -q '^<g><title>\[futex\] ([0-9,]* ns, [0-9.]*%; +[0-9.]*%)</title><rect [^>]*fill="rgb(255,' d.svg
}

@test "zt-diff refuses to compare a wall-clock profile with a CPU one" {
	run -1 --separate-stderr zt-diff c.raw w.raw
	assert_equal "$stderr" "zt-diff: 'c.raw' is a CPU profile (samples or periods) and 'w.raw' a wall-clock profile (ns of wall-clock time): they cannot be compared"
	run -1 --separate-stderr zt-diff w.folded c.raw
	assert_equal "$stderr" "zt-diff: 'w.folded' is a wall-clock profile (ns of wall-clock time) and 'c.raw' a CPU profile (samples or periods): they cannot be compared"
	# Two CPU profiles compare as before: no declaration.
	zt-diff c.raw c.raw > cc.txt
	run grep -c '^#' cc.txt
	assert_output 0
}

@test "--report, which tests shares of samples, refuses ns" {
	run -1 --separate-stderr zt-diff --report w.raw w2.raw
	assert_equal "$stderr" "zt-diff: 'w.raw': a wall-clock profile: its counts are ns of wall-clock time, not samples, and --report tests shares of samples; compare wall-clock profiles without --report"
}
