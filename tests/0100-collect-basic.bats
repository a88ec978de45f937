#!/usr/bin/env bats
# zt-collect on the sample program: the profile's shape, the sample rate
# against the CPU time the kernel reports, and the exit status.

load helper

# Profile spin (600 rounds, about 3 CPU-seconds) and leave spin.raw,
# spin.folded and cpu (the program's user and system seconds from rusage)
# in the cwd.
profile_spin() {
	zt-collect -o spin.raw "$@" "$SAMPLES/spin" 600 > spin.out 2> spin.err
	rusage_of spin.err > cpu
	zt-symbolize spin.raw > spin.sym
	zt-fold spin.sym > spin.folded
}

# One profile at the default rate serves the first tests.
setup_file() {
	cd "$BATS_FILE_TMPDIR" && profile_spin
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/spin.* "$BATS_FILE_TMPDIR"/cpu .
}

# Sum of counts of folded lines whose stack ends in the given frames.
count() {
	SUFFIX=$1 awk '{ suffix = ENVIRON["SUFFIX"]; n = $NF; $NF = ""; sub(/ $/, "");
		if (substr($0, length($0) - length(suffix) + 1) == suffix) s += n }
		END { print s + 0 }' spin.folded
}

@test "spin's profile shows hot_a three times hot_b under main;work" {
	a=$(count "main;work;hot_a")
	b=$(count "main;work;hot_b")
	echo "hot_a $a hot_b $b"
	[ "$b" -gt 0 ]
	# The ratio lies in [2, 4.5].
	awk -v a="$a" -v b="$b" 'BEGIN { r = a / b; exit !(r >= 2 && r <= 4.5) }'
	# The program's own output is untouched.
	[ "$(cat spin.out)" = "sink = 0" ]
}

@test "samples are within 5% of CPU time times 997 Hz, CPU time from rusage" {
	total=$(awk '{ s += $NF } END { print s }' spin.folded)
	read -r user sys < cpu
	echo "samples $total user $user sys $sys"
	near "$total" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print (u + s) * 997 }')" 5
}

@test "the delivered rate is within 3% of the requested 997 Hz" {
	total=$(awk '{ s += $NF } END { print s }' spin.folded)
	read -r user sys < cpu
	rate=$(awk -v n="$total" -v u="$user" -v s="$sys" 'BEGIN { print n / (u + s) }')
	echo "rate $rate"
	# 3%, and the count's own error (a 3-CPU-second run: 1.8 points).
	near "$total" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print (u + s) * 997 }')" 3
	# And zt-collect's own summary line says so.
	# perf-task-clock samples user space: the rate is per user CPU-second,
	# and system time is given apart, as not sampled.
	grep -E '^zt-collect: [0-9]+ samples in [0-9.]+ user CPU-s and [0-9.]+ s wall-clock: [0-9.]+ Hz of 997 requested, timer perf-task-clock, 0 lost; system [0-9.]+ s \([0-9.]+% of CPU time\) not sampled, wrote ' spin.err
}

@test "-F 4000 delivers four times the samples of -F 997 per CPU-second" {
	profile_spin -F 4000
	total=$(awk '{ s += $NF } END { print s }' spin.folded)
	read -r user sys < cpu
	echo "samples $total user $user sys $sys"
	# perf-task-clock counts user time only, and at 4 kHz the signals' own
	# delivery is system time (8% of a run beside 4 CPU hogs): the samples
	# cover the user time and no more than all the CPU time, within 5% and
	# three errors of the count (the kernel splits user from system by ticks).
	awk -v n="$total" -v u="$user" -v s="$sys" 'BEGIN { lo = u * 4000; hi = (u + s) * 4000
		lo -= lo * 0.05 + 3 * sqrt(lo); hi += hi * 0.05 + 3 * sqrt(hi)
		printf "rate %.1f per user CPU-s; %d samples, bounds %.0f to %.0f\n", n / u, n, lo, hi
		exit !(u > 0 && n >= lo && n <= hi) }'
}

@test "the dump records the requested hz, the timer and the thread" {
	profile_spin -F 499
	grep -qx 'zt-prof 4' spin.raw
	grep -qx 'hz 499' spin.raw
	grep -qx 'timer perf-task-clock' spin.raw
	grep -qx 'end' spin.raw
	grep -Eq '^[0-9]+ spin$' spin.raw
	# Every sample carries a thread id and a count.
	sed -n '/^samples$/,/^[a-z]/p' spin.raw | sed '1d;$d' |
		awk 'NF < 3 || $2 < 1 { bad = 1 } END { exit bad }'
}

@test "the POSIX fallback says it is capped at the kernel tick" {
	zt-collect --timer=posix -o p.raw "$SAMPLES/spin" 300 2> err
	grep -qx 'timer posix-cpu' p.raw
	grep -qx 'rate-cap kernel-tick' p.raw
	grep -q 'timer posix-cpu (rate capped by the kernel tick)' err
	zt-symbolize p.raw | grep -qx '# zt rate-cap kernel-tick'
	zt-symbolize p.raw | zt-fold | grep -q 'main;work;hot_a '
}

@test "zt-collect passes on the program's exit status" {
	run zt-collect -o x.raw sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run zt-collect -o x.raw true
	[ "$status" -eq 0 ]
	[ -s x.raw ]
}

@test "a program killed by SIGKILL gives 137, and a dump zt-collect finished, said so" {
	run --separate-stderr zt-collect -o x.raw sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	[[ "$stderr" == *"note: 'sh' (pid "*", killed by SIGKILL) ended without zt's exit path; zt-collect finished its dump '$PWD/x.raw' from what reached the file"* ]]
	grep -qx 'finished zt-collect' x.raw
	zt-symbolize x.raw > /dev/null
}

@test "a program that is not found gives 127" {
	run -127 --separate-stderr zt-collect -o x.raw ./no-such-program
	[ "$stderr" = "zt-collect: './no-such-program': command not found" ]
	run -127 --separate-stderr zt-collect -o x.raw no-such-program-in-path
	[ "$stderr" = "zt-collect: 'no-such-program-in-path': command not found" ]
}

@test "a file that cannot be executed gives 127" {
	echo 'not a program' > notexec
	run -127 --separate-stderr zt-collect -o x.raw ./notexec
	[[ "$stderr" == *"'./notexec'"* ]]
}

@test "a statically linked program is refused before it runs" {
	printf 'int main(void) { return 0; }\n' > s.c
	gcc -static -o static s.c
	run --separate-stderr zt-collect -o x.raw ./static
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-collect: './static' is statically linked"* ]]
	[ ! -e x.raw ]
}

@test "an output that cannot be written is refused before the program starts" {
	run --separate-stderr zt-collect -o /nonexistent/dir/x.raw touch ran
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-collect: cannot write '/nonexistent/dir/x.raw'"* ]]
	[ ! -e ran ]
}

@test "a wrong -F is a usage error and the program does not start" {
	for f in 0 10001 abc -5 ''; do
		run --separate-stderr zt-collect -F "$f" touch ran
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"-F: '$f' is not a frequency from 1 to 10000"* ]]
		[[ "$stderr" == *"usage: zt-collect"* ]]
	done
	[ ! -e ran ]
}

@test "no program, or an unknown option, is a usage error" {
	run --separate-stderr zt-collect
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no program to run"* ]]
	run --separate-stderr zt-collect --bogus true
	[ "$status" -eq 2 ]
	run --separate-stderr zt-collect --timer=fast true
	[ "$status" -eq 2 ]
}

@test "--help prints usage on stdout and exits 0" {
	run --separate-stderr zt-collect --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: zt-collect [-fz] [-F HZ] [-o FILE]"* ]]
	[ -z "$stderr" ]
}

@test "the program's own arguments are not taken as options" {
	run --separate-stderr zt-collect -o x.raw sh -c 'echo "$1"' sh -F
	[ "$status" -eq 0 ]
	[ "$output" = "-F" ]
}

@test "a program that leaves through _exit still leaves a whole dump" {
	# dash ends with _exit(2), skipping destructors.
	run --separate-stderr zt-collect -o x.raw sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ "$(tail -n 1 x.raw)" = "end" ]
	[ ! -e x.raw.tmp.* ]
}
