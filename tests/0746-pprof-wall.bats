#!/usr/bin/env bats
# zt-pprof on a wall-clock profile: sample types samples/count and
# wall/nanoseconds, a "state" label (on-CPU, off-CPU, waiting for a CPU),
# and an off-CPU stack's leaf its wait, as go tool pprof reads them.

load helper
load wall

setup_file() {
	command -v go >/dev/null || return 0
	wall_setup
	zt-fold w.raw > w.folded 2> /dev/null
	export HOME=$BATS_FILE_TMPDIR PPROF_TMPDIR=$BATS_FILE_TMPDIR
	zt-pprof -o w.pb.gz w.raw 2> /dev/null
	zt-pprof -o f.pb.gz w.folded 2> /dev/null
	zt-pprof -o c.pb.gz c.raw 2> /dev/null
}

setup() {
	command -v go >/dev/null ||
		skip "go tool pprof is missing: golang-go is not installed (make deps installs it)"
	cd "$BATS_FILE_TMPDIR"
	export HOME=$BATS_FILE_TMPDIR PPROF_TMPDIR=$BATS_FILE_TMPDIR
}

# The ns of w.raw's sample lines that match awk regex $1.
ns_of() {
	R=$1 awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 } s && $0 ~ ENVIRON["R"] {
		for (i = 3; i <= NF; i++) if (substr($i, 1, 1) == "^") t += $2 * substr($i, 2) }
	     END { printf "%.0f\n", t }' w.raw
}

# The sum of wall/nanoseconds (column $2 of -raw's samples) labelled state:[$2] in profile $1.
state_ns() {
	go tool pprof -raw "$1" 2> /dev/null | S="state:[$2]" awk -v col="$3" '
		/^ *[0-9]+ *[0-9]*: / { v = $col; sub(/:$/, "", v); next }
		index($0, ENVIRON["S"]) { t += v } END { printf "%.0f\n", t }'
}

@test "a wall-clock dump: samples/count and wall/nanoseconds, labelled by state" {
	run go tool pprof -raw w.pb.gz
	assert_line 'PeriodType: wall nanoseconds'
	assert_line 'samples/count wall/nanoseconds'
	[ "$(state_ns w.pb.gz on-CPU 2)" = "$(ns_of '^[^!]*$')" ]
	[ "$(state_ns w.pb.gz off-CPU 2)" = "$(ns_of ' !futex ')" ]
	[ "$(state_ns w.pb.gz 'waiting for a CPU' 2)" = "$(ns_of ' !waiting')" ]
	# The wait is the leaf: pprof's top function.
	go tool pprof -top -sample_index=wall w.pb.gz 2> /dev/null > top.txt
	grep -q '^Type: wall$' top.txt
	awk '$1 == "flat" { getline; print $NF; exit }' top.txt | grep -qx '\[futex\]'
}

@test "folded stacks declared '# zt weight: ns': wall/nanoseconds, labelled by state" {
	run go tool pprof -raw f.pb.gz
	assert_line 'wall/nanoseconds'
	[ "$(state_ns f.pb.gz off-CPU 1)" = "$(ns_of ' !futex ')" ]
	[ "$(state_ns f.pb.gz on-CPU 1)" = "$(ns_of '^[^!]*$')" ]
}

@test "a CPU profile keeps samples/count and cpu/nanoseconds, without states" {
	run go tool pprof -raw c.pb.gz
	assert_line 'samples/count cpu/nanoseconds'
	refute_output --partial 'state:'
	refute_output --partial 'wall'
}
