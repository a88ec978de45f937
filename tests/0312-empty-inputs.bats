# 0312-empty-inputs.bats — a set of inputs where one holds no samples (the
# dump of a descendant that never ran long enough, or, here, one whose
# sampling was never started): the empty one is named in one warning and the
# others are read, by every tool; only when every input is empty is it an
# error. zt-pprof takes several inputs and adds them up.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() {
	stages_setup
	# --paused and never started: a whole dump with no samples, every time.
	zt-collect --paused -o e.raw ./prog 1000 2> /dev/null
	grep -qx 'samples 0' e.raw
	zt-symbolize e.raw > e.sym 2> /dev/null
}
setup() { cd "$BATS_FILE_TMPDIR"; }

# A profile's samples, one line each ("value frame frame ..."), sorted.
traces() {
	env HOME="$BATS_TEST_TMPDIR" GOCACHE="$BATS_TEST_TMPDIR" go tool pprof -traces "$1" 2> /dev/null |
		awk '/^-----------\+/ { if (b != "") print b; b = ""; on = 1; next }
		     on { $1 = $1; b = b " " $0 }
		     END { if (b != "") print b }' | sort
}

@test "zt-stat: an empty dump among others is a warning naming it, and the table is the others'" {
	# The table (after the header, whose CPU time is every dump's).
	zt-stat p.raw q.raw 2> /dev/null | sed '1,/^$/d' > want
	run --separate-stderr zt-stat p.raw e.raw q.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "$stderr" "zt-stat: no samples in 'e.raw'; read the other 2 inputs"
	grep -q hot_a want
	diff want <(printf '%s\n' "$output" | sed '1,/^$/d')
}

@test "zt-flame: an empty dump among others draws the others; alone it is an error, never a silent 0-byte SVG" {
	zt-flame p.raw > want.svg 2> /dev/null
	run --separate-stderr zt-flame e.raw p.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "$stderr" "zt-flame: no samples in 'e.raw'; read the other input"
	[ "$output" = "$(cat want.svg)" ]
	run --separate-stderr zt-flame e.raw e.sym
	echo "status $status; stderr: $stderr"
	assert_failure 1
	assert_equal "$stderr" "zt-flame: no samples in any input ('e.raw', 'e.sym')"
}

@test "zt-fold: an empty dump among records and among folded stacks" {
	run --separate-stderr zt-fold p.raw e.raw
	assert_success
	assert_equal "$stderr" "zt-fold: no samples in 'e.raw'; read the other input"
	assert_output "$(zt-fold p.raw 2> /dev/null)"
	run --separate-stderr zt-fold e.raw p.folded
	assert_success
	assert_equal "$stderr" "zt-fold: no samples in 'e.raw'; read the other input"
	assert_output "$(cat p.folded)"
	run --separate-stderr zt-fold e.raw
	assert_failure 1
	assert_equal "$stderr" "zt-fold: 'e.raw': no samples in the input"
}

@test "zt-diff: an empty side has every stack at 0; an empty run of --report is left out" {
	run --separate-stderr zt-diff e.raw p.folded
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "$stderr" "zt-diff: no samples in 'e.raw'; read the other input"
	assert_output "$(awk '{ n = $NF; $NF = ""; print $0 "0 " n }' p.folded)"
	zt-diff --report p.raw -- q.raw > want 2> /dev/null
	run --separate-stderr zt-diff --report p.raw e.raw -- q.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "$stderr" "zt-diff: no samples in 'e.raw'; read the other input"
	assert_output "$(cat want)"
	run --separate-stderr zt-diff --report e.raw -- q.raw
	assert_failure 1
	assert_equal "$stderr" "zt-diff: before: 'e.raw': no samples in the input"
}

@test "zt-pprof: several inputs are added up, an empty one named; all empty is an error" {
	command -v go > /dev/null || skip "go (golang-go) is not installed"
	run --separate-stderr zt-pprof -o pq.pb.gz p.raw e.raw q.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "${stderr##*$'\n'}" "zt-pprof: no samples in 'e.raw'; read the other 2 inputs"
	# Its samples are those of both dumps.
	want=$(awk '$1 == "samples" && NF == 2 { n += $2 } END { print n }' p.raw q.raw)
	got=$(env HOME="$BATS_TEST_TMPDIR" GOCACHE="$BATS_TEST_TMPDIR" go tool pprof -raw pq.pb.gz |
		awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $2 ~ /:$/ { n += $1 }
		     END { print n + 0 }')
	echo "samples: $got in the profile, $want in the dumps"
	[ "$got" = "$want" ]
	# Other stages: one profile of names, as zt-fold's output of them all.
	zt-fold p.folded q.folded | zt-pprof -o want.pb.gz
	zt-pprof -o got.pb.gz p.folded e.raw q.folded 2> /dev/null
	# The same samples (value and stack each), in whatever order each
	# profile numbered its locations: zt-fold sorts the stacks, zt-pprof
	# adds them input by input.
	traces want.pb.gz > want
	traces got.pb.gz > got
	grep -q 'hot_a' want
	diff want got
	run --separate-stderr zt-pprof -o none.pb.gz e.raw
	assert_failure 1
	assert_equal "$stderr" "zt-pprof: 'e.raw': no samples in the input"
	[ ! -e none.pb.gz ]
}
