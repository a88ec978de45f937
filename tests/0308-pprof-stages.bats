# 0308-pprof-stages.bats — zt-pprof reads every stage: a raw dump as before
# (addresses, mappings, lines), a stream, perf script text and folded
# stacks as a profile of names, the bytes of `zt-fold | zt-pprof`.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-pprof on a raw dump: the same profile from the file, from gzip on stdin" {
	zt-pprof -o want.pb.gz p.raw
	zt-pprof -o got.pb.gz < p.raw.gz
	cmp want.pb.gz got.pb.gz
	zt-pprof --lines -o lines.pb.gz p.raw
	! cmp -s want.pb.gz lines.pb.gz
}

@test "zt-pprof on a stream, perf script text or folded stacks equals zt-fold | zt-pprof" {
	zt-fold p.sym | zt-pprof -o want.pb.gz
	zt-pprof -o got.pb.gz p.sym
	cmp want.pb.gz got.pb.gz
	zt-pprof -o got.pb.gz p.folded
	cmp want.pb.gz got.pb.gz
	f="$DATA/perf-script/perf-funcab-cmd-01.txt"
	zt-fold "$f" | zt-pprof > want.pb.gz
	zt-pprof "$f" > got.pb.gz
	cmp want.pb.gz got.pb.gz
}

@test "go tool pprof reads zt-pprof's profile of folded stacks: the same samples as zt-stat" {
	command -v go > /dev/null || skip "go (golang-go) is not installed"
	zt-pprof -o f.pb.gz p.folded
	run --separate-stderr env HOME="$BATS_TEST_TMPDIR" GOCACHE="$BATS_TEST_TMPDIR" \
		go tool pprof -top -nodecount=3 f.pb.gz
	assert_success
	total=$(awk '{ n += $NF } END { print n }' p.folded)
	assert_output --partial "of $total total"
	assert_output --regexp "hot_a"
	assert_output --partial "zt: from folded stacks: names only"
}

@test "zt-pprof refuses a differential input and a profile of its own" {
	zt-diff p.folded q.folded > d.folded
	run -1 --separate-stderr zt-pprof -o x.pb.gz d.folded
	assert_equal "$stderr" "zt-pprof: 'd.folded': differential folded stacks (zt-diff's output, two counts a line): zt-flame draws them; this tool reads one profile"
	[ ! -e x.pb.gz ]
	zt-pprof -o p.pb.gz p.raw
	run -1 --separate-stderr zt-pprof -o x.pb.gz p.pb.gz
	assert_equal "$stderr" "zt-pprof: 'p.pb.gz': a pprof profile.proto (gzipped; zt-pprof writes them): go tool pprof reads it"
}
