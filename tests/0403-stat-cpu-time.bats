# 0403-stat-cpu-time.bats — zt-stat's CPU time agrees with itself and with
# zt-collect's summary for the same dump: the time while sampling ran, user
# and system (their sum the total), and the time before sampling began
# (the loader, the constructors before zt's, the images before an exec)
# apart, never in the sampled part.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# Burns 0.3 CPU-s, then execs its arguments: that time is before the
	# dump's image, and before its sampling began.
	cat > burnexec.c <<'C'
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
	struct timespec t;
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec == 0 && t.tv_nsec < 300000000);
	execv(argv[1], argv + 1);
	return 127;
}
C
	gcc -O1 -o burnexec burnexec.c
}
setup() { cd "$BATS_FILE_TMPDIR"; }

# From zt-collect's summary in $1: "USER SYSTEM" seconds while sampling ran
# (perf-task-clock: "N samples in U user CPU-s ... system S s (..) not sampled").
collect_split() {
	sed -n 's/^zt-collect: [0-9]* samples in \([0-9.]*\) user CPU-s.* system \([0-9.]*\) s ([0-9.]*% of CPU time) not sampled.*/\1 \2/p' "$1"
}

# Whether numbers $1 and $2 differ by at most $3.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }'
}

@test "user plus system is the CPU time, and both are zt-collect's" {
	zt-collect -o s.raw "$SAMPLES/spin" 200 > /dev/null 2> s.err
	grep -q '^timer perf-task-clock$' s.raw || skip "the timer is not perf-task-clock here"
	read -r u s < <(collect_split s.err)
	run zt-stat s.raw
	line=${lines[1]}
	echo "zt-collect: user $u, system $s; zt-stat: $line"
	[[ "$line" =~ ^cpu\ time:\ ([0-9.]+)\ s\ \(user\ ([0-9.]+)\ s\ sampled,\ system\ ([0-9.]+)\ s\ not\ sampled\)$ ]]
	[ "${BASH_REMATCH[2]}" = "$u" ]
	[ "${BASH_REMATCH[3]}" = "$s" ]
	near "${BASH_REMATCH[1]}" "$(awk -v a="$u" -v b="$s" 'BEGIN { print a + b }')" 0.0015
}

@test "CPU time before sampling began (the image before an exec) is said apart, as zt-collect says it" {
	zt-collect -o x.raw ./burnexec "$SAMPLES/spin" 100 > /dev/null 2> x.err
	grep -q '^timer perf-task-clock$' x.raw || skip "the timer is not perf-task-clock here"
	read -r u s < <(collect_split x.err)
	read -r bu bs < <(sed -n "s/.*; before the exec of '[^']*', user \([0-9.]*\) s, system \([0-9.]*\) s, in no dump$/\1 \2/p" x.err)
	run zt-stat x.raw
	echo "zt-collect: user $u, system $s, before: $bu + $bs; zt-stat:"
	printf '%s\n' "${lines[@]:1:2}"
	assert_line --index 1 --regexp "^cpu time: [0-9.]+ s \\(user $u s sampled, system $s s not sampled\\)$"
	[[ "${lines[2]}" =~ ^before\ sampling\ began:\ ([0-9.]+)\ s\ of\ CPU\ time ]]
	near "${BASH_REMATCH[1]}" "$(awk -v a="$bu" -v b="$bs" 'BEGIN { print a + b }')" 0.0015
	# The 0.3 s burnt before the exec is there, not in the sampled part.
	awk -v b="${BASH_REMATCH[1]}" 'BEGIN { exit !(b >= 0.25) }'
	run zt-stat --json x.raw
	python3 - "$output" "$u" "$s" <<'X'
import json, sys
d = json.loads(sys.argv[1])
u, s = float(sys.argv[2]), float(sys.argv[3])
print(d["cpu_seconds"], d["cpu_user_seconds"], d["cpu_system_seconds"], d["cpu_before_seconds"])
assert abs(d["cpu_user_seconds"] - u) <= 0.0005 and abs(d["cpu_system_seconds"] - s) <= 0.0005
assert abs(d["cpu_seconds"] - d["cpu_user_seconds"] - d["cpu_system_seconds"]) < 1e-9
assert d["cpu_before_seconds"] >= 0.25
X
}
