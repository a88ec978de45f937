#!/bin/bash
# ingest.sh — zt-ingest's cost and what a fleet's profiles take in
# ClickHouse (issue 30, item 7), with two real servers on 127.0.0.1 as the
# shards of the cluster zt (tests/clickhouse.bash):
#
# - zt-ingest's CPU time over DUMPS dumps from 10 simulated hosts, against
#   zt-fold of the same dumps (tests/bench/ratio.inc: alternating pairs,
#   median of the ratios; each zt-ingest run starts from empty tables);
#   goal at most 1.5x;
# - rows and bytes stored per sample (system.parts, both shards);
# - the flame-graph query over both shards (clickhouse-client's wall time,
#   the servers' work included) against zt-fold merging the same dumps
#   locally, as a ratio of wall times in alternating pairs; no goal.
#
# The dumps: 10 real ones of samples/spin at 10 kHz (about 10,000 samples
# each), then each copied DUMPS / 10 times with its host and pid changed,
# so that each is a dump of its own (its id is a hash of its text).
#
#   bash tests/bench/ingest.sh        # DUMPS=1000 ROUNDS=3 by default
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"	# make bench runs it with sh
set -eu
cd "$(dirname "$0")/../.."
top=$PWD
ZT_TOP=$top
[ -x tools/zt-ingest ] && [ -x collect/zt-collect ] ||
	{ echo "ingest.sh: build zt first (make)" >&2; exit 1; }
command -v clickhouse-server > /dev/null ||
	{ echo "ingest.sh: clickhouse-server is not installed (make deps)" >&2; exit 1; }
ROUNDS=${ROUNDS:-3}
DUMPS=${DUMPS:-1000}
. tests/bench/ratio.inc
. tests/clickhouse.bash
tmp=$btmp
trap 'ch_down; rm -rf "$btmp"' EXIT
ch_up > /dev/null

mkdir "$tmp/d"
for i in 0 1 2 3 4 5 6 7 8 9; do
	collect/zt-collect -F 10000 -o "$tmp/base$i.raw" samples/spin > /dev/null 2>&1
done
for ((k = 0; k < DUMPS; k++)); do
	b=$((k % 10))
	sed "s/^host .*/host h$b/; s/^pid .*/pid $((100000 + k))/" "$tmp/base$b.raw" |
		gzip -1 > "$tmp/d/$k.raw.gz"
done
samples=$(tools/zt-stat "$tmp"/d/*.raw.gz | sed -n 's/^samples: \([0-9]*\).*/\1/p')
echo "input: $DUMPS dumps from 10 hosts, $samples samples, $(du -sk "$tmp/d" | cut -f1) KiB gzipped"
echo

# One stored run from empty tables (a script: ratio.inc runs a command
# with exec, which would end a list at its first command).
cat > "$tmp/ingest-once.sh" <<EOF
curl -sf -d 'TRUNCATE TABLE zt.samples' http://127.0.0.1:$CH_HTTP_1/ &&
curl -sf -d 'TRUNCATE TABLE zt.samples' http://127.0.0.1:$CH_HTTP_2/ &&
exec $top/tools/zt-ingest --url http://127.0.0.1:$CH_HTTP_1 $tmp/d/*.raw.gz
EOF
bench_header "zt-ingest against zt-fold on the same dumps"
bench_ratio "zt-ingest ($DUMPS dumps, both shards) vs zt-fold" 1.5 \
	"$top/tools/zt-fold $tmp/d/*.raw.gz" "sh $tmp/ingest-once.sh"
echo

rows=$(q "SELECT count() FROM zt.samples_all")
bytes=$(($(clickhouse-client --port "$CH_TCP_1" --query "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'zt' AND active") +
	$(clickhouse-client --port "$CH_TCP_2" --query "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'zt' AND active")))
awk -v r="$rows" -v b="$bytes" -v s="$samples" 'BEGIN {
	printf "stored: %d rows, %d bytes on disk over both shards; %.4f rows and %.2f bytes a sample\n",
		r, b, r / s, b / s }'
echo

query="SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all GROUP BY s"
echo "## the flame graph's stacks: a query over both shards against zt-fold locally (wall time)"
echo
# Wall time (the servers' work is not the client's CPU time), in
# alternating pairs after a warm-up of each; the median of the ratios.
wall() { local t0; t0=$(date +%s%N); "$@" > /dev/null; echo $(( $(date +%s%N) - t0 )); }
wall q "$query" > /dev/null; wall tools/zt-fold "$tmp"/d/*.raw.gz > /dev/null
for ((i = 0; i < ROUNDS; i++)); do
	a=$(wall q "$query")
	b=$(wall tools/zt-fold "$tmp"/d/*.raw.gz)
	echo "$a $b" | awk '{ printf "%.6f %.3f %.3f\n", $1 / $2, $1 / 1e9, $2 / 1e9 }'
done | sort -n > "$tmp/pairs"
awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
	printf "query over both shards vs zt-fold of the same dumps: median %.3f, min %.3f, max %.3f\n",
		m, r[1], r[NR] }' "$tmp/pairs"
echo "(each pair: ratio, query s, zt-fold s)"
cat "$tmp/pairs"
# The same stacks, whichever way.
diff <(q "$query" | tr '\t' ' ' | LC_ALL=C sort) <(tools/zt-fold "$tmp"/d/*.raw.gz | LC_ALL=C sort) > /dev/null &&
	echo "the query's stacks are zt-fold's, byte for byte"
bench_end
