#!/usr/bin/env bats
# Allocation profiles (raw dump version 6) in zt-diff (bytes compared, a
# site's growth told from sampling noise by the samples behind its bytes)
# and zt-pprof (Go's heap profile layout, read by go tool pprof); every bad
# "$" line or alloc-* key refused with its line; dumps of other versions
# read as before (tests/alloc.bash makes the dumps).

load helper
load alloc

setup_file() {
	alloc_setup
	# before: 100 allocations at each site; grown: site_a's tripled;
	# noise: a few more at site_a, a few fewer at site_b.
	alloc_of c.raw 100 100 > before.raw
	alloc_of c.raw 300 100 > grown.raw
	alloc_of c.raw 104 96 > noise.raw
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	alloc_addrs
}

# bad LINE MESSAGE [VERSION]: a dump (version 6 unless said) whose only
# sample line is LINE is refused by zt-symbolize and zt-stat with "line 3:
# MESSAGE", exit 1.
bad() {
	printf 'zt-prof %s\nsamples\n%s\nend\n' "${3:-6}" "$1" > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 3: $2"
	run -1 --separate-stderr zt-stat bad.raw
	assert_equal "$stderr" "zt-stat: 'bad.raw': line 3: $2"
}

@test "zt-diff: bytes side by side, after the weight line" {
	run zt-diff --event=alloc_space before.raw grown.raw
	assert_success
	assert_line --index 0 '# zt weight: bytes, sampled every 524288 bytes'
	assert_line --index 1 'prog;main;site_a 52432000 157296000'
	assert_line --index 2 'prog;main;site_b 209715200 209715200'
	run zt-diff --event=inuse_objects before.raw grown.raw
	assert_line --index 0 '# zt weight: objects, sampled every 524288 bytes'
	assert_line --index 1 'prog;main;site_b 2 2'
	run -1 --separate-stderr zt-diff --event=alloc_space before.raw c.folded
	zt-fold c.raw > c.folded
	run -1 --separate-stderr zt-diff --event=alloc_space before.raw c.folded
	assert_equal "$stderr" "zt-diff: 'before.raw' is an allocation profile in bytes and 'c.folded' a CPU profile (samples or periods): they cannot be compared"
}

@test "zt-diff --report: growth of a site's bytes beyond sampling noise, not noise" {
	run zt-diff --report --event=alloc_space before.raw grown.raw
	assert_success
	assert_line --index 0 'allocation profiles: shares of the estimated bytes; each run'"'"'s bytes divided by its rate (the bytes a sample stands for at least) are the samples the tests count'
	# 100 x 524320 + 100 x 2097152 bytes, over 524288: 500 samples' worth.
	assert_line --index 1 'before: 500 samples, after: 700 samples'
	assert_line --regexp ' significant +site_a$'
	run zt-diff --report --event=alloc_space before.raw noise.raw
	assert_success
	assert_line --regexp ' within noise +site_a$'
	assert_line --regexp ' within noise +site_b$'
	assert_line --partial '0 of 4 functions changed beyond sampling noise'
	run zt-diff --report --json --event=alloc_space before.raw grown.raw
	assert_output --partial '{"weight": "bytes", "before_runs": 1'
	# Objects have no count of samples behind them; nor bytes without a rate.
	run -1 --separate-stderr zt-diff --report --event=alloc_objects before.raw grown.raw
	assert_equal "$stderr" "zt-diff: 'before.raw': an allocation profile in objects: --report tests bytes, told from sampling noise by the samples behind them (--event=alloc_space, inuse_space or peak_inuse_space); compare objects without --report"
	zt-fold --event=alloc_space before.raw | sed 1d > b.folded
	printf '# zt weight: bytes\n' | cat - b.folded > nb.folded
	run -1 --separate-stderr zt-diff --report nb.folded grown.raw
	assert_equal "$stderr" "zt-diff: 'nb.folded': an allocation profile in bytes that does not say its sampling rate ('# zt weight: bytes, sampled every N bytes'), which --report needs to count the samples behind the bytes"
	# The folded stacks with their weight line: the same report.
	zt-fold --event=alloc_space before.raw > bf.folded
	zt-fold --event=alloc_space grown.raw > gf.folded
	diff <(zt-diff --report bf.folded gf.folded) <(zt-diff --report --event=alloc_space before.raw grown.raw)
}

@test "zt-pprof: Go's heap profile, which go tool pprof reads" {
	command -v go || skip "go is not installed"
	zt-pprof -o a.pb.gz a.raw
	run go tool pprof -sample_index=inuse_space -top a.pb.gz
	assert_success
	assert_line 'Type: inuse_space'
	assert_line --regexp '^ +2MB +100% +100% +2MB +100%  site_b$'
	run go tool pprof -sample_index=alloc_objects -top a.pb.gz
	assert_line --regexp '^ +24578 +100% +100% +24578 +100%  site_a$'
	run go tool pprof -raw a.pb.gz
	assert_line 'alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes[dflt] peak_inuse_objects/count peak_inuse_space/bytes'
	assert_line 'PeriodType: space bytes'
	assert_line 'Period: 524288'
	assert_line --partial 'bytes:[1048576]'
	# --event picks the default type, or the CPU profile.
	zt-pprof --event=alloc_space -o s.pb.gz a.raw
	run go tool pprof -top s.pb.gz
	assert_line 'Type: alloc_space'
	zt-pprof --event=time -o t.pb.gz a.raw
	run -1 --separate-stderr zt-pprof --event=alloc_space -o x.pb.gz c.raw
	assert_equal "$stderr" "zt-pprof: 'c.raw': no samples in the input"
	zt-pprof -o c.pb.gz c.raw
	run go tool pprof -raw t.pb.gz
	assert_line 'samples/count cpu/nanoseconds'
	# Folded allocation stacks: one sample type of their unit.
	zt-fold --event=alloc_space a.raw | zt-pprof -o f.pb.gz
	run go tool pprof -raw f.pb.gz
	assert_line 'space/bytes'
}

@test "a bad '\$' is refused with its line" {
	bad '7 1 $a64 401136' "sample: an allocation sample ('\$') wants its weight ('^', the bytes each sample stands for)"
	bad '7 1 @5 $a64 401136' "sample: an allocation sample ('\$') wants its weight ('^', the bytes each sample stands for)"
	bad '7 1 ^100 !futex $a64 401136' "sample: '!' and '\$' never come together (an off-CPU sample is no allocation)"
	bad '7 1 ^100 $a64 !futex 401136' "sample: '!' and '\$' never come together (an off-CPU sample is no allocation)"
	bad '7 1 ^100 $x64 401136' "sample: allocation kind '\$x64' is not 'a', 'i' or 'p' (allocated, live at the end, live at the peak)"
	bad '7 1 ^100 $a0 401136' 'sample: allocation size is zero'
	bad '7 1 ^100 $ax 401136' 'sample: allocation size is not a number'
	bad '7 1 ^100 $a 401136' 'sample: allocation size is not a number'
	bad '7 1 ^100 $a-1 401136' 'sample: allocation size is not a number'
	bad '7 1 ^18446744073709551615 $a9223372036854775809 401136' 'sample: allocation size past 2^63 bytes'
	bad '7 1 ^10 $a64 401136' "sample: weight 10 below the allocation's size 64 (a sample stands for its own bytes at least)"
	bad '7 2 ^18446744073709551615 $a64 401136' 'sample: count times weight passes 2^64 - 1 bytes'
	bad '7 1 ^100 $a64 ^5 401136' "sample: '^' out of order (a sample line is 'tid count [@ns] [^weight] [!wait | \$kindSIZE] address...')"
	bad '7 1 ^100 $a64 $a64 401136' "sample: '\$' out of order (a sample line is 'tid count [@ns] [^weight] [!wait | \$kindSIZE] address...')"
	bad '7 1 ^100 $a64' 'sample has no addresses'
	# Before version 6 a '$' is no allocation.
	bad '7 1 ^100 $a64 401136' "sample: '\$' (an allocation sample) in a version 5 dump (allocation samples are version 6)" 5
	bad '7 1 $a64 401136' "sample: '\$' (an allocation sample) in a version 4 dump (allocation samples are version 6)" 4
	# The keys.
	printf 'zt-prof 6\nalloc-rate 0\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 2: alloc-rate 0 is out of range (1 to 2^40 bytes)"
	printf 'zt-prof 6\nalloc-rate 1099511627777\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 2: alloc-rate 1099511627777 is out of range (1 to 2^40 bytes)"
	printf 'zt-prof 6\nsummary\nalloc-peak-bytes many\nend\n' > bad.raw
	run -1 --separate-stderr zt-symbolize bad.raw
	assert_equal "$stderr" "zt-symbolize: 'bad.raw': line 3: alloc-peak-bytes is not a number"
	# An unknown alloc- key is ignored, as every unknown key.
	printf 'zt-prof 6\nsummary\nalloc-future 3\nend\n' > ok.raw
	zt-symbolize ok.raw > /dev/null
}

@test "a '\$' line's weight is the bytes; sizes of a stack kept apart, summed by name" {
	printf 'zt-prof 6\nalloc-rate 100\nsamples\n7 1 ^150 $a100 =401136\n7 2 ^150 $a100 =401136\n7 1 ^300 $a300 =401136\n7 1 ^150 $i100 =401136\nend\n' > w.raw
	run zt-fold --event=alloc_space w.raw
	assert_line 'unknown;[unknown] 750'
	# objects: 1.5 + 2 x 1.5 rounded per stack: 5 (2, then 3 for two), and 1;
	# in use: 1.5, halves up: 2.
	run zt-fold --event=alloc_objects w.raw
	assert_line 'unknown;[unknown] 6'
	run zt-symbolize --merge w.raw
	assert_line --partial ': 5 zt-alloc-objects:'
	assert_line --partial ": 2 zt-inuse-objects:"
}

@test "dumps of other versions read as before; a version 6 dump without '\$' is a version 4 one" {
	zt-symbolize c.raw > c.sym
	sed '1s/.*/zt-prof 6/' c.raw > six.raw
	zt-symbolize six.raw > six.sym
	diff <(sed 1d c.sym) <(sed 1d six.sym)
	! grep -q 'alloc' c.sym
	zt-fold c.raw > c.folded
	zt-fold six.raw > six.folded
	cmp c.folded six.folded
	# A CPU line of a version 6 dump without "^" weighs nothing but its count.
	printf 'zt-prof 6\nsamples\n7 3 @5 401136\nend\n' > cpu.raw
	run zt-fold cpu.raw
	assert_output 'unknown;[unknown] 3'
}

@test "alloc-allocator: a fact, and zt-stat says what was not seen" {
	printf 'zt-prof 6\nalloc-rate 100\nalloc-allocator /tmp/a\\040b/prog\nsamples\n7 1 ^150 $a100 =401136\nend\n' > al.raw
	run zt-symbolize al.raw
	assert_line '# zt alloc-allocator /tmp/a b/prog'
	run zt-stat al.raw
	assert_line "allocator: the program's malloc is /tmp/a b/prog's, not zt's: only the calls that reach zt's interposers were seen"
}
