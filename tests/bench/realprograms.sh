#!/bin/sh
# realprograms.sh — zt's stacks on real programs next to perf's: one
# workload of one to two CPU-seconds for each of python3, perl, xz -T2,
# zstd -T2, sqlite3, git, gcc (cc1), g++ (cc1plus), gawk -M, node, ruby,
# rustc and clang++ (clang 14, whose libLLVM and libclang-cpp were linked by
# lld: their .eh_frame is SHT_X86_64_UNWIND), recorded once by zt-collect (its
# defaults: 997 Hz, user CPU time, --unwind=auto) and once by perf record
# --call-graph dwarf at the same rate, user space only. For each it prints,
# side by side: samples, median stack depth, the share of samples whose
# stack reaches the thread's entry (_start, or clone/clone3 in a thread),
# the largest difference in points between the two profiles' total shares
# of a top-10 function (of either profile; tests/unwindcmp.py defines all
# three, as for tests/bench/unwind.sh), and bytes per sample of the file
# each profiler writes (zt's raw dump, perf.data); for clang++ also the
# five largest self shares of each profile.
#
# Two more rows have tables of their own:
# - redis: redis-server under redis-benchmark on 127.0.0.1, recorded by
#   zt-collect --clock=wall: each thread's on-CPU / off-CPU / waiting for
#   a CPU shares as zt gives them (zt-stat) beside the kernel's, from the
#   thread's /proc/PID/task/TID/schedstat (time run, time runnable and
#   waiting) and stat (utime, stime, start time) read just before the
#   server is shut down, over the thread's life; and perf's, from perf
#   sched record (every CPU's sched_switch and wakeups, root only; "-"
#   without it) and perf sched timehist: the thread's run time and "sch
#   delay" (runnable: since a wakeup or a preemption) over its life, the
#   rest off-CPU.
# - make: make -j2 building 40 small generated C files and linking them
#   (some 130 processes), under zt-collect -f and under perf record (which
#   follows children by default), tests/cputime inside each to give the
#   tree's CPU time from wait4: samples, the tree's user and system time,
#   samples per user CPU-second, the share of samples in ld.so (the
#   innermost frame's object), and zt-collect's -f total line.
#
# The README's table of real programs comes from one run.
#
#   sh tests/bench/realprograms.sh
#   PROGRAMS="xz rustc" sh tests/bench/realprograms.sh   # some of them
#
# A program that is not installed is skipped with a line saying so (make
# bench installs the Debian ones: BENCH_DEBS in the Makefile); rustc is
# taken from PATH or ~/.cargo/bin (rustup), RUSTC overrides it. gcc and g++
# are their compilers proper (cc1, cc1plus: one process each, as
# `gcc -print-prog-name` names them) on a file preprocessed here; clang++
# compiles in one process (clang's driver runs cc1 in itself). No figure
# here has a goal: the script fails only when a profiler fails.
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH="$top/tools:$top/collect:$PATH"
py=/usr/bin/python3
if ! perf record -q -o "$tmp/probe.data" true > /dev/null 2>&1; then
	echo "realprograms.sh: perf is not installed or cannot record (make deps installs linux-perf)" >&2
	exit 1
fi

# Inputs, all made here from fixed seeds.
"$py" samples/text.py "$tmp/text"
cat "$tmp/text" "$tmp/text" > "$tmp/text4"
awk 'NR % 7 == 0 { $1 = "changed" } NR % 13 == 0 { next } { print }' "$tmp/text4" > "$tmp/text4b"
awk 'BEGIN { for (i = 0; i < 150; i++)
	printf "int f%d(const unsigned char *p, int n) { int s = %d; for (int j = 0; j < n; j++) { switch (p[j] %% 5) { case 0: s += p[j] * %d; break; case 1: s ^= s << 3; break; case 2: s -= j; break; default: s = s * 31 + p[j]; } } return s; }\n", i, i, i + 1 }' > "$tmp/gen.c"
cat > "$tmp/words.cc" <<'EOF'
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>
int words(const std::string &s)
{
	std::istringstream in(s);
	std::map<std::string, int> c;
	std::string w;
	while (in >> w)
		c[w]++;
	std::vector<std::pair<std::string, int>> v(c.begin(), c.end());
	std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.second > b.second; });
	return v.size();
}
EOF
awk 'BEGIN { for (i = 0; i < 60; i++)
	printf "pub fn f%d(v: &[u64]) -> String { let mut m = std::collections::HashMap::new(); for (j, x) in v.iter().enumerate() { *m.entry(x %% %d).or_insert(0u64) += j as u64; } let mut k: Vec<_> = m.into_iter().collect(); k.sort(); format!(\"{:?}\", k) }\n", i, i + 3 }' > "$tmp/lib.rs"

# make's project: 40 small C files and a main, compiled and linked.
mkdir "$tmp/mk"
awk -v d="$tmp/mk" 'BEGIN { for (i = 0; i < 40; i++) { f = sprintf("%s/u%02d.c", d, i)
	printf "#include <stdio.h>\n#include <string.h>\nint u%d(const char *s) { int n = 0; for (; *s; s++) n = n * 31 + (*s %% %d); return n; }\n", i, i + 7 > f
	close(f) } }'
printf 'int main(void) { return 0; }\n' > "$tmp/mk/main.c"
# shellcheck disable=SC2016 # make's variables, not the shell's
printf '%s\n' 'OBJS := $(patsubst %.c,%.o,$(wildcard *.c))' 'prog: $(OBJS)' \
	'	$(CC) -o $@ $(OBJS)' '%.o: %.c' '	$(CC) -O2 -c -o $@ $<' > "$tmp/mk/Makefile"

rustc=${RUSTC:-$(command -v rustc || echo "$HOME/.cargo/bin/rustc")}
# The toolchain's own rustc, not rustup's proxy that execs it.
[ -x "$rustc" ] && rustc="$("$rustc" --print sysroot 2> /dev/null)/bin/rustc"
cc1=$(gcc -print-prog-name=cc1 2> /dev/null || true)
cc1plus=$(gcc -print-prog-name=cc1plus 2> /dev/null || true)
clangxx=${CLANGXX:-$(command -v clang++ || echo /usr/bin/clang++)}

size() { wc -c < "$1" | tr -d ' '; }
per() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? b / s : 0) }'; }

# redis: redis-server in wall mode under redis-benchmark; adds to wall.
redis() {
	port=$((20000 + $$ % 20000))
	# perf's view: every CPU's sched_switch and wakeups (root), from before
	# the server starts to after it ends.
	perf sched record -o "$tmp/redis.perf" > /dev/null 2> "$tmp/redis.perr" &
	spid=$!
	sleep 1
	zt-collect --clock=wall -o "$tmp/redis.raw" /usr/bin/redis-server --port "$port" \
		--bind 127.0.0.1 --save '' --appendonly no > "$tmp/redis.log" 2>&1 &
	zpid=$!
	i=0
	until redis-cli -p "$port" ping 2> /dev/null | grep -q PONG; do
		i=$((i + 1))
		if [ "$i" -gt 300 ]; then
			echo "realprograms.sh: redis-server did not answer on port $port:" >&2
			cat "$tmp/redis.log" >&2
			kill "$zpid" 2> /dev/null || true
			exit 1
		fi
		sleep 0.1
	done
	rpid=$(redis-cli -p "$port" info server | sed -n 's/^process_id:\([0-9]*\).*/\1/p')
	redis-benchmark -h 127.0.0.1 -p "$port" -n "${REDIS_REQUESTS:-100000}" -c 20 -t set,get -q 2>&1 |
		tr '\r' '\n' | grep 'requests per second' > "$tmp/redis.bench" || true
	# Each thread: tid, comm, ns run and ns runnable but waiting, utime
	# and stime and start time in ticks; then the uptime when read.
	for t in /proc/"$rpid"/task/*; do
		echo "${t##*/} $(tr ' ' _ < "$t/comm") $(cut -d' ' -f1,2 "$t/schedstat") $(sed 's/.*) //' "$t/stat" | cut -d' ' -f12,13,20)"
	done > "$tmp/redis.sched"
	up=$(cut -d' ' -f1 /proc/uptime)
	redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
	wait "$zpid" || { echo "realprograms.sh: zt-collect failed on redis-server:" >&2; cat "$tmp/redis.log" >&2; exit 1; }
	kill -INT "$spid" 2> /dev/null || true
	wait "$spid" || true
	perf sched timehist -i "$tmp/redis.perf" > "$tmp/redis.timehist" 2> /dev/null || true
	zt-stat --json "$tmp/redis.raw" 2> /dev/null > "$tmp/redis.json"
	wall="$wall$("$py" - "$tmp/redis.json" "$tmp/redis.sched" "$up" "$(getconf CLK_TCK)" "$tmp/redis.timehist" <<'PY'
import json, re, sys
zt = {t["tid"]: t for t in json.load(open(sys.argv[1]))["wall"]["threads"]}
now, hz = float(sys.argv[3]), float(sys.argv[4])
# perf sched timehist: a line per time a task got a CPU: "wait time" since
# it left one (off-CPU and waiting), "sch delay" of that runnable (since
# its wakeup, or since it was preempted), "run time" (ms).
perf = {}
event = re.compile(r"\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
for line in open(sys.argv[5]):
    m = event.search(line)
    if m:
        a = perf.setdefault(int(m.group(1)), [0.0, 0.0, 0.0])
        for i in range(3):
            a[i] += float(m.group(i + 2)) / 1e3


def pct(x, whole):
    return 100.0 * x / whole if whole > 0 else 0.0


for line in open(sys.argv[2]):
    tid, comm, run, wait, ut, st, start = line.split()
    tid, life = int(tid), now - int(start) / hz
    run_s, wait_s = int(run) / 1e9, int(wait) / 1e9
    ks = "%.1f / %.1f / %.1f" % (pct(run_s, life), pct(life - run_s - wait_s, life), pct(wait_s, life))
    us = "%.1f / %.1f" % (pct(int(ut) / hz, life), pct(int(st) / hz, life))
    t = zt.get(tid)
    if t:
        w = (t["on_cpu_ns"] + t["off_cpu_ns"] + t["waiting_for_cpu_ns"]) / 1e9
        zs = "%.1f / %.1f / %.1f" % (pct(t["on_cpu_ns"] / 1e9, w), pct(t["off_cpu_ns"] / 1e9, w),
                                     pct(t["waiting_for_cpu_ns"] / 1e9, w))
        zw = "%.2f" % w
    else:
        zs, zw = "-", "-"
    ps = "-"
    if tid in perf:
        # Over the thread's life, as schedstat's: a thread that ran a
        # few times has too few lines for a span of its own.
        ran, delay = perf[tid][2], perf[tid][1]
        ps = "%.1f / %.1f / %.1f" % (pct(ran, life), pct(life - ran - delay, life), pct(delay, life))
    print("| %d %s | %s | %s | %s | %s | %s / %.2f | %.2f / %.2f |" % (tid, comm, zs, ks, ps, us, zw, life, run_s, wait_s))
PY
)
"
}

# make: make -j2 on the generated project under zt-collect -f and under
# perf record; adds to tree and sets fline.
make_tree() {
	zt-collect -f -o "$tmp/make.raw" "$top/tests/cputime" make -s -C "$tmp/mk" -j2 > /dev/null 2> "$tmp/make.err" ||
		{ echo "realprograms.sh: zt-collect -f failed on make:" >&2; cat "$tmp/make.err" >&2; exit 1; }
	rm -f "$tmp/mk/prog" "$tmp/mk"/*.o
	for r in "$tmp"/make.raw*; do
		zt-symbolize "$r" 2> /dev/null
	done > "$tmp/make.sym"
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o "$tmp/make.data" \
		"$top/tests/cputime" make -s -C "$tmp/mk" -j2 > /dev/null 2> "$tmp/make.perr" ||
		{ echo "realprograms.sh: perf record failed on make:" >&2; cat "$tmp/make.perr" >&2; exit 1; }
	rm -f "$tmp/mk/prog" "$tmp/mk"/*.o
	perf script -i "$tmp/make.data" --no-inline -F comm,pid,tid,time,event,ip,sym,dso \
		> "$tmp/make.txt" 2> /dev/null
	fline=$(sed -n 's/^zt-collect: with -f, \(.*\); wrote .*/\1/p' "$tmp/make.err")
	for tool in zt perf; do
		if [ $tool = zt ]; then
			f=$tmp/make.sym e=$tmp/make.err
			n=$(find "$tmp" -maxdepth 1 -name 'make.raw*' | wc -l | tr -d ' ')
		else
			f=$tmp/make.txt e=$tmp/make.perr
			n=$(awk '/^[^ \t]/ { split($2, a, "/"); if (!(a[1] in p)) { p[a[1]] = 1; k++ } } END { print k + 0 }' "$f")
		fi
		# tests/cputime's line: user s, system s, peak KiB.
		cpu=$(grep -E '^[0-9.]+ [0-9.]+ [0-9]+$' "$e" | tail -n 1)
		tree="$tree$("$py" tests/unwindcmp.py leaf /ld-linux "$f" | awk -F' [|] ' -v t=$tool -v n="$n" -v c="$cpu" \
			'{ split(c, u, " "); printf "| %s | %s | %s | %.2f / %.2f | %.0f | %s |\n", t, n, $1, u[1], u[2], (u[1] > 0 ? $1 / u[1] : 0), $2 }')
"
	done
}

rows=
selfrows=
wall=
tree=
fline=
skipped=
# shellcheck disable=SC2016 # the perl and ruby programs are single-quoted on purpose
for prog in ${PROGRAMS:-python3 perl xz zstd sqlite3 git gcc g++ gawk node ruby rustc clang++ redis make}; do
	case $prog in
	redis)
		if [ ! -x /usr/bin/redis-server ] || ! command -v redis-benchmark > /dev/null; then
			echo "redis: not installed (redis-server, redis-tools), skipped"
			skipped="$skipped redis"
		else
			redis
		fi
		continue ;;
	make) make_tree
		continue ;;
	python3) set -- "$py" "$top/samples/loop.py" 12000
		what="loop.py 12000 (a pure-Python loop)" ;;
	perl) set -- /usr/bin/perl -e 'for $i (1..6000000) { $h{$i % 1000} += sqrt($i) } print "$h{7}\n"'
		what="a hash and sqrt loop, 6 M rounds" ;;
	xz) set -- /usr/bin/xz -6 -T2 --block-size=1MiB -c "$tmp/text"
		what="xz -6 -T2 --block-size=1MiB, 2 MB of text" ;;
	zstd) set -- /usr/bin/zstd -19 -T2 -B1MiB -c "$tmp/text4"
		what="zstd -19 -T2 -B1MiB, 4 MB of text" ;;
	sqlite3) set -- /usr/bin/sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT sum(x * x % 7) FROM c;'
		what="a recursive CTE of 2 M rows" ;;
	git) set -- /usr/bin/git diff --no-index --histogram --stat "$tmp/text4" "$tmp/text4b"
		what="git diff --no-index --histogram of 4 MB of text" ;;
	gcc) set -- "$cc1" -quiet -O2 "$tmp/gen.c" -o /dev/null
		what="cc1 -O2, 150 generated C functions" ;;
	g++) set -- "$cc1plus" -quiet -O2 "$tmp/words.ii" -o /dev/null
		what="cc1plus -O2, <map> <sstream> <algorithm>" ;;
	gawk) set -- /usr/bin/gawk -M 'BEGIN { x = 1; for (i = 1; i <= 100000; i++) x *= i; print length(x) }'
		what="gawk -M, 100000!" ;;
	node) set -- /usr/bin/node -e 'let m = new Map(), s = 0; for (let i = 0; i < 2e7; i++) { m.set(i % 10000, i); s += m.get((i * 7) % 10000); } console.log(s)'
		what="a Map loop, 20 M rounds" ;;
	ruby) set -- /usr/bin/ruby -e 's = 0; h = {}; 8_000_000.times { |i| h[i % 1000] = i; s += h[(i * 7) % 1000] || 0 }; p s'
		what="a Hash loop, 8 M rounds" ;;
	rustc) set -- "$rustc" -O --crate-type=lib --emit=obj -o /dev/null "$tmp/lib.rs"
		what="rustc -O, 60 generated functions" ;;
	clang++) set -- "$clangxx" -O2 -c -o "$tmp/words.o" "$tmp/words.cc"
		what="clang++ -O2 -c, <map> <sstream> <algorithm>" ;;
	*) echo "realprograms.sh: no workload for '$prog'" >&2
		exit 2 ;;
	esac
	if [ ! -x "$1" ]; then
		echo "$prog: not installed ($1), skipped"
		skipped="$skipped $prog"
		continue
	fi
	case $prog in
	g++) g++ -E -o "$tmp/words.ii" "$tmp/words.cc" ;;
	esac
	# git diff exits 1 when the files differ: both profilers pass it on.
	zt-collect -o "$tmp/$prog.raw" "$@" > /dev/null 2> "$tmp/$prog.err" || [ "$prog" = git ] ||
		{ echo "realprograms.sh: zt-collect failed on $prog:" >&2; cat "$tmp/$prog.err" >&2; exit 1; }
	zt-symbolize "$tmp/$prog.raw" > "$tmp/$prog.sym"
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o "$tmp/$prog.data" "$@" \
		> /dev/null 2> "$tmp/$prog.perr" || [ "$prog" = git ] ||
		{ echo "realprograms.sh: perf record failed on $prog:" >&2; cat "$tmp/$prog.perr" >&2; exit 1; }
	perf script -i "$tmp/$prog.data" --no-inline -F comm,tid,time,event,ip,sym,dso \
		> "$tmp/$prog.txt" 2> /dev/null
	out=$($py tests/unwindcmp.py pair "perf:$tmp/$prog.txt" "zt:$tmp/$prog.sym:$tmp/$prog.raw")
	zs=$(printf '%s\n' "$out" | sed -n '1s/ .*//p')
	ps=$(printf '%s\n' "$out" | sed -n '2s/ .*//p')
	# Line 1, zt: samples | depth | entry | diff; 2, perf: samples |
	# depth | entry; 3: the function of that diff | zt's share | perf's.
	rows="$rows$(printf '%s\n' "$out" | awk -F' [|] ' -v p="$prog" -v w="$what" \
		-v zb="$(per "$(size "$tmp/$prog.raw")" "$zs")" -v pb="$(per "$(size "$tmp/$prog.data")" "$ps")" \
		'{ for (i = 1; i <= NF; i++) f[NR, i] = $i }
		END { printf "| %s | %s | %s / %s | %s / %s | %s / %s | %s: %s (%s / %s) | %s / %s |\n", p, w,
			f[1, 1], f[2, 1], f[1, 2], f[2, 2], f[1, 3], f[2, 3], f[1, 4], f[3, 1], f[3, 2], f[3, 3], zb, pb }')
"
	case $prog in
	clang++) selfrows="$selfrows$($py tests/unwindcmp.py self "perf:$tmp/$prog.txt" "zt:$tmp/$prog.sym:$tmp/$prog.raw" |
		awk -F' [|] ' -v p="$prog" '{ printf "| %s | %s | %s / %s |\n", p, $1, $2, $3 }')
" ;;
	esac
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); 997 Hz, user time, one run of each"
printf '\n| program | workload | samples (zt / perf) | median depth (zt / perf) | reaching the entry (zt / perf) | max top-10 diff in points: function (zt / perf total share) | bytes per sample (zt / perf) |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: |\n'
printf '%s' "$rows"
if [ -n "$selfrows" ]; then
	printf '\nThe largest self shares (the innermost frame) of each profile, five of each:\n'
	printf '\n| program | function | self share (zt / perf) |\n| --- | --- | ---: |\n%s' "$selfrows"
fi
if [ -n "$wall" ]; then
	printf '\nredis-server under redis-benchmark -n %s -c 20 -t set,get on 127.0.0.1 (%s), zt-collect --clock=wall (off-CPU at 97 Hz) against each thread'"'"'s schedstat and stat, read just before the shutdown:\n' \
		"${REDIS_REQUESTS:-100000}" "$(tr '\n' ';' < "$tmp/redis.bench" | sed 's/;$//; s/;/, /g')"
	printf '\n| thread | zt: on-CPU / off-CPU / waiting, %% of its wall | schedstat: on-CPU / off-CPU / waiting, %% of its life | perf sched timehist: on-CPU / off-CPU / waiting, %% of its life | user / system, %% of its life (stat) | zt wall / life (s) | schedstat run / waiting (s) |\n'
	printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n%s' "$wall"
	printf '\n'
	grep '^zt-collect: ' "$tmp/redis.log" || true
fi
if [ -n "$tree" ]; then
	printf '\nmake -j2 of 41 generated C files (compile and link) under zt-collect -f and perf record (children followed), tests/cputime giving the tree'"'"'s CPU time:\n'
	printf '\n| profiler | processes | samples | tree user / system CPU-s | samples per user CPU-s | ld.so self share |\n| --- | ---: | ---: | ---: | ---: | ---: |\n%s' "$tree"
	printf '\nzt-collect -f: %s\n' "$fline"
fi
[ -z "$skipped" ] || printf '\nnot installed, skipped:%s\n' "$skipped"
