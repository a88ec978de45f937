# 0311-perf-periods.bats — perf script text weighs its records by perf's
# periods (ns of cpu-clock or task-clock, events of cycles, 1 for a
# tracepoint); every tool that needs counts (zt-pprof, zt-diff, zt-flame)
# takes each record as one sample, as zt-stat counts them, and says so once.
load helper
bats_require_minimum_version 1.5.0

setup() { cd "$BATS_TEST_TMPDIR"; }

# perf script text of event $1: records of stack main;a ($2 of them) and
# main;b ($3), with period $4 (or, for "varies", 1000 + the record's number).
script() {
	awk -v ev="$1" -v na="$2" -v nb="$3" -v per="$4" 'BEGIN {
		for (i = 0; i < na + nb; i++) {
			p = per == "varies" ? 1000 + i : per
			printf "prog 7 1.%06d: %s %s:\n", i, p, ev
			printf "\t%x %s+0x1 (/x)\n\t2 main+0x1 (/x)\n\n", 16 + i, i < na ? "a" : "b"
		}
	}'
}

@test "zt-pprof and zt-diff --report read perf script of cpu-clock: one sample a record, said once" {
	script cpu-clock 30 10 1003009 > one.txt
	script cpu-clock 20 20 1003009 > two.txt
	run --separate-stderr zt-pprof -o p.pb.gz one.txt
	echo "status $status; stderr: $stderr"
	assert_success
	assert_equal "$stderr" "zt-pprof: 'one.txt': each record of perf's 'cpu-clock' is taken as one sample (a period of 1003009 ns)"
	run --separate-stderr zt-diff --report one.txt two.txt
	echo "status $status; stderr: $stderr"
	assert_success
	assert_line --index 0 "before: 40 samples, after: 40 samples"
	# Said once for both inputs.
	assert_equal "$stderr" "zt-diff: 'one.txt': each record of perf's 'cpu-clock' is taken as one sample (a period of 1003009 ns)"
	# The difference of folded stacks counts samples too, as zt-stat does.
	run --separate-stderr zt-diff one.txt two.txt
	assert_output "$(printf 'prog;main;a 30 20\nprog;main;b 10 20')"
	run zt-stat one.txt
	assert_line --index 0 --partial "samples: 40 "
}

@test "go tool pprof reads zt-pprof's profile of perf script text: its samples are the records" {
	command -v go > /dev/null || skip "go (golang-go) is not installed"
	script task-clock 30 10 250000 > one.txt
	zt-pprof -o p.pb.gz one.txt 2> /dev/null
	run env HOME="$BATS_TEST_TMPDIR" GOCACHE="$BATS_TEST_TMPDIR" go tool pprof -raw p.pb.gz
	assert_success
	got=$(printf '%s\n' "$output" | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && $1 ~ /:$/ { n += $1 } END { print n + 0 }')
	echo "samples in the profile: $got, records: 40"
	[ "$got" = 40 ]
}

@test "periods that vary (perf record -F on cycles) and tracepoints (period 1): one sample a record" {
	script cycles 3 1 varies > cyc.txt
	run --separate-stderr zt-diff --report cyc.txt cyc.txt
	echo "status $status; stderr: $stderr"
	assert_success
	assert_line --index 0 "before: 4 samples, after: 4 samples"
	assert_equal "$stderr" "zt-diff: 'cyc.txt': each record of perf's 'cycles' is taken as one sample (their periods vary from 1000 events, as perf record -F sets them)"
	script sched:sched_switch 3 1 1 > tp.txt
	run --separate-stderr zt-pprof -o tp.pb.gz tp.txt
	echo "status $status; stderr: $stderr"
	assert_success
	# A tracepoint's records are samples already: nothing to say.
	assert_equal "$stderr" ""
}

@test "zt-pprof's EXAMPLE: perf script | zt-pprof on a perf record -F 997 -g recording" {
	command -v perf > /dev/null || skip "perf is not installed"
	perf record -q -e cpu-clock -F 997 -g -o perf.data -- "$SAMPLES/spin" > /dev/null 2>&1 ||
		skip "perf record cannot record here (perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid))"
	perf script -i perf.data > perf.txt 2> /dev/null
	records=$(grep -c 'cpu-clock' perf.txt)
	echo "records: $records"
	[ "$records" -gt 0 ]
	run --separate-stderr sh -c 'perf script -i perf.data 2> /dev/null | zt-pprof -o perf.pb.gz'
	echo "status $status; stderr: $stderr"
	assert_success
	[ -s perf.pb.gz ]
	run --separate-stderr zt-diff --report perf.txt perf.txt
	echo "status $status; stderr: $stderr"
	assert_success
	assert_line --index 0 "before: $records samples, after: $records samples"
	zt-flame perf.txt > perf.svg 2> /dev/null
	all=$(grep -o '<title>all ([0-9,]* samples' perf.svg | tr -d ,)
	echo "flame graph: $all"
	[ "$all" = "<title>all ($records samples" ]
}
