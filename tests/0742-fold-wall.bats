#!/usr/bin/env bats
# Folded stacks of a wall-clock profile (formats/folded.md): counts in ns,
# declared by a '# zt weight: ns' line first; a CPU profile's folded bytes
# are what they were.

load helper
load wall

setup_file() {
	wall_setup
	zt-fold w.raw > w.folded 2> /dev/null
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# The sum of count x weight over the sample lines of dump $1.
weights() {
	awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
	     s { for (i = 3; i <= NF; i++) if (substr($i, 1, 1) == "^") t += $2 * substr($i, 2) }
	     END { printf "%.0f\n", t }' "$1"
}

total() { awk '!/^#/ { t += $NF } END { printf "%.0f\n", t }' "$1"; }

@test "zt-fold of a wall-clock profile declares ns first, and sums the weights" {
	[ "$(head -1 w.folded)" = '# zt weight: ns' ]
	[ "$(grep -c '^#' w.folded)" = 1 ]
	[ "$(total w.folded)" = "$(weights w.raw)" ]
	# The waiter's stack ends in its wait, and weighs its ticks.
	n=$(grep -c ' !futex ' w.raw)
	grep -q '^waiter;clone3;start_thread;worker;hot_b;\[futex\] [0-9]*$' w.folded
	[ "$(grep '^waiter;.*;\[futex\] [0-9]*$' w.folded | total /dev/stdin)" = "$((n * 10309278))" ]
	# The stream folds the same, and so does the folded file itself.
	zt-symbolize w.raw 2> /dev/null | zt-fold > s.folded
	cmp s.folded w.folded
	zt-fold w.folded > again.folded
	cmp again.folded w.folded
}

@test "a CPU profile folds as before: no declaration, counts of samples" {
	zt-fold c.raw > c.folded
	run grep -c '^#' c.folded
	assert_output 0
	[ "$(total c.folded)" = "$(sed -n 's/^samples //p' c.raw)" ]
	zt-symbolize c.raw 2> /dev/null | zt-fold > cs.folded
	cmp c.folded cs.folded
}

@test "zt-fold refuses --weight=count on a wall-clock profile, and mixing it with a CPU one" {
	run -1 --separate-stderr zt-fold --weight=count w.raw
	assert_equal "$stderr" "zt-fold: --weight=count: a wall-clock profile's records weigh nanoseconds (of wall-clock time), not samples; fold it without it"
	zt-fold c.raw > c.folded
	run -1 --separate-stderr zt-fold c.folded w.folded
	assert_equal "$stderr" "zt-fold: 'c.folded' weighs its stacks in samples or periods, 'w.folded' is a wall-clock profile ('# zt weight: ns'): they cannot be summed"
	# --weight=period says what it always says.
	[ "$(zt-fold --weight=period w.raw | head -1)" = '# zt weight: ns' ]
}

@test "a '# zt weight: ns' line is read by the readers of weights" {
	printf '# zt weight: ns\na;b 10\n# zt weight: ns\n' > two.folded
	run -1 --separate-stderr zt-stat two.folded
	assert_equal "$stderr" "zt-stat: 'two.folded': line 3: '# zt weight:' after the first stack (it goes before every stack)"
	printf '# zt weight: furlongs\na;b 10\n' > bad.folded
	run -1 --separate-stderr zt-stat bad.folded
	assert_equal "$stderr" "zt-stat: 'bad.folded': line 1: '# zt weight:' wants 'samples', 'ns', 'bytes', 'objects' or 'period EVENT PERIOD UNIT'"
}
