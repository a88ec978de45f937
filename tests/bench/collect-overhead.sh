#!/bin/sh
# collect-overhead.sh — what sampling costs, measured in one run: the same
# CPU-bound program (samples/spin) bare, under zt-collect at 997 Hz, under
# gperftools' libprofiler.so (CPUPROFILE_FREQUENCY=997) and under
# `perf record -F 997 -g`. Each is run ROUNDS times, interleaved, and the
# median is kept. It prints each one's CPU time (user + system of the whole
# command, profiler included), its ratio to the bare run's, and its samples
# per CPU-second of the program. A fifth row, "floor", is the cost no
# sampler at this rate avoids: the same perf task-clock counter and signal
# with an empty handler (a library built here and preloaded), so that zt's
# own share can be told from the kernel's. The ratios are given for the fastest run of
# each (best of ROUNDS, the usual estimate on a noisy machine) and for the
# medians.
#
#   sh tests/bench/collect-overhead.sh [ROUNDS] [SPIN_STEPS]
#
# CPU time comes from wait4's rusage (tests/cputime). On a machine shared
# with other work the ratios move by a few percent between runs: run it on a
# quiet machine, and read the spread it prints.
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-9}
steps=${2:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$PWD/tools:$PWD/collect:$PATH"
cputime=tests/cputime
spin=samples/spin
profiler=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0 2>/dev/null || true)
have_perf=0
perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1 && have_perf=1

# The floor: a task-clock counter at 997 Hz signalling an empty handler.
cat > "$tmp/floor.c" <<'EOC'
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile unsigned long hits;
static void on_prof(int sig) { (void)sig; hits++; }
__attribute__((constructor)) static void arm(void)
{
	struct perf_event_attr a;
	struct f_owner_ex o = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	struct sigaction sa;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ull / 997;
	a.exclude_kernel = 1;
	a.wakeup_events = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETSIG, SIGPROF);
	fcntl(fd, F_SETOWN_EX, &o);
}
EOC
cc -O2 -shared -fPIC -o "$tmp/floor.so" "$tmp/floor.c"

# run NAME COMMAND...: one timed run; appends "cpu samples" to $tmp/NAME.
run() {
	name=$1
	shift
	"$cputime" "$@" > /dev/null 2> "$tmp/err"
	read -r user sys _ <<EOT
$(tail -n 1 "$tmp/err")
EOT
	case $name in
	bare|floor) n=0 ;;
	zt) n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' "$tmp/zt.raw") ;;
	gperftools) n=$(google-pprof --text "$spin" "$tmp/g.prof" 2>/dev/null |
			sed -n 's/^Total: \([0-9]*\) samples$/\1/p') ;;
	perf) n=$(perf script -i "$tmp/p.data" -F tid 2>/dev/null | wc -l) ;;
	esac
	echo "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }') ${n:-0}" >> "$tmp/$name"
}

echo "spin $steps steps, $rounds rounds each, interleaved; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	run bare "$spin" "$steps"
	run floor env LD_PRELOAD="$tmp/floor.so" "$spin" "$steps"
	run zt zt-collect -F 997 -o "$tmp/zt.raw" "$spin" "$steps"
	[ -n "$profiler" ] && env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
		CPUPROFILE_FREQUENCY=997 "$cputime" true > /dev/null 2>&1 &&
		run gperftools env LD_PRELOAD="$profiler" CPUPROFILE="$tmp/g.prof" \
			CPUPROFILE_FREQUENCY=997 "$spin" "$steps"
	[ "$have_perf" = 1 ] && run perf perf record -q -F 997 -g -o "$tmp/p.data" "$spin" "$steps"
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
least() { sort -n | head -n 1; }
bare_min=$(cut -d' ' -f1 "$tmp/bare" | least)
bare_med=$(cut -d' ' -f1 "$tmp/bare" | median)
printf '\n| collector | CPU s, best | vs bare, best | CPU s, median | vs bare, median | samples per CPU-s |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
for name in bare floor zt gperftools perf; do
	[ -s "$tmp/$name" ] || { printf '| %s | not available | | | | |\n' "$name"; continue; }
	min=$(cut -d' ' -f1 "$tmp/$name" | least)
	med=$(cut -d' ' -f1 "$tmp/$name" | median)
	rate=$(awk '$1 > 0 { print $2 / $1 }' "$tmp/$name" | median)
	awk -v n="$name" -v a="$min" -v b="$bare_min" -v c="$med" -v d="$bare_med" -v r="$rate" 'BEGIN {
		printf "| %s | %.3f | %+.1f%% | %.3f | %+.1f%% | %s |\n", n, a, (a / b - 1) * 100,
			c, (c / d - 1) * 100, n == "bare" || n == "floor" ? "-" : sprintf("%.0f", r) }'
done
