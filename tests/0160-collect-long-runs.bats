#!/usr/bin/env bats
# Long runs keep every sample in bounded memory: samples stream to the file
# from per-thread buffers, so memory does not grow with the run's length.
# (The issue's 10-minute run is this, scaled: the same code path at 4 and
# 10 times the rate. At 10 kHz each signal's delivery costs enough system
# time on this VM that samples per CPU-second are not compared there.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Run under cputime; leaves "user sys maxrss_kib" in the file named $1 (the
# whole command's, zt-collect included), and zt-collect's summary in err.
measure() {
	local out=$1
	shift
	"$ZT_TOP/tests/cputime" "$@" > /dev/null 2> err
	tail -n 1 err > "$out"
}

# The perf timer counts user time only, and rusage's split of CPU time into
# user and system is the kernel's estimate from ticks: the samples must
# cover at least 90% of the user time it gives, and no more than all the CPU
# time (system time at 4 kHz varied from 10% to 33% of a run here, with the
# machine idle or busy).
@test "12,000 samples and more at 4 kHz: none lost, all kept" {
	measure cpu zt-collect -F 4000 -o s.raw "$SAMPLES/spin" 600
	read -r user sys <<< "$(rusage_of err)"
	grep -qx 'lost 0' s.raw
	n=$(zt-symbolize s.raw | zt-fold | awk '{ s += $NF } END { print s }')
	echo "samples $n cpu $user + $sys"
	[ "$n" -gt 12000 ]
	awk -v n="$n" -v u="$user" -v s="$sys" \
		'BEGIN { exit !(n >= u * 4000 * 0.9 && n <= (u + s) * 4000 * 1.05) }'
}

@test "extra memory stays under 32 MiB and does not grow with the run's length" {
	measure bare "$SAMPLES/spin" 600
	measure short zt-collect -F 10000 -o short.raw "$SAMPLES/spin" 100
	cp err err.short
	measure long zt-collect -F 10000 -o long.raw "$SAMPLES/spin" 600
	read -r _ _ rss_bare < bare
	read -r _ _ rss_short < short
	read -r _ _ rss_long < long
	read -r u_short _ <<< "$(rusage_of err.short)"
	read -r u_long _ <<< "$(rusage_of err)"
	# The periods the samples stand for (a line's count), per run.
	periods() { awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 } s { n += $2 } END { print n + 0 }' "$1"; }
	n_short=$(periods short.raw)
	n_long=$(periods long.raw)
	echo "maxrss KiB: bare $rss_bare, zt short $rss_short, zt long $rss_long"
	echo "samples: short $n_short in $u_short user s, long $n_long in $u_long user s"
	[ $((rss_long - rss_bare)) -lt 32768 ]
	# Six times the work, the same memory (within 1 MiB).
	[ $((rss_long - rss_short)) -lt 1024 ]
	# The long run recorded several times the short run's samples (six
	# times the work; at 10 kHz the kernel's split of CPU time into user
	# and system by ticks is too rough to judge a rate by: 18,500 and
	# 11,800 samples per user-second were seen in two runs of one check).
	awk -v ns="$n_short" -v nl="$n_long" 'BEGIN { exit !(ns > 0 && nl >= 2 * ns) }'
}

@test "4 threads at 4 kHz: none lost, samples between the user and all the CPU time" {
	measure cpu zt-collect -F 4000 -o t.raw "$SAMPLES/threads" 200
	read -r user sys <<< "$(rusage_of err)"
	grep -qx 'lost 0' t.raw
	n=$(zt-symbolize t.raw | zt-fold | awk '{ s += $NF } END { print s }')
	echo "samples $n cpu $user + $sys"
	awk -v n="$n" -v u="$user" -v s="$sys" \
		'BEGIN { exit !(n >= u * 4000 * 0.9 && n <= (u + s) * 4000 * 1.05) }'
}
