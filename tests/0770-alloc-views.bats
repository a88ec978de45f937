#!/usr/bin/env bats
# Allocation profiles (raw dump version 6, formats/raw.md "Version 6"):
# zt-symbolize's records of their own events and facts, and the views
# that --event picks in zt-fold, zt-stat, zt-flame, zt-diff and zt-pprof
# (formats/symbolized.md "Allocation profiles"), on a hand-made dump whose
# weights are known (tests/alloc.bash). Every bad "$" is refused with its
# line.

load helper
load alloc

setup_file() {
	alloc_setup
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	alloc_addrs
}

# total FILE: the sum of a folded file's counts.
total() { awk '!/^#/ { t += $NF } END { printf "%.0f\n", t }' "$1"; }

@test "zt-symbolize: the allocation facts, and two records a line, bytes and objects" {
	zt-symbolize a.raw > a.sym
	for f in 'version 6' 'alloc-rate 524288' 'alloc-calls 1000' 'alloc-bytes 1100000' \
		 'alloc-samples 4' 'alloc-peak-bytes 2621472' 'alloc-peak-ns 2400000000' \
		 'alloc-inuse-bytes 2097152' 'alloc-sampled-bytes 1048768' \
		 'alloc-estimated-bytes 3670112'; do
		grep -qx "# zt $f" a.sym
	done
	# The CPU samples are what they were; "samples" counts them alone.
	grep -qx "# zt samples $(sed -n 's/^samples //p' c.raw)" a.sym
	[ "$(grep -c ' zt-samples:$' a.sym)" = "$(zt-symbolize c.raw | grep -c ' zt-samples:$')" ]
	[ "$(grep -c ' zt-alloc-bytes:$' a.sym)" = 4 ]
	[ "$(grep -c ' zt-alloc-objects:$' a.sym)" = 4 ]
	[ "$(grep -c ' zt-inuse-bytes:$' a.sym)" = 1 ]
	[ "$(grep -c ' zt-inuse-objects:$' a.sym)" = 1 ]
	[ "$(grep -c ' zt-peak-bytes:$' a.sym)" = 2 ]
	[ "$(grep -c ' zt-peak-objects:$' a.sym)" = 2 ]
	# site_a's 8192.5 objects a sample, rounded so that the stack's sum is
	# its total's rounding: 8193, 8192, 8193 (24578 = round(1572960 / 64)).
	run awk '/ zt-alloc-objects:$/ { p = $(NF - 1); getline; if ($2 ~ /^site_a/) printf "%s ", p }' a.sym
	assert_output '8193 8192 8193 '
	# The first address of a "$" line names the calling line, as an exact pc.
	grep -q "^[[:space:]]*$ADDR_A site_a+0x3 (" a.sym
	# --merge: one record a stack, with its sums.
	zt-symbolize --merge a.raw > m.sym
	run awk '/ zt-alloc-objects:$/ { p = $(NF - 1); getline; if ($2 ~ /^site_a/) print p }' m.sym
	assert_output 24578
}

@test "--event: each view's totals, and its '# zt weight:' line" {
	view() {
		run zt-fold --event="$1" a.raw
		assert_success
		assert_line --index 0 "# zt weight: $2, sampled every 524288 bytes"
		printf '%s\n' "$output" > v.folded
		[ "$(total v.folded)" = "$3" ]
	}
	view alloc_space bytes 3670112
	assert_line 'prog;main;site_a 1572960'
	assert_line 'prog;main;site_b 2097152'
	view alloc_objects objects 24580
	assert_line 'prog;main;site_a 24578'
	assert_line 'prog;main;site_b 2'
	view inuse_space bytes 2097152
	refute_line --partial site_a
	view inuse_objects objects 2
	view peak_inuse_space bytes 2621472
	assert_line 'prog;main;site_a 524320'
	view peak_inuse_objects objects 8195
	# The stream and --merge's give the same stacks.
	zt-fold --event=alloc_objects a.raw > r.folded
	zt-symbolize a.raw | zt-fold --event=alloc_objects > s.folded
	zt-symbolize --merge a.raw | zt-fold --event=alloc_objects > sm.folded
	cmp r.folded s.folded
	cmp r.folded sm.folded
}

@test "the default view: the time when there are CPU samples, else alloc_space" {
	zt-fold c.raw > c.folded
	zt-fold a.raw > a.folded
	zt-fold --event=time a.raw > t.folded
	cmp c.folded a.folded
	cmp c.folded t.folded
	# No warning about the other events: they are views of one profile.
	run --separate-stderr zt-fold a.raw
	assert_equal "$stderr" ""
	zt-fold ao.raw > ao.folded
	zt-fold --event=alloc_space a.raw > as.folded
	cmp ao.folded as.folded
	zt-symbolize ao.raw | zt-fold > aos.folded
	cmp ao.folded aos.folded
	run -1 --separate-stderr zt-fold --event=time ao.raw
	assert_equal "$stderr" "zt-fold: 'ao.raw': no samples in the input"
}

@test "--event: an unknown name is a usage error naming the views, in every tool" {
	for t in zt-fold zt-stat zt-flame zt-diff zt-pprof; do
		run -2 --separate-stderr "$t" --event=heap a.raw
		assert_equal "${stderr%%$'\n'*}" "$t: --event wants time, alloc_space, alloc_objects, inuse_space, inuse_objects, peak_inuse_space or peak_inuse_objects, not 'heap'"
	done
	run zt-fold --help
	assert_output --partial '--event=NAME'
}

@test "zt-fold: --weight=count is refused on allocations; folded inputs keep their weight" {
	run -1 --separate-stderr zt-fold --weight=count --event=alloc_space a.raw
	assert_equal "$stderr" "zt-fold: --weight=count: an allocation profile's records weigh bytes, not samples; fold it without it"
	zt-fold --event=inuse_space a.raw > i.folded
	zt-fold i.folded i.folded > ii.folded
	assert_equal "$(head -1 ii.folded)" '# zt weight: bytes, sampled every 524288 bytes'
	[ "$(total ii.folded)" = 4194304 ]
	zt-fold c.raw > c.folded
	run -1 --separate-stderr zt-fold c.folded i.folded
	assert_equal "$stderr" "zt-fold: 'c.folded' weighs its stacks in samples or periods, 'i.folded' is an allocation profile in bytes ('# zt weight: bytes'): they cannot be summed"
}

@test "zt-stat: an allocation profile's header, in bytes" {
	run zt-stat --event=alloc_space a.raw
	assert_success
	assert_line --index 0 'allocation profile, alloc_space: 3.50MiB estimated bytes allocated (the samples'"'"' weights), one sample per 512.00KiB allocated on average'
	assert_line --index 1 'allocated: 1000 calls, 1.05MiB (counted by the collector)'
	assert_line --index 2 'sampled: 4 allocations, 1.00MiB of them; estimated 3.50MiB allocated'
	assert_line --index 3 'peak: 2.50MiB live (estimated) at 2.400 s; live at the end: 2.00MiB'
	assert_line --regexp '^ +2\.00MiB +57\.14% +57\.14% +2\.00MiB +57\.14%  site_b$'
	assert_line --regexp '^ +1\.50MiB +42\.86% +100\.00% +1\.50MiB +42\.86%  site_a$'
	run zt-stat --event=inuse_objects a.raw
	assert_line --index 0 'allocation profile, inuse_objects: 2 estimated objects live at the end (the samples'"'"' weights), one sample per 512.00KiB allocated on average'
	# The time view says the allocations are there.
	run zt-stat a.raw
	assert_line --index 0 --partial 'samples: '
	assert_line 'allocations: sampled every 524288 bytes on average, beside the time: --event=alloc_space, alloc_objects, inuse_space, inuse_objects, peak_inuse_space or peak_inuse_objects shows them'
	# JSON: the facts, null where the dump does not say.
	run zt-stat --json --event=peak_inuse_space a.raw
	assert_output --partial '"unit": "bytes", "total": 2621472'
	assert_output --partial '"allocation": {"view": "peak_inuse_space", "rate": 524288, "calls": 1000, "bytes": 1100000, "samples": 4, "peak_bytes": 2621472, "peak_ns": 2400000000, "inuse_bytes": 2097152, "untracked": null, "lost": null, "sampled_bytes": 1048768, "estimated_bytes": 3670112}'
	# Folded stacks: the unit and rate of their weight line.
	zt-fold --event=alloc_space a.raw > as.folded
	run zt-stat as.folded
	assert_line --index 0 'allocation profile, bytes: 3.50MiB estimated bytes (the samples'"'"' weights), one sample per 512.00KiB allocated on average'
}

@test "zt-flame: memory in its own palette, in bytes or objects" {
	zt-flame --event=alloc_space a.raw > a.svg
	grep -q '<text id="title" x="600" y="24">Memory Flame Graph (bytes)</text>' a.svg
	grep -q '<title>site_a (1,572,960 bytes, 42.86%)</title>' a.svg
	grep -q '<title>all (3,670,112 bytes, 100%)</title>' a.svg
	# flamegraph.pl's --colors=mem: no red, green 190 to 240.
	run grep -o 'fill="rgb([0-9]*,[0-9]*,[0-9]*)"' a.svg
	refute_output --regexp 'rgb\([1-9]'
	zt-flame --event=peak_inuse_objects a.raw | grep -q '<title>site_a (8,193 objects, '
	# The same from folded stacks; a CPU profile keeps its graph.
	zt-fold --event=alloc_space a.raw | zt-flame > f.svg
	cmp a.svg f.svg
	zt-flame c.raw > c.svg
	zt-flame a.raw > t.svg
	cmp c.svg t.svg
	run -1 --separate-stderr zt-flame c.raw ao.raw
	assert_equal "$stderr" "zt-flame: 'ao.raw': bytes, but the first input is not an allocation profile: they cannot be drawn in one graph"
}
