# 0306-flame-stages.bats — zt-flame reads every stage: `zt-collect ./prog &&
# zt-flame zt.raw > prog.svg` is the whole way to a flame graph, and gives
# the bytes of `zt-symbolize zt.raw | zt-fold | zt-flame`.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-collect ./prog && zt-flame zt.raw > prog.svg: the pipeline's bytes" {
	cd "$BATS_TEST_TMPDIR"
	zt-collect "$BATS_FILE_TMPDIR/prog" 100000000 2> /dev/null && zt-flame zt.raw > prog.svg
	zt-symbolize zt.raw 2> /dev/null | zt-fold | zt-flame > want.svg
	cmp want.svg prog.svg
	grep -q '<title>hot_a (' prog.svg
}

@test "zt-flame on a raw dump (plain, gzip, stdin), a stream and perf script text equals the pipeline" {
	zt-symbolize p.raw 2> /dev/null | zt-fold | zt-flame > want
	into got zt-flame p.raw
	cmp want got
	into got zt-flame p.raw.gz
	cmp want got
	into got zt-flame - < p.raw
	cmp want got
	into got zt-flame p.sym
	cmp want got
	zt-fold "$DATA/perf-script/perf-funcab-cmd-01.txt" | zt-flame -t T > want
	into got zt-flame -t T "$DATA/perf-script/perf-funcab-cmd-01.txt"
	cmp want got
}

@test "zt-flame with the symbolizer's options and its own equals the pipeline" {
	zt-symbolize -d arch --lines --no-demangle moved.raw 2> /dev/null | zt-fold |
		zt-flame -i -w 800 > want
	grep -q '<title>hot_a (' want
	into got zt-flame -d arch --lines --no-demangle -i -w 800 moved.raw
	cmp want got
	run -2 --separate-stderr zt-flame --sysroot=/nonexistent p.raw
}

@test "zt-flame draws zt-diff of two raw dumps as of their folded stacks" {
	zt-diff p.folded q.folded | zt-flame > want
	zt-diff p.raw q.raw | zt-flame > got
	cmp want got
	grep -q 'rgb(' got
}
