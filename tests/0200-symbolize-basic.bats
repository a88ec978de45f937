#!/usr/bin/env bats
# zt-symbolize: a hand-written v1 dump, a real dump, the perf script layout,
# and every kind of bad input.

load helper

# A non-PIE copy of spin, so that its addresses are its link-time ones, and
# a v1 dump written by hand from nm's addresses.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O0 -fno-omit-frame-pointer -no-pie -o spin "$SAMPLES/spin.c"
	addr() { nm spin | F=$1 awk '$3 == ENVIRON["F"] { print $1 }'; }
	a=$(addr hot_a) b=$(addr hot_b) w=$(addr work) m=$(addr main)
	{
		echo "zt-prof 1"
		echo "hz 997"
		echo "dropped 0"
		echo "maps"
		readelf -lW spin | while read -r type off vaddr _ filesz _; do
			[ "$type" = LOAD ] || continue
			start=$((vaddr & ~4095)) end=$(((vaddr + filesz + 4095) & ~4095))
			printf '%08x-%08x r-xp %08x 08:01 42   %s\n' \
				"$start" "$end" $((off & ~4095)) "$PWD/spin"
		done
		echo "samples"
		printf '%x %x %x\n' $((0x$a + 4)) $((0x$w + 9)) $((0x$m + 9))
		printf '%x %x %x\n' $((0x$a + 4)) $((0x$w + 9)) $((0x$m + 9))
		printf '%x %x %x\n' $((0x$b + 4)) $((0x$w + 9)) $((0x$m + 9))
	} > v1.raw
	printf '%s\n' "$a" "$b" "$w" "$m" > addrs
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/spin "$BATS_FILE_TMPDIR"/v1.raw "$BATS_FILE_TMPDIR"/addrs .
	# The dump names the binary in the file's directory.
	sed -i "s|$BATS_FILE_TMPDIR/spin|$PWD/spin|" v1.raw
}

@test "a hand-written v1 dump symbolizes, identical samples merged" {
	{ read -r a; read -r b; read -r w; read -r m; } < addrs
	run --separate-stderr zt-symbolize v1.raw
	[ "$status" -eq 0 ]
	expected=$(cat <<EOT
# zt version 1
# zt hz 997
# zt timer unknown
# zt samples 3
# zt lost 0
spin 0/0 0.000000: 2 zt-samples:
	$(printf '%16x' $((0x$a + 4))) hot_a+0x4 ($PWD/spin)
	$(printf '%16x' $((0x$w + 9))) work+0x9 ($PWD/spin)
	$(printf '%16x' $((0x$m + 9))) main+0x9 ($PWD/spin)

spin 0/0 0.000000: 1 zt-samples:
	$(printf '%16x' $((0x$b + 4))) hot_b+0x4 ($PWD/spin)
	$(printf '%16x' $((0x$w + 9))) work+0x9 ($PWD/spin)
	$(printf '%16x' $((0x$m + 9))) main+0x9 ($PWD/spin)
EOT
)
	[ "$output" = "$expected" ]
	[ -z "$stderr" ]
}

@test "the stream folds to the same stacks and counts" {
	zt-symbolize v1.raw | zt-fold > folded
	printf 'spin;main;work;hot_a 2\nspin;main;work;hot_b 1\n' | diff - folded
}

@test "stdin and a gzip dump give the same output as the file" {
	zt-symbolize v1.raw > plain
	zt-symbolize < v1.raw | diff plain -
	gzip -c v1.raw > v1.raw.gz
	zt-symbolize v1.raw.gz | diff plain -
	zt-symbolize - < v1.raw.gz | diff plain -
}

@test "output is deterministic" {
	zt-symbolize v1.raw > one
	zt-symbolize v1.raw > two
	cmp one two
}

@test "a real dump: threads, pid and facts as # zt comments" {
	zt-collect -o real.raw "$SAMPLES/spin" 50 2>/dev/null
	run --separate-stderr zt-symbolize real.raw
	[ "$status" -eq 0 ]
	pid=$(sed -n 's/^pid //p' real.raw)
	[[ "${lines[0]}" == "# zt version 4" ]]
	[[ "$output" == *"# zt unwind auto"* ]]
	[[ "$output" == *"# zt partial "[0-9]* ]]
	[[ "$output" == *"# zt timer perf-task-clock"* ]]
	[[ "$output" == *"# zt pid $pid"* ]]
	[[ "$output" == *"# zt thread $pid spin"* ]]
	[[ "$output" == *"spin $pid/$pid "[0-9]*"."[0-9][0-9][0-9][0-9][0-9][0-9]": 1 zt-samples:"* ]]
	[[ "$output" == *" hot_a+0x"*" ($SAMPLES/spin)"* ]]
	# The sample counts add up to the dump's.
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' real.raw)
	sum=$(printf '%s\n' "$output" | awk '/zt-samples:$/ { s += $(NF-1) } END { print s }')
	[ "$n" = "$sum" ]
}

@test "a file missing from the maps gives [basename] and one warning" {
	sed -i "s|$PWD/spin|$PWD/gone|" v1.raw
	run --separate-stderr zt-symbolize v1.raw
	[ "$status" -eq 0 ]
	[ "$stderr" = "zt-symbolize: '$PWD/gone': cannot open: No such file or directory; its frames are named [gone]" ]
	[[ "$output" == *"# zt warning '$PWD/gone': cannot open"* ]]
	[ "$(printf '%s\n' "$output" | grep -c ' \[gone\] (')" -eq 6 ]
}

@test "a file in the maps that is not ELF gives [basename] and one warning" {
	echo "just text" > notelf
	sed -i "s|$PWD/spin|$PWD/notelf|" v1.raw
	run --separate-stderr zt-symbolize v1.raw
	[ "$status" -eq 0 ]
	[ "$stderr" = "zt-symbolize: '$PWD/notelf': not an ELF file; its frames are named [notelf]" ]
	[[ "$output" == *" [notelf] ($PWD/notelf)"* ]]
}

@test "a binary whose build-id differs from the dump's is not trusted" {
	zt-collect -o real.raw "$SAMPLES/spin" 20 2>/dev/null
	sed -i 's|^\([0-9a-f]* @[0-9]* \)[0-9a-f]* -$|\1deadbeef -|' real.raw
	grep -q ' deadbeef -$' real.raw
	run --separate-stderr zt-symbolize real.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"'$SAMPLES/spin': build-id mismatch: the dump has deadbeef"* ]]
	[[ "$output" != *"hot_a"* ]]
	[[ "$output" == *" [spin] ($SAMPLES/spin)"* ]]
}

@test "addresses outside every mapping are [unknown]" {
	printf 'zt-prof 1\nmaps\nsamples\n1234 5678\n' > u.raw
	run zt-symbolize u.raw
	[ "$status" -eq 0 ]
	[[ "$output" == *"            1234 [unknown] ([unknown])"* ]]
}

@test "garbage input is refused with its line number and no output" {
	printf 'hello\n' > g.raw
	run --separate-stderr zt-symbolize g.raw
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "zt-symbolize: 'g.raw': line 1: not a zt raw dump (expected 'zt-prof 1' to '6')" ]
	run --separate-stderr zt-symbolize < g.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: line 1: not a zt raw dump (expected 'zt-prof 1' to '6')" ]
}

@test "a malformed sample names its line" {
	printf 'zt-prof 1\nsamples\n4011 zz\n' > m.raw
	run --separate-stderr zt-symbolize m.raw
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "zt-symbolize: 'm.raw': line 3: sample: bad address 'zz'" ]
}

@test "a truncated v2 dump is refused, naming the last line" {
	zt-collect -o real.raw "$SAMPLES/spin" 20 2>/dev/null
	head -n 5 real.raw > cut.raw
	run --separate-stderr zt-symbolize cut.raw
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "zt-symbolize: 'cut.raw': line 5: truncated dump"* ]]
}

@test "a dump cut inside a line is refused, naming the line and the cut" {
	zt-collect -o real.raw "$SAMPLES/spin" 20 2>/dev/null
	# The cut falls inside the first maps line, in its address range.
	n=$(grep -n -m1 '^[0-9a-f]*-[0-9a-f]* ' real.raw | cut -d: -f1)
	head -c $(( $(head -n $((n - 1)) real.raw | wc -c) + 5 )) real.raw > cut.raw
	run --separate-stderr zt-symbolize cut.raw
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "zt-symbolize: 'cut.raw': line $n: "*" (the dump ends inside this line: truncated)" ]]
	# A whole last line that is wrong is not called a cut.
	{ head -n $((n - 1)) real.raw; echo '12345 x'; } > bad.raw
	run --separate-stderr zt-symbolize bad.raw
	[ "$status" -eq 1 ]
	[[ "$stderr" != *truncated* ]]
}

@test "a truncated gzip dump is refused" {
	zt-collect -o real.raw "$SAMPLES/spin" 20 2>/dev/null
	gzip -c real.raw | head -c 300 > cut.raw.gz
	run --separate-stderr zt-symbolize cut.raw.gz
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "zt-symbolize: 'cut.raw.gz': "* ]]
}

@test "an empty input and a missing file are errors" {
	run --separate-stderr zt-symbolize < /dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: empty input, not a zt raw dump" ]
	run --separate-stderr zt-symbolize nothere.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: cannot open 'nothere.raw': No such file or directory" ]
}

@test "bad usage exits 2 with usage; --help exits 0" {
	run --separate-stderr zt-symbolize --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: zt-symbolize ["*"] [FILE]"* ]]
	run --separate-stderr zt-symbolize a b
	[ "$status" -eq 2 ]
	run --separate-stderr zt-symbolize --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: zt-symbolize ["*"] [FILE]"* ]]
}
