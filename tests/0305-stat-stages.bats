# 0305-stat-stages.bats — zt-stat reads every stage: a raw dump gives the
# bytes of `zt-symbolize | zt-stat` for every view, and of zt-symbolize
# --lines for the views of source lines.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-stat on a raw dump equals zt-symbolize | zt-stat, for every view" {
	for o in "" --by=module --by=thread --sort=cum --json "-n 1" --peek=main \
		 --focus=hot_b --hide=main; do
		zt-symbolize p.raw 2> /dev/null | zt-stat $o > want
		into got zt-stat $o p.raw
		cmp want got || { echo "differs with '$o'"; return 1; }
		into got zt-stat $o < p.raw.gz
		cmp want got || { echo "differs with '$o' on stdin"; return 1; }
	done
	grep -q 'hot_a' want
}

@test "zt-stat --lines on a raw dump equals zt-symbolize --lines | zt-stat, by line and --list" {
	zt-symbolize --lines p.raw 2> /dev/null | zt-stat --by=line > want
	grep -q 'p.c:[0-9]' want
	into got zt-stat --lines --by=line p.raw
	cmp want got
	zt-symbolize --lines p.raw 2> /dev/null | zt-stat --list=hot_a > want
	into got zt-stat -l --list=hot_a p.raw
	cmp want got
	run -1 --separate-stderr zt-stat --by=line p.raw
	assert_output ""
	assert_equal "$stderr" "zt-stat: 'p.raw': a raw dump read without --lines gives no source lines; --by=line needs --lines"
}

@test "zt-stat adds a raw dump and a stream as one profile, as it adds two streams" {
	zt-symbolize p.raw 2> /dev/null | cat - p.sym > two.sym
	zt-stat two.sym > want
	into got zt-stat p.raw p.sym
	cmp want got
	grep -q '^samples: ' got
}
