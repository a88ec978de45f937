# 0402-stat-views.bats — zt-stat's views as pprof has them (--sort, --focus,
# --ignore, --hide, --peek, --list, each also as --json), its weights (perf
# periods are samples only when one fixed period divides them) and its CPU
# split. Every view's numbers are checked against the stacks zt-fold writes
# for the same input, summed in awk.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	cat > "$T/src.c" <<'X'
/* a source for zt-stat --list */
static void hot(int n)
{	for (int i = 0; i < n; i++)
		hot(n - 1);
}
static void cold(void) { }
static void mid(void)
{	hot(3);
	cold();
}
int main(void)
{	mid();
	hot(1);
}
X
	# hot recurses in the last record; mid has self samples of its own.
	{
		printf '# zt hz 1000\n# zt timer perf-task-clock\n'
		printf '# zt cpu-ns 14000000\n# zt cpu-user-ns 13000000\n# zt cpu-sys-ns 2000000\n'
		rec() {	# count, then "function:line" leaf first
			printf 'prog 1/1 0.000000: %s zt-samples:\n' "$1"; shift
			for f in "$@"; do
				printf '\t1 %s+0x1 (/bin/prog)\n  %s/src.c:%s\n' "${f%:*}" "$T" "${f#*:}"
			done
			printf '\n'
		}
		rec 5 hot:4 mid:8 main:12
		rec 3 cold:6 mid:9 main:12
		rec 2 hot:3 main:13
		rec 1 mid:8 main:12
		rec 2 hot:4 hot:4 mid:8 main:12
	} > "$T/p.sym"
	zt-fold "$T/p.sym" > "$T/p.folded"
	zt-fold --srcline "$T/p.sym" > "$T/p.lines"
}

# Sums over folded stacks in file $1 (frames root first, ';'-joined).
# flat NAME: stacks whose leaf is NAME; cum NAME: stacks holding it, once;
# edge A B: stacks where A calls B (adjacent), once; with FILTER, only
# stacks that match the extended regex FILTER on their text, and with NEG,
# none that match NEG. Names and regexes reach awk through the environment
# (`awk -v` would process backslashes, differently in gawk and mawk).
fsum() {
	WHAT=$2 A=$3 B=${4:-} FILTER=${FILTER:-} NEG=${NEG:-} awk 'BEGIN {
		what = ENVIRON["WHAT"]; a = ENVIRON["A"]; b = ENVIRON["B"]
		filter = ENVIRON["FILTER"]; neg = ENVIRON["NEG"]
	} {
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (filter != "" && s !~ filter) next
		if (neg != "" && s ~ neg) next
		n = split(s, f, ";"); hit = 0
		for (i = 1; i <= n; i++) {
			if (what == "flat" && i == n && f[i] == a) hit = 1
			if (what == "cum" && f[i] == a) hit = 1
			if (what == "edge" && i < n && f[i] == a && f[i + 1] == b) hit = 1
			if (what == "all") hit = 1
		}
		if (hit) t += c
	} END { print t + 0 }' "$1"
}

# The flat and cum of a row of zt-stat's table.
row() {
	NAME=$2 awk '$NF == ENVIRON["NAME"] && NF == 6 { print $1, $4; exit }' <<< "$1"
}

@test "stat --sort=cum orders by cum, and every row's numbers are zt-fold's" {
	run zt-stat --sort=cum -n 0 "$T/p.sym"
	assert_success
	assert_line --index 5 --regexp ' main$'
	# Rows in cum order: main, mid, hot, cold.
	assert_equal "$(sed -n '7,$p' <<< "$output" | awk '{ print $NF }' | tr '\n' ' ')" "main mid hot cold "
	for f in main mid hot cold; do
		assert_equal "$(row "$output" $f)" "$(fsum "$T/p.folded" flat $f) $(fsum "$T/p.folded" cum $f)"
	done
	run zt-stat --sort=flat -n 1 "$T/p.sym"
	assert_line --index 5 --regexp ' hot$'
}

@test "stat --focus keeps the stacks through a match, percentages of all; zt-fold --focus writes those stacks" {
	run zt-stat --focus='^cold$' -n 0 "$T/p.sym"
	assert_success
	stat=$output
	all=$(fsum "$T/p.folded" all)
	kept=$(FILTER='(^|;)cold(;|$)' fsum "$T/p.folded" all)
	assert_line --index 4 "kept: $kept of $all samples (23.08%) by --focus, --ignore and --hide; percentages are of all"
	for f in main mid cold; do
		assert_equal "$(row "$output" $f)" "$(FILTER='(^|;)cold(;|$)' fsum "$T/p.folded" flat $f) $(FILTER='(^|;)cold(;|$)' fsum "$T/p.folded" cum $f)"
	done
	assert_line --regexp '^ +3  23\.08%  23\.08% +3  23\.08%  cold$'
	refute_output --partial ' hot'
	run zt-fold --focus='^cold$' "$T/p.sym"
	assert_output "$(grep -E '(^|;)cold(;| )' "$T/p.folded")"
	# The focused folded file gives zt-stat the same rows.
	zt-fold --focus='^cold$' "$T/p.sym" | zt-stat -n 0 > "$T/viafold"
	assert_equal "$(row "$(cat "$T/viafold")" mid)" "$(row "$stat" mid)"
	assert_equal "$(row "$stat" mid)" "0 3"
}

@test "stat --ignore drops the stacks through a match; zt-fold --ignore too" {
	run zt-stat --ignore='^h.t$' -n 0 "$T/p.sym"
	assert_success
	for f in main mid cold; do
		assert_equal "$(row "$output" $f)" "$(NEG='(^|;)hot(;|$)' fsum "$T/p.folded" flat $f) $(NEG='(^|;)hot(;|$)' fsum "$T/p.folded" cum $f)"
	done
	refute_output --partial ' hot'
	run zt-fold --ignore='^h.t$' "$T/p.sym"
	assert_output "$(grep -vE '(^|;)hot(;| )' "$T/p.folded")"
}

@test "stat --hide removes frames and gives their samples to the callers; zt-fold --hide writes the same stacks" {
	run zt-fold --hide='^(hot|mid)$' "$T/p.sym"
	assert_success
	# zt-fold's stacks with the frames taken out, merged again.
	want=$(sed -E 's/;(hot|mid)(;| )/\2/g; s/;(hot|mid)(;| )/\2/g' "$T/p.folded" |
		awk '{ c = $NF; sub(/ [0-9]+$/, ""); n[$0] += c } END { for (s in n) print s, n[s] }' | LC_ALL=C sort)
	assert_output "$want"
	echo "$output" > "$T/hidden"
	run zt-stat --hide='^(hot|mid)$' -n 0 "$T/p.sym"
	assert_equal "$(row "$output" main)" "$(fsum "$T/hidden" flat main) $(fsum "$T/hidden" cum main)"
	assert_equal "$(row "$output" cold)" "$(fsum "$T/hidden" flat cold) $(fsum "$T/hidden" cum cold)"
	assert_equal "$(row "$output" main)" "10 13"
}

@test "stat --peek gives callers and callees with their shares of cum, from zt-fold's stacks" {
	run zt-stat --peek='^mid$' "$T/p.sym"
	assert_success
	cum=$(fsum "$T/p.folded" cum mid)
	flat=$(fsum "$T/p.folded" flat mid)
	main=$(fsum "$T/p.folded" edge main mid)
	hot=$(fsum "$T/p.folded" edge mid hot)
	cold=$(fsum "$T/p.folded" edge mid cold)
	assert_equal "$cum $flat $main $hot $cold" "11 1 11 7 3"
	assert_line --index 4 "----------------------------------------------------------+-------------"
	assert_line --index 5 "      flat   flat%    sum%        cum    cum%   calls calls% + context"
	assert_line --index 7 "                                                $main 100.00% |   main"
	assert_line --index 8 "         $flat   7.69%   7.69%         $cum  84.62%                | mid"
	assert_line --index 9 "                                                 $hot  63.64% |   hot"
	assert_line --index 10 "                                                 $cold  27.27% |   cold"
	assert_line --index 11 "----------------------------------------------------------+-------------"
	# A recursive call is no edge of its own, and counts once per stack.
	run zt-stat --peek='^hot$' "$T/p.sym"
	assert_line --regexp "^ +$(fsum "$T/p.folded" edge mid hot) +77\.78% \|   mid$"
	assert_line --regexp "^ +$(fsum "$T/p.folded" edge main hot) +22\.22% \|   main$"
	refute_line --regexp '\|   hot$'
}

@test "stat --list shows each line's flat and cum, as zt-fold --srcline's stacks give them" {
	run --separate-stderr zt-stat --list='^hot$' "$T/p.sym"
	assert_success
	assert_line --index 4 "ROUTINE ======================== hot in $T/src.c"
	assert_line --index 5 "         9          9 (flat, cum) 69.23% of total"
	for l in 3 4; do
		flat=$(fsum "$T/p.lines" flat "hot:$T/src.c:$l")
		cum=$(fsum "$T/p.lines" cum "hot:$T/src.c:$l")
		got=$(L="$l:" awk 'index($3, ENVIRON["L"]) == 1 { print $1, $2 }' <<< "$output")
		assert_equal "$got" "$flat $cum"
	done
	# The text is the file's, with lines around the ones sampled.
	assert_line --index 6 "         .          .      1:/* a source for zt-stat --list */"
	assert_line --index 8 "         2          2      3:{	for (int i = 0; i < n; i++)"
	assert_line --index 9 "         7          7      4:		hot(n - 1);"
	assert_line --index 12 "         .          .      7:static void mid(void)"
	assert_equal "${#lines[@]}" 13
	run --separate-stderr zt-stat --list='^main$' "$T/p.sym"
	assert_line --regexp "^ +\. +$(fsum "$T/p.lines" cum "main:$T/src.c:12") +12:\{	mid\(\);$"
	assert_line --regexp "^ +\. +$(fsum "$T/p.lines" cum "main:$T/src.c:13") +13:	hot\(1\);$"
	# mid's own sample and its call to hot are on one line: flat 1, cum 8.
	run zt-stat --list='^mid$' "$T/p.sym"
	assert_line --regexp "^ +$(fsum "$T/p.lines" flat "mid:$T/src.c:8") +$(fsum "$T/p.lines" cum "mid:$T/src.c:8") +8:\{	hot\(3\);$"
	assert_line --regexp "^ +1 +8 +8:"
}

@test "stat --list finds moved sources with --source-dir and warns about missing ones" {
	mkdir -p "$T/elsewhere/deep"
	mv "$T/src.c" "$T/elsewhere/deep/src.c"
	run --separate-stderr zt-stat --list='^hot$' "$T/p.sym"
	assert_success
	assert_equal "$stderr" "zt-stat: cannot read '$T/src.c': No such file or directory (--source-dir names where the sources are)"
	# Without the text, the lines with samples are still shown.
	assert_line --index 6 "         2          2      3:"
	assert_line --index 7 "         7          7      4:"
	run --separate-stderr zt-stat --list='^hot$' --source-dir="$T/elsewhere/deep" "$T/p.sym"
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 9 "         7          7      4:		hot(n - 1);"
	# A path that names a device is not read.
	sed "s|$T/src.c|/dev/zero|" "$T/p.sym" > "$T/dev.sym"
	run --separate-stderr zt-stat --list='^hot$' "$T/dev.sym"
	assert_success
	assert_equal "$stderr" "zt-stat: cannot read '/dev/zero': not a regular file (--source-dir names where the sources are)"
}

@test "stat --json covers the table, --peek and --list with the same numbers" {
	run zt-stat --json --peek='^mid$' --list='^hot$' --focus=main "$T/p.sym"
	assert_success
	python3 - "$output" <<'X'
import json, sys
d = json.loads(sys.argv[1])
f = {r["name"]: (r["self"], r["total"]) for r in d["functions"]}
assert f == {"hot": (9, 9), "mid": (1, 11), "cold": (3, 3), "main": (0, 13)}, f
assert d["kept"] == 13 and d["samples"] == 13 and d["unit"] == "samples"
p = d["peek"][0]
assert p["name"] == "mid" and (p["self"], p["total"]) == (1, 11)
assert p["callers"] == [{"name": "main", "count": 11}], p
assert p["callees"] == [{"name": "hot", "count": 7}, {"name": "cold", "count": 3}], p
l = d["list"][0]
assert l["name"] == "hot" and l["source"] is True and (l["self"], l["total"]) == (9, 9)
lines = {x["line"]: (x["self"], x["total"]) for x in l["lines"] if x["total"]}
assert lines == {3: (2, 2), 4: (7, 7)}, lines
assert l["lines"][3]["text"] == "\t\thot(n - 1);", l["lines"][3]
assert abs(d["cpu_user_seconds"] - 0.013) < 1e-9 and d["system_sampled"] is False
X
}

@test "stat gives the share of CPU time the samples cover, from the dump" {
	run zt-stat "$T/p.sym"
	# perf-task-clock samples user time: the time is user + system, as
	# zt-collect's summary gives them.
	assert_line --index 1 "cpu time: 0.015 s (user 0.013 s sampled, system 0.002 s not sampled)"
	sed 's/perf-task-clock/posix-cpu/' "$T/p.sym" > "$T/posix.sym"
	run zt-stat "$T/posix.sym"
	assert_line --index 1 "cpu time: 0.014 s (measured; user 87%, system 13%, both sampled)"
}

@test "zt-symbolize passes the dump's user and system time on to zt-stat" {
	cd "$T"
	zt-collect -o s.raw "$SAMPLES/spin" 50 > /dev/null 2> s.err
	zt-symbolize s.raw > s.sym
	# The user time while sampling ran: the sampled threads' own clocks
	# (sampled-user-ns, under perf counters), else the end's less the start's.
	user=$(awk '$1 == "cpu-user-ns" { e = $2 } $1 == "cpu-user-start-ns" { s = $2 }
		$1 == "sampled-user-ns" { o = $2; own = 1 } $1 == "sampled-sys-ns" { both = 1 }
		$1 == "timer" { perf = $2 == "perf-task-clock" }
		END { printf "%d\n", own && both && perf ? o : e - s }' s.raw)
	echo "user $user ns"; grep '^sampled-\|^cpu-' s.raw; grep '^# zt cpu-' s.sym
	sys=$(awk '$1 == "cpu-sys-ns" { e = $2 } $1 == "cpu-sys-start-ns" { s = $2 } END { printf "%d\n", e - s }' s.raw)
	grep -qx "# zt cpu-user-ns $user" s.sym
	grep -qx "# zt cpu-sys-ns $sys" s.sym
	run zt-stat s.sym
	assert_line --index 1 --regexp "\\(user $(awk -v u="$user" 'BEGIN { printf "%.3f", u / 1e9 }') s sampled, system $(awk -v s="$sys" 'BEGIN { printf "%.3f", s / 1e9 }') s not sampled\\)$"
}

@test "stat shows periods that vary as time or events, never as samples, and says why" {
	printf 'p 1 1.0: 1003009 cpu-clock:\n\t1 a+0x1 (/x)\n\t2 main+0x1 (/x)\n\np 1 1.1: 2500000 cpu-clock:\n\t3 b+0x1 (/x)\n\t2 main+0x1 (/x)\n\n' > "$T/clock.txt"
	run zt-stat "$T/clock.txt"
	assert_success
	assert_line --index 0 "time: 0.004 s, the sum of the periods; not samples: the periods of 'cpu-clock' vary from sample to sample, so they are not a number of samples"
	assert_line --index 5 "    2.50ms  71.37%  71.37%     2.50ms  71.37%  b"
	sed 's/cpu-clock/cycles/' "$T/clock.txt" > "$T/cycles.txt"
	run zt-stat "$T/cycles.txt"
	assert_line --index 0 "weight: 3503009 cycles, the sum of the periods; not samples: the periods of 'cycles' vary from sample to sample (perf record -F on an event that is not a clock), so they are not a number of samples"
	assert_line --index 5 "   2500000  71.37%  71.37%    2500000  71.37%  b"
	run zt-stat --json "$T/cycles.txt"
	assert_output --partial '"samples": null, "sampling_error": null, "unit": "cycles", "total": 3503009, "period": null'
}

@test "stat turns a declared or fixed period into samples, and refuses to add different weights" {
	printf '# zt weight: period cpu-clock 1003009 ns\np;main;a 3009027\np;main;b 1003009\n' > "$T/decl.folded"
	run zt-stat "$T/decl.folded"
	assert_line --index 0 "samples: 4 (sampling error ±2, 50.0%), each a period of 1003009 ns"
	assert_line --index 5 "         3  75.00%  75.00%          3  75.00%  a"
	# zt-fold declares what stackcollapse-perf.pl's weights are.
	printf 'p 1 1.0: 1003009 cpu-clock:\n\t1 a+0x1 (/x)\n\np 1 1.1: 1003009 cpu-clock:\n\t3 b+0x1 (/x)\n\n' > "$T/fixed.txt"
	zt-fold --weight=period "$T/fixed.txt" > "$T/fixed.folded"
	run zt-stat "$T/fixed.folded"
	assert_line --index 0 "samples: 2 (sampling error ±1, 70.7%), each a period of 1003009 ns"
	run -1 --separate-stderr zt-stat "$T/decl.folded" "$T/p.sym"
	assert_equal "$stderr" "zt-stat: '$T/decl.folded' weighs its stacks in samples (periods of 1003009), '$T/p.sym' in samples: they cannot be added; read them one at a time"
}

@test "stat's views: bad regexes and impossible requests" {
	run -2 --separate-stderr zt-stat --focus='(' "$T/p.sym"
	assert_equal "${stderr_lines[0]}" "zt-stat: --focus: bad regex '(': Unmatched ( or \\("
	run -2 --separate-stderr zt-stat --sort=name "$T/p.sym"
	assert_equal "${stderr_lines[0]}" "zt-stat: --sort wants flat or cum, not 'name'"
	run -2 --separate-stderr zt-stat --list=hot --by=module "$T/p.sym"
	assert_equal "${stderr_lines[0]}" "zt-stat: --list shows functions; it cannot go with --by=module"
	run -2 --separate-stderr zt-stat --source-dir=/tmp "$T/p.sym"
	assert_equal "${stderr_lines[0]}" "zt-stat: --source-dir is for --list"
	run -1 --separate-stderr zt-stat --list=hot "$T/p.folded"
	assert_equal "$stderr" "zt-stat: '$T/p.folded': folded stacks carry no source lines; --list needs perf script -F +srcline or zt-symbolize --lines"
	run -2 --separate-stderr zt-fold --hide='[' "$T/p.sym"
	[[ "${stderr_lines[0]}" == "zt-fold: --hide: bad regex '[': "* ]]
	assert_equal "${stderr_lines[1]}" "usage: zt-fold [--pid | --tid | --root=NAME | --no-root] [--kernel] [--jit]"
	run --separate-stderr zt-stat --peek=nothing "$T/p.sym"
	assert_success
	assert_equal "$stderr" "zt-stat: --peek: no function matches"
}
