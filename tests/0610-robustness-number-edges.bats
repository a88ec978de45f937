#!/usr/bin/env bats
# Numbers at their edges (issue 17, item 7): each is an error naming the
# line, or a saturation the man page documents, never a wrap. Sample times
# past 2^64 ns, pprof values past 2^63 - 1, differential counts that
# differ by 2^63 or more, and '# zt weight:' lines that are not one
# declaration, before the first stack, of a known unit.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# A version 3 dump of one mapping of a file that is not there: $1 the
# header lines, $2 the sample lines.
raw3() {
	printf 'zt-prof 3\nhz 997\n%bmaps\n00400000-00401000 r-xp 00000000 08:01 42 /nonexistent\nsamples\n%bend\n' "$1" "$2"
}

@test "a sample time past 2^64 - 1 ns, alone or after start-ns, is an error naming its line" {
	raw3 '' '1 1 @18446744073709551615 400100\n1 1 @18446744073709551616 400100\n' > past.raw
	run --separate-stderr zt-symbolize past.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: 'past.raw': line 7: sample: time past 2^64 - 1 ns" ]
	[ -z "$output" ]
	raw3 'start-ns 18446744073709551000\n' '1 1 @615 400100\n1 1 @616 400100\n' > sum.raw
	run --separate-stderr zt-symbolize sum.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: 'sum.raw': line 8: sample: time past 2^64 - 1 ns after start-ns" ]
	run --separate-stderr zt-stat sum.raw
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"'sum.raw': line 8: sample: time past 2^64 - 1 ns after start-ns" ]]
	# The largest time that fits is a record at 18446744073.709551615 s.
	raw3 'start-ns 18446744073709551000\n' '1 1 @615 400100\n' > edge.raw
	run zt-symbolize edge.raw
	[ "$status" -eq 0 ]
	[[ "$output" == *" 18446744073.709551: 1 zt-samples:"* ]]
}

@test "zt-pprof: values past 2^63 - 1 saturate at it, with a warning saying how many" {
	raw3 'cpu-ns 18446744073709551615\n' '1 9300000000000000000 400100\n1 10000000000000 400200\n1 5 400300\n' > big.raw
	run --separate-stderr zt-pprof -o big.pb.gz big.raw
	[ "$status" -eq 0 ]
	# The count of the first stack and its CPU time, the second's CPU
	# time (10^13 x 1003009 ns) and the duration.
	[[ "$stderr" == *"zt-pprof: 4 values past 2^63 - 1 written as 2^63 - 1 (profile.proto's values are int64)" ]]
	# A folded count past 2^63 that is a number of samples below it once
	# divided by the declared period is exact, and nothing saturates.
	printf '# zt weight: period cpu-clock 2 ns\na;b 18446744073709551614\nc 4\n' > div.folded
	run --separate-stderr zt-pprof -o div.pb.gz div.folded
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	command -v go > /dev/null || skip "go tool pprof is missing: golang-go is not installed"
	run go tool pprof -raw big.pb.gz
	[[ "$output" == *" 9223372036854775807 9223372036854775807: 1 "* ]]
	[[ "$output" == *" 10000000000000 9223372036854775807: 2 "* ]]
	[[ "$output" == *"          5    5015045: 3 "* ]]
	run go tool pprof -raw div.pb.gz
	[[ "$output" == *" 9223372036854775807: 1 2 "* ]]
}

# The fill and title of frame $2 in SVG file $1.
frame() {
	grep -o "<title>$2 ([^<]*</title><rect [^>]*fill=\"[^\"]*\"" "$1" |
		sed 's/<title>\([^<]*\)<\/title>.*fill="\([^"]*\)"/\1 \2/'
}

@test "zt-flame: a frame that grew by 2^63 or more is red, and --negate draws it blue" {
	printf 'a;grew 0 9223372036854775813\n' > grew.diff
	zt-flame grew.diff > g.svg
	[ "$(frame g.svg grew)" = "grew (9,223,372,036,854,775,813 samples, 100.00%; +100.00%) rgb(255,0,0)" ]
	zt-flame --negate grew.diff > gn.svg
	[ "$(frame gn.svg grew)" = "grew (9,223,372,036,854,775,813 samples, 100.00%; -100.00%) rgb(0,0,255)" ]
	# Down from 2^64 - 1 to 1: blue, and red the other way round.
	printf 'a;shrank 18446744073709551615 1\n' > shrank.diff
	zt-flame shrank.diff > s.svg
	[[ "$(frame s.svg shrank)" == "shrank (1 samples, 100.00%; -"*"%) rgb(0,0,255)" ]]
	zt-flame --negate shrank.diff > sn.svg
	[[ "$(frame sn.svg shrank)" == "shrank (1 samples, 100.00%; +"*"%) rgb(255,0,0)" ]]
	# No change is white and 0.00% either way, never -0.00%.
	printf 'a;same 7 7\n' > same.diff
	zt-flame --negate same.diff > e.svg
	[ "$(frame e.svg same)" = "same (7 samples, 100.00%; 0.00%) rgb(255,255,255)" ]
}

@test "'# zt weight:': a second one, one after a stack, or an unknown unit is an error naming its line" {
	printf '# zt weight: samples\n# zt weight: samples\na;b 3\n' > two.folded
	printf 'a;b 3\n# zt weight: samples\nc 2\n' > late.folded
	printf '# zt weight: period cpu-clock 1003009 furlongs\na;b 1003009\n' > unit.folded
	printf '# zt weight: period cycles 1000 ns\na;b 3000\n' > clash.folded
	for tool in zt-stat "zt-diff --report" "zt-pprof -o out.pb.gz"; do
		name=${tool%% *}
		# zt-diff --report reads each file twice: before and after.
		[ "$name" = zt-diff ] && twice=1 || twice=
		run --separate-stderr $tool two.folded ${twice:+two.folded}
		[ "$status" -eq 1 ]
		[ "$stderr" = "$name: 'two.folded': line 2: a second '# zt weight:' line (a file declares its weight once)" ]
		run --separate-stderr $tool late.folded ${twice:+late.folded}
		[ "$status" -eq 1 ]
		[ "$stderr" = "$name: 'late.folded': line 2: '# zt weight:' after the first stack (it goes before every stack)" ]
		run --separate-stderr $tool unit.folded ${twice:+unit.folded}
		[ "$status" -eq 1 ]
		[ "$stderr" = "$name: 'unit.folded': line 1: '# zt weight: period' wants the unit 'ns' or 'events'" ]
		run --separate-stderr $tool clash.folded ${twice:+clash.folded}
		[ "$status" -eq 1 ]
		[ "$stderr" = "$name: 'clash.folded': line 1: '# zt weight: period' of an event that is not a clock wants the unit 'events'" ]
	done
	# One declaration before the stacks, as zt-fold --weight writes it, reads.
	printf '# zt weight: period cpu-clock 1003009 ns\n# another comment\na;b 3009027\n' > one.folded
	run zt-stat one.folded
	[ "$status" -eq 0 ]
	[[ "$output" == "samples: 3 "* ]]
}
