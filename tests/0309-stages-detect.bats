# 0309-stages-detect.bats — the analysis tools tell their inputs apart by
# content, not by name, and an input none of them reads gets one line that
# says what it looks like and what reads it, exit 1, no output.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() {
	stages_setup
	cp p.raw dump.folded
	cp p.sym stream.raw
	cp p.folded folded.sym
	zt-pprof -o prof.pb.gz p.raw
	gzip -dc prof.pb.gz > prof.pb
	zt-flame p.folded > graph.svg
	printf '<!DOCTYPE html>\n<html><body>a flame graph</body></html>\n' > page.html
	zt-stat --json p.raw > report.json
	{ printf 'PERFILE2'; head -c 200 /dev/zero; } > perf.data
}
setup() { cd "$BATS_FILE_TMPDIR"; }

# Every tool, on $1: exit 1, nothing on stdout, stderr "TOOL: '$1': $2".
refused_by_all() {
	for tool in zt-stat zt-fold zt-flame zt-diff zt-pprof; do
		case $tool in
		zt-diff) run -1 --separate-stderr zt-diff "$1" p.folded ;;
		zt-pprof) run -1 --separate-stderr zt-pprof -o x.pb.gz "$1" ;;
		*) run -1 --separate-stderr $tool "$1" ;;
		esac
		assert_output ""
		assert_equal "$stderr" "$tool: '$1': $2"
	done
}

@test "the name of a file does not matter: a dump named .folded, a stream named .raw" {
	zt-fold p.raw > want
	for tool in zt-fold zt-flame; do
		$tool p.raw > want
		$tool dump.folded > got
		cmp want got
	done
	zt-stat p.sym > want
	zt-stat stream.raw > got
	cmp want got
	zt-diff folded.sym p.folded > got
	zt-diff p.folded p.folded > want
	cmp want got
}

@test "a pprof profile, gzipped or not, is named and sent to go tool pprof" {
	refused_by_all prof.pb.gz "a pprof profile.proto (gzipped; zt-pprof writes them): go tool pprof reads it"
	refused_by_all prof.pb "a pprof profile.proto: go tool pprof reads it"
}

@test "a perf.data file is sent to perf script" {
	refused_by_all perf.data "a perf.data file (perf record's): perf script turns it into the text zt reads (perf script -i FILE | zt-fold)"
}

@test "a flame graph, a web page, a JSON report and a program are named" {
	refused_by_all graph.svg "an SVG image (a flame graph?): a web browser shows it"
	refused_by_all page.html "an HTML page: a web browser shows it"
	refused_by_all report.json "JSON (a report of zt-stat --json or zt-diff --report --json, or a speedscope profile?): no zt tool reads it; speedscope opens its own"
	refused_by_all prog "an ELF file, not a profile: zt-collect runs a program and profiles it"
}

@test "a perf script header that also reads as a folded line is a header when frames follow" {
	printf 'prog 1234/1234 77\n\t1 hot (m)\n\t2 main (m)\n\n' > pid-only.txt
	run zt-fold pid-only.txt
	assert_success
	assert_output "prog;main;hot 1"
	# Without frames after it, the same line is a folded stack.
	printf 'prog 1234/1234 77\n' > one.folded
	run zt-fold one.folded
	assert_success
	assert_output "prog 1234/1234 77"
}

@test "folded stacks whose first frame is in brackets or braces are folded stacks, not JSON" {
	printf '[unknown];main;hot 3\n{lambda};x 1\n' > brackets.folded
	run zt-fold brackets.folded
	assert_success
	assert_output "$(printf '[unknown];main;hot 3\n{lambda};x 1')"
	printf '{lambda};x 1\n' > braces.folded
	run zt-stat braces.folded
	assert_success
}

@test "a stream of a dump without samples is records, and says so" {
	printf '# zt hz 997\n# zt samples 0\n' > none.sym
	run -1 --separate-stderr zt-flame none.sym
	assert_equal "$stderr" "zt-flame: 'none.sym': no samples in the input"
	run -1 --separate-stderr zt-fold < /dev/null
	assert_equal "$stderr" "zt-fold: <stdin>: empty file"
}
