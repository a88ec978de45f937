#!/bin/sh
# alloc-overhead.sh — what zt-collect --alloc costs the profiled program
# (issue 31), each as a ratio of CPU time against a reference run in the
# same call (tests/bench/ratio.inc: alternating pairs, median of the
# ratios), side by side with heaptrack (every allocation and free traced)
# and gperftools' heap profiler (tcmalloc preloaded, HEAPPROFILE), on:
#
#   - a malloc-heavy loop: samples/allocs sites, 4 threads, 1 GiB in
#     blocks of 16 B to 1 MiB, 7 million calls to malloc and free;
#   - python3 building and dropping dicts and lists;
#   - sqlite3 inserting 200,000 rows into an in-memory table with an index;
#   - git log -p over this repository's last 300 commits.
#
# Goal: zt-collect --alloc at most +5% over the bare program (the issue's
# 1.05x); zt-collect without --alloc is shown beside it, so that the
# allocation sampling's own share is the difference.
#
#   sh tests/bench/alloc-overhead.sh      # ROUNDS=5 MARGIN=1.5 by default
#   ZT_ONLY=1 sh tests/bench/alloc-overhead.sh   # zt's rows alone (gperftools'
#                                         # takes 1,000 times the malloc loop)
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
ROUNDS=${ROUNDS:-5}
. tests/bench/ratio.inc
tmp=$btmp
PATH="$top/tools:$top/collect:$PATH"
tcmalloc=$(ls /usr/lib/*-linux-gnu/libtcmalloc.so.4 2>/dev/null | head -1 || true)

cat > "$tmp/dicts.py" <<'EOF'
import random
random.seed(1)
keep = []
for i in range(60):
    d = {str(k): [k] * 8 for k in range(20000)}
    s = sorted(d.items(), key=lambda kv: kv[0][::-1])
    keep.append(s[:100])
print(len(keep))
EOF
{
	echo "create table t (a integer, b text, c text); create index ta on t(b);"
	echo "with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000)"
	echo "insert into t select i, hex(randomblob(16)), hex(randomblob(40)) from n;"
	echo "select count(*), sum(length(c)) from t where b > 'A';"
} > "$tmp/rows.sql"

# row NAME COMMAND: the program bare, under zt without and with --alloc, heaptrack, gperftools.
# (bench_ratio sets name and cmd: these are what and prog.)
row() {
	what=$1 prog=$2
	bench_ratio "$what: zt-collect --alloc vs bare" +5% "$prog" \
		"$top/collect/zt-collect --alloc -o $tmp/a.raw $prog"
	bench_ratio "$what: zt-collect (CPU only) vs bare" - "$prog" \
		"$top/collect/zt-collect -o $tmp/c.raw $prog"
	bench_ratio "$what: zt-collect --alloc vs zt-collect (CPU only)" - \
		"$top/collect/zt-collect -o $tmp/c.raw $prog" \
		"$top/collect/zt-collect --alloc -o $tmp/a.raw $prog"
	# The floor of any interposer: libzt-alloc.so alone, without
	# libzt-prof.so, passes every call through and samples nothing.
	bench_ratio "$what: the interposers alone (nothing sampled) vs bare" - "$prog" \
		"env LD_PRELOAD=$top/collect/libzt-alloc.so $prog"
	[ -n "${ZT_ONLY:-}" ] && return
	if command -v heaptrack > /dev/null; then
		bench_ratio "$what: heaptrack vs bare" - "$prog" "heaptrack -o $tmp/h $prog"
	fi
	if [ -n "$tcmalloc" ]; then
		bench_ratio "$what: gperftools' heap profiler vs bare" - "$prog" \
			"env LD_PRELOAD=$tcmalloc HEAPPROFILE=$tmp/hp $prog"
	fi
}

bench_header "What allocation sampling costs: zt-collect --alloc at 512 KiB, heaptrack, gperftools"
row "malloc loop" "$top/samples/allocs sites 1024"
row "python3" "python3 $tmp/dicts.py"
command -v sqlite3 > /dev/null && row "sqlite3" "sqlite3 :memory: -init $tmp/rows.sql .quit"
row "git log -p" "git -C $top log -p -300"

# The output each leaves, for the record: zt's dump beside heaptrack's.
echo
for f in "$tmp"/a.raw "$tmp"/h*; do
	[ -e "$f" ] && echo "$(basename "$f"): $(wc -c < "$f") bytes"
done
bench_end
