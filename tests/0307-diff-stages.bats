# 0307-diff-stages.bats — zt-diff reads every stage: two raw dumps, a dump
# and a stream, or perf script text compare as their folded stacks do,
# byte for byte, in difffolded.pl's layout and in --report.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-diff of two raw dumps equals zt-diff of their folded stacks, with -n and -s" {
	for o in "" -n -s; do
		zt-diff $o p.folded q.folded > want
		into got zt-diff $o p.raw q.raw
		cmp want got || { echo "differs with '$o'"; return 1; }
		into got zt-diff $o p.sym - < q.raw.gz
		cmp want got || { echo "differs with '$o' (stream, dump)"; return 1; }
	done
	grep -q 'hot_a [0-9]* [0-9]*$' want
}

@test "zt-diff --report of raw dumps equals the report of their folded stacks" {
	zt-diff --report p.folded q.folded > want
	into got zt-diff --report p.raw q.raw
	cmp want got
	zt-diff --report --json p.folded -- q.folded p.folded > want
	into got zt-diff --report --json p.raw -- q.raw p.sym
	cmp want got
	grep -q '"name": "hot_a"' got
}

@test "zt-diff takes the symbolizer's options for a raw dump" {
	zt-diff p.folded q.folded > want
	into got zt-diff -d arch moved.raw q.raw
	cmp want got
	zt-diff moved.raw q.raw > got 2> /dev/null
	! cmp -s want got
}

@test "zt-diff of perf script text equals zt-diff of its zt-fold output" {
	f="$DATA/perf-script/perf-funcab-cmd-01.txt"
	zt-fold "$f" > f.folded
	zt-diff f.folded p.folded > want
	into got zt-diff "$f" p.raw
	cmp want got
}

@test "zt-diff refuses a differential input: one line that says what it is" {
	zt-diff p.folded q.folded > d.folded
	run -1 --separate-stderr zt-diff d.folded p.raw
	assert_output ""
	assert_equal "$stderr" "zt-diff: 'd.folded': differential folded stacks (zt-diff's output, two counts a line): zt-flame draws them; this tool reads one profile"
}
