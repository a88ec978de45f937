#!/bin/sh
# realprograms.sh — zt's stacks on real programs next to perf's: one
# workload of one to two CPU-seconds for each of python3, perl, xz -T2,
# zstd -T2, sqlite3, git, gcc (cc1), g++ (cc1plus), gawk -M, node, ruby and
# rustc, recorded once by zt-collect (its defaults: 997 Hz, user CPU time,
# --unwind=auto) and once by perf record --call-graph dwarf at the same rate,
# user space only. For each it prints, side by side: samples, median stack
# depth, the share of samples whose stack reaches the thread's entry
# (_start, or clone/clone3 in a thread), the largest difference in points
# between the two profiles' total shares of a top-10 function (of either
# profile; tests/unwindcmp.py defines all three, as for tests/bench/unwind.sh),
# and bytes per sample of the file each profiler writes (zt's raw dump,
# perf.data). The README's table of real programs comes from one run.
#
#   sh tests/bench/realprograms.sh
#   PROGRAMS="xz rustc" sh tests/bench/realprograms.sh   # some of them
#
# A program that is not installed is skipped with a line saying so (make
# bench installs the Debian ones: BENCH_DEBS in the Makefile); rustc is
# taken from PATH or ~/.cargo/bin (rustup), RUSTC overrides it. gcc and g++
# are their compilers proper (cc1, cc1plus: one process each, as
# `gcc -print-prog-name` names them) on a file preprocessed here. No figure
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

rustc=${RUSTC:-$(command -v rustc || echo "$HOME/.cargo/bin/rustc")}
# The toolchain's own rustc, not rustup's proxy that execs it.
[ -x "$rustc" ] && rustc="$("$rustc" --print sysroot 2> /dev/null)/bin/rustc"
cc1=$(gcc -print-prog-name=cc1 2> /dev/null || true)
cc1plus=$(gcc -print-prog-name=cc1plus 2> /dev/null || true)

size() { wc -c < "$1" | tr -d ' '; }
per() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? b / s : 0) }'; }

rows=
skipped=
# shellcheck disable=SC2016 # the perl and ruby programs are single-quoted on purpose
for prog in ${PROGRAMS:-python3 perl xz zstd sqlite3 git gcc g++ gawk node ruby rustc}; do
	case $prog in
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
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); 997 Hz, user time, one run of each"
printf '\n| program | workload | samples (zt / perf) | median depth (zt / perf) | reaching the entry (zt / perf) | max top-10 diff in points: function (zt / perf total share) | bytes per sample (zt / perf) |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: |\n'
printf '%s' "$rows"
[ -z "$skipped" ] || printf '\nnot installed, skipped:%s\n' "$skipped"
