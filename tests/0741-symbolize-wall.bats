#!/usr/bin/env bats
# zt-symbolize on a wall-clock profile (raw version 5): every record's
# period is the nanoseconds its samples stand for (event zt-wall-ns), an
# off-CPU record's leaf frame names its wait ("[futex]"), and the `# zt`
# facts say it is a wall-clock profile (formats/symbolized.md).

load helper
load wall

setup_file() {
	wall_setup
	zt-symbolize w.raw > w.sym 2> /dev/null
	zt-symbolize c.raw > c.sym 2> /dev/null
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

# The sum of the records' periods in stream $1.
periods() {
	awk '/^[^#\t ].*: [0-9]+ zt-(wall-ns|samples):$/ { t += $(NF - 1) } END { printf "%.0f\n", t }' "$1"
}

@test "every record weighs its samples' nanoseconds, event zt-wall-ns" {
	n=$(grep -c ' zt-wall-ns:$' w.sym)
	[ "$n" -gt 50 ]
	[ "$(grep -c ' zt-samples:$' w.sym)" = 0 ]
	[ "$(periods w.sym)" = "$(weights w.raw)" ]
	# One record per sample line, as for a CPU profile.
	[ "$n" = "$(grep -c ' zt-samples:$' c.sym)" ]
	# --merge: one record per stack, the same sum.
	zt-symbolize --merge w.raw > m.sym 2> /dev/null
	[ "$(periods m.sym)" = "$(weights w.raw)" ]
	[ "$(grep -c ' zt-wall-ns:$' m.sym)" -lt "$n" ]
}

@test "an off-CPU record's leaf frame is its wait, in brackets" {
	off=$(grep -c -e ' !futex ' -e ' !waiting' w.raw)
	[ "$(grep -c '^	               0 \[futex\] (\[off-cpu\])$' w.sym)" = "$(grep -c ' !futex ' w.raw)" ]
	[ "$(grep -c '^	               0 \[waiting for a CPU\] (\[off-cpu\])$' w.sym)" = "$(grep -c ' !waiting' w.raw)" ]
	# The wait comes right after the header, before the pc's frame.
	awk '/zt-wall-ns:$/ { h = NR } /\[futex\]/ { if (NR != h + 1) exit 1 }' w.sym
	[ "$off" -gt 10 ]
	# The folded stacks, as stackcollapse-perf.pl folds the stream, end in it.
	zt-fold w.sym | grep -q ';hot_b;\[futex\] [0-9]*$'
	zt-fold w.sym | grep -q ';hot_a;\[waiting for a CPU\] [0-9]*$'
}

@test "a wait's bytes are escaped in its frame, and a ';' cannot split a stack" {
	printf 'zt-prof 5\nprofile-clock wall\nsamples\n7 1 ^5 !a\\073b\\012c 401136\nend\n' > odd.raw
	zt-symbolize odd.raw > odd.sym 2> /dev/null
	grep -qxF '	               0 [a\073b\012c] ([off-cpu])' odd.sym
	grep -qx 'unknown 7/7 0.000000: 5 zt-wall-ns:' odd.sym
}

@test "the facts of a wall-clock profile" {
	grep -qx '# zt profile-clock wall' w.sym
	grep -qx '# zt off-cpu-hz 97' w.sym
	grep -qx "# zt off-cpu-samples $(sed -n 's/^off-cpu-samples //p' w.raw)" w.sym
	grep -qx '# zt off-cpu-repeated 0' w.sym
	grep -qx '# zt off-cpu-torn 0' w.sym
	grep -qx '# zt sampler-cpu-ns 1000000' w.sym
	grep -qx '# zt wall-ns 900000000' w.sym
}

@test "a CPU profile's stream has none of it" {
	run grep -c -e 'zt-wall-ns' -e 'off-cpu' -e 'profile-clock' c.sym
	assert_output 0
	# A version 5 dump without "profile-clock wall" is a CPU profile too.
	sed '/^profile-clock wall$/d' w.raw > notwall.raw
	zt-symbolize notwall.raw 2> /dev/null | grep -q ' zt-samples:$'
}
