#!/usr/bin/env bats
# zt-stat on a wall-clock profile: its header gives the thread time and its
# split into on-CPU, off-CPU and waiting for a CPU, in all and per process
# and thread; --by=state tables the states, off-CPU by wait.

load helper
load wall

setup_file() {
	wall_setup
	zt-fold w.raw > w.folded 2> /dev/null
	zt-symbolize w.raw > w.sym 2> /dev/null
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# secs NS: NS nanoseconds as zt-stat prints seconds (3 decimals).
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }

# The ns of the sample lines of w.raw whose thread is $1 ("" for all) and
# that match the awk regex $2 (a state: " !futex ", " !waiting", or "^[^!]*$").
ns_of() {
	T=$1 R=$2 awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
	     s && (ENVIRON["T"] == "" || $1 == ENVIRON["T"]) && $0 ~ ENVIRON["R"] {
		for (i = 3; i <= NF; i++) if (substr($i, 1, 1) == "^") t += $2 * substr($i, 2) }
	     END { printf "%.0f\n", t }' w.raw
}

@test "the header splits the wall-clock time by state, in all and per thread" {
	run zt-stat w.raw
	assert_success
	on=$(ns_of "" '^[^!]*$'); off=$(ns_of "" ' !futex '); q=$(ns_of "" ' !waiting')
	all=$((on + off + q))
	assert_line "wall-clock profile: $(secs $all) s of thread time (the samples' weights), sampled over 0.900 s of wall-clock time, off-CPU at 97 Hz"
	assert_line --regexp "^  on-CPU $(secs $on) s \([0-9.]+%\), off-CPU $(secs $off) s \([0-9.]+%\), waiting for a CPU $(secs $q) s \([0-9.]+%\)\$"
	main=$(sed -n 's/^pid //p' w.raw)
	wt=$(sed -n 's/^\([0-9]*\) waiter$/\1/p' w.raw)
	assert_line --regexp "^  process $main prog: wall $(secs $all) s; "
	mall=$(( $(ns_of "$main" '^[^!]*$') + $(ns_of "$main" ' !waiting') ))
	assert_line --regexp "^    thread $main prog: wall $(secs $mall) s; on-CPU $(secs $(ns_of "$main" '^[^!]*$')) s .*, off-CPU 0.000 s \(0.0%\), waiting for a CPU $(secs $(ns_of "$main" ' !waiting')) s "
	assert_line "    thread $wt waiter: wall $(secs $off) s; on-CPU 0.000 s (0.0%), off-CPU $(secs $off) s (100.0%), waiting for a CPU 0.000 s (0.0%)"
	# The stream gives the same header; folded stacks, all but the threads.
	diff <(zt-stat w.raw) <(zt-stat w.sym)
	zt-stat w.folded > f.out
	grep -q "^  on-CPU $(secs $on) s" f.out
	run grep -c '^  process\|^    thread' f.out
	assert_output 0
}

@test "--by=state: on-CPU, off-CPU by wait, waiting for a CPU" {
	on=$(ns_of "" '^[^!]*$'); off=$(ns_of "" ' !futex '); q=$(ns_of "" ' !waiting')
	for f in w.raw w.sym w.folded; do
		zt-stat --json --by=state "$f" | grep '^  {"name": ' > s.out
		grep -qF "  {\"name\": \"on-CPU\", \"self\": $on, \"total\": $on}" s.out
		grep -qF "  {\"name\": \"off-CPU [futex]\", \"self\": $off, \"total\": $off}" s.out
		grep -qF "  {\"name\": \"waiting for a CPU\", \"self\": $q, \"total\": $q}" s.out
		[ "$(wc -l < s.out)" = 3 ]
		# The table shows times, as pprof does for ns.
		zt-stat --by=state "$f" | grep -Eq '^ +[0-9.]+(m|u|n)?s +[0-9.]+% +[0-9.]+% +[0-9.]+(m|u|n)?s +[0-9.]+%  off-CPU \[futex\]$'
	done
}

@test "--json: the states, in all and per thread" {
	on=$(ns_of "" '^[^!]*$'); off=$(ns_of "" ' !futex '); q=$(ns_of "" ' !waiting')
	wt=$(sed -n 's/^\([0-9]*\) waiter$/\1/p' w.raw)
	main=$(sed -n 's/^pid //p' w.raw)
	zt-stat --json w.raw > j.out
	grep -qF "\"unit\": \"ns of wall-clock time\"" j.out
	grep -qF "\"wall\": {\"on_cpu_ns\": $on, \"off_cpu_ns\": $off, \"waiting_for_cpu_ns\": $q, \"threads\": [" j.out
	grep -qF "{\"pid\": $main, \"tid\": $wt, \"name\": \"waiter\", \"on_cpu_ns\": 0, \"off_cpu_ns\": $off, \"waiting_for_cpu_ns\": 0}" j.out
	run zt-stat --json c.raw
	refute_output --partial '"wall"'
}

@test "a CPU profile: the same header as before, and --by=state refused" {
	run zt-stat c.raw
	assert_line --regexp '^samples: [0-9]+ \(sampling error'
	refute_output --partial 'wall-clock'
	run -1 --separate-stderr zt-stat --by=state c.raw
	assert_equal "$stderr" "zt-stat: 'c.raw': --by=state needs a wall-clock profile (zt-collect --clock=wall, or folded stacks with '# zt weight: ns'); in a CPU profile every sample is on-CPU"
	run -1 --separate-stderr zt-stat c.raw w.raw
	assert_equal "$stderr" "zt-stat: 'c.raw' weighs its stacks in samples, 'w.raw' in ns of wall-clock time: they cannot be added; read them one at a time"
	run -2 --separate-stderr zt-stat --by=colour c.raw
	assert_equal "${stderr%%$'\n'*}" "zt-stat: --by wants function, module, line, thread, state or label:NAME, not 'colour'"
}
