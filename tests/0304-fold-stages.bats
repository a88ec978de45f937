# 0304-fold-stages.bats — zt-fold reads every stage: a raw dump (plain,
# gzip, stdin) is symbolized in process and gives the bytes of
# `zt-symbolize | zt-fold`, with every option; folded stacks are summed and
# sorted; kinds it cannot read get one line saying what they are.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-fold on a raw dump equals zt-symbolize | zt-fold, plain, gzip and on stdin" {
	zt-symbolize p.raw 2> /dev/null | zt-fold > want
	grep -q 'hot_a' want
	into got zt-fold p.raw
	cmp want got
	into got zt-fold p.raw.gz
	cmp want got
	into got zt-fold < p.raw.gz
	cmp want got
}

@test "zt-fold on a raw dump equals the pipeline with every naming option" {
	for o in --pid --tid --addrs --kernel --all --weight=count --weight=period \
		 --focus=hot_a --ignore=hot_a --hide=main; do
		zt-symbolize p.raw 2> /dev/null | zt-fold $o > want
		into got zt-fold $o p.raw
		cmp want got || { echo "differs with $o"; return 1; }
	done
}

@test "zt-fold --lines --srcline on a raw dump equals zt-symbolize --lines | zt-fold --srcline" {
	zt-symbolize --lines p.raw 2> /dev/null | zt-fold --srcline > want
	grep -q 'hot_a:.*p.c:[0-9]' want
	into got zt-fold --lines --srcline p.raw
	cmp want got
	# Without --lines the dump has no source lines, as zt-symbolize's stream.
	into got zt-fold --srcline p.raw
	! grep -q 'hot_a:' got
}

@test "zt-fold takes zt-symbolize's options: --debug-dir finds a deleted binary by build-id" {
	zt-symbolize -d arch moved.raw 2> /dev/null | zt-fold > want
	grep -q hot_a want
	into got zt-fold --debug-dir=arch moved.raw
	cmp want got
	# Without it the binary is missing: one warning, named as zt-symbolize names it.
	run --separate-stderr zt-fold moved.raw
	assert_success
	[[ "$stderr" == "zt-fold: '$BATS_FILE_TMPDIR/gone/prog': "* ]]
	refute_output --partial hot_a
	run -2 --separate-stderr zt-fold --debug-dir=/nonexistent p.raw
}

@test "zt-fold on folded stacks sums and sorts them, alone or with records" {
	{ tail -n 1 p.folded; head -n 1 p.folded; tail -n 1 p.folded; } > shuffled
	into got zt-fold shuffled
	awk '{ c[$0 == "" ? "" : substr($0, 1, length($0) - length($NF) - 1)] += $NF }
		END { for (s in c) print s, c[s] }' shuffled | LC_ALL=C sort > want
	cmp want got
	# A raw dump and folded stacks: one stream, summed.
	into got zt-fold p.raw p.folded
	awk '{ print substr($0, 1, length($0) - length($NF) - 1), 2 * $NF }' p.folded > want
	cmp want got
}

@test "zt-fold refuses to rename folded stacks, and differential ones" {
	run -1 --separate-stderr zt-fold --pid p.folded
	assert_output ""
	assert_equal "$stderr" "zt-fold: 'p.folded': folded stacks have no records to name again; --pid needs perf script text or a raw dump"
	zt-diff p.folded q.folded > d.folded
	run -1 --separate-stderr zt-fold d.folded
	assert_equal "$stderr" "zt-fold: 'd.folded': differential folded stacks (zt-diff's output, two counts a line): zt-flame draws them; this tool reads one profile"
}
