# 0760-ingest.bats — zt-ingest (issue 30, item 3): dumps of any stage into
# ClickHouse, two real servers on 127.0.0.1 as the shards of the cluster zt
# behind the Distributed table zt.samples_all (formats/clickhouse.sql).
load helper
load clickhouse

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	command -v clickhouse-server > /dev/null || skip "clickhouse-server is not installed (make deps)"
	ch_up
	for i in 1 2 3 4; do zt-collect -o "spin$i.raw" "$SAMPLES/spin" 2> /dev/null > /dev/null; done
	zt-collect --clock=wall -o wall.raw "$SAMPLES/threads" 2> /dev/null > /dev/null
	gzip -k spin4.raw
	zt-fold spin1.raw > spin1.folded
}

teardown_file() {
	ch_down
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	ch_start 1 2> /dev/null || true
	ch_start 2 2> /dev/null || true
	clickhouse-client --port "$CH_TCP_1" --query "TRUNCATE TABLE zt.samples"
	clickhouse-client --port "$CH_TCP_2" --query "TRUNCATE TABLE zt.samples"
}

# The folded stacks of event $1 over both shards, "stack count", sorted.
stacks() {
	q "SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all
	   WHERE event = '$1' GROUP BY s" | tr '\t' ' ' | sort
}

# The rows on shard $1.
rows_on() {
	clickhouse-client --port "$(eval echo \$CH_TCP_$1)" --query "SELECT count() FROM zt.samples"
}

@test "the stacks a query sums over both shards are zt-fold's of the same dumps, byte for byte (CPU and wall-clock)" {
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.raw spin2.raw spin3.raw spin4.raw.gz wall.raw
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"5 dumps stored, 0 stored before, 0 failed, 0 not read"* ]]
	diff <(zt-fold spin1.raw spin2.raw spin3.raw spin4.raw | sort) <(stacks zt-samples)
	diff <(zt-fold wall.raw | grep -v '^#' | sort) <(stacks zt-wall-ns)
	# Each dump goes whole to one shard, the one its id hashes to (shard
	# 1 for an even cityHash64, 2 for an odd one); with 5 dumps both may
	# by chance land on one shard, so the test checks where each went.
	for i in 1 2; do
		echo "shard $i: $(rows_on "$i") rows; hash parities:" \
			$(clickhouse-client --port "$(eval echo \$CH_TCP_$i)" --query "SELECT DISTINCT cityHash64(dump_id) % 2 FROM zt.samples")
	done
	[ "$(clickhouse-client --port "$CH_TCP_1" --query "SELECT count() FROM zt.samples WHERE cityHash64(dump_id) % 2 != 0")" -eq 0 ]
	[ "$(clickhouse-client --port "$CH_TCP_2" --query "SELECT count() FROM zt.samples WHERE cityHash64(dump_id) % 2 != 1")" -eq 0 ]
	[ $(($(rows_on 1) + $(rows_on 2))) -eq "$(q "SELECT count() FROM zt.samples_all")" ]
	[ "$(q "SELECT count() FROM (SELECT dump_id FROM zt.samples_all GROUP BY dump_id)")" -eq 5 ]
	# Each row's thread, process and time are the dump's.
	pid=$(sed -n 's/^pid //p' spin1.raw)
	start=$(sed -n 's/^start-time-ns //p' spin1.raw)
	run q "SELECT DISTINCT pid, tid, thread, command, event, unit FROM zt.samples_all WHERE pid = $pid"
	assert_output "$(printf '%s\t%s\tspin\tspin\tzt-samples\tsamples' "$pid" "$pid")"
	b=$(q "SELECT min(toUInt32(bucket)) FROM zt.samples_all WHERE pid = $pid")
	echo "bucket $b, start $start"
	[ "$b" -le $((start / 1000000000)) ] && [ "$b" -gt $((start / 1000000000 - 60)) ]
}

@test "folded stacks are rows of their own, no thread or time; a wall-clock profile's in ns" {
	zt-fold wall.raw > wall.folded
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.folded wall.folded
	echo "status $status; stderr: $stderr"
	assert_success
	diff <(sort spin1.folded) <(q "SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all WHERE unit = 'samples' GROUP BY s" | tr '\t' ' ' | sort)
	run q "SELECT DISTINCT event, unit, pid, tid, toUInt32(bucket) FROM zt.samples_all ORDER BY unit"
	assert_output "$(printf 'folded\tns\t0\t0\t0\nfolded\tsamples\t0\t0\t0')"
}

@test "run again, or with a dump given twice, nothing is stored twice" {
	zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.raw spin2.raw 2> /dev/null
	n=$(q "SELECT count() FROM zt.samples_all")
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.raw spin2.raw spin3.raw spin3.raw spin4.raw spin4.raw.gz
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"2 dumps stored, 4 stored before, 0 failed, 0 not read"* ]]
	diff <(zt-fold spin1.raw spin2.raw spin3.raw spin4.raw | sort) <(stacks zt-samples)
	[ "$(q "SELECT count() FROM zt.samples_all")" -gt "$n" ]
}

@test "a dump's id is the hash its rows were stored with before, gzip or not; a stored dump is skipped in silence, warnings and all" {
	# The id of these bytes from the version that read a dump twice (once
	# for its id): rows stored by it must still be found.
	printf 'spin;main;work 7\nspin;main 2\n' > pinned.folded
	gzip -c pinned.folded > pinned.folded.gz
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" pinned.folded pinned.folded.gz
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"1 dumps stored, 1 stored before, 0 failed"* ]]
	run q "SELECT DISTINCT dump_id FROM zt.samples_all"
	assert_output a4310d383b851057
	# A dump whose program is gone warns as it is stored, and says
	# nothing when it is found stored (the first file of a run is read
	# and folded before the server is asked; the next, after a dump the
	# server held, is not).
	cp "$SAMPLES/spin" spingone
	zt-collect -o gone.raw ./spingone > /dev/null 2>&1
	rm spingone
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" gone.raw
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"spingone"* ]]
	for order in "gone.raw pinned.folded" "pinned.folded gone.raw"; do
		run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" $order
		echo "$order: status $status; stderr: $stderr"
		assert_success
		[ "$stderr" = "zt-ingest: 0 dumps stored, 2 stored before, 0 failed, 0 not read, 0 without samples; 0 rows, 0 samples, 0 bytes sent" ]
	done
}

@test "a shard stopped mid-run: its dumps are reported and not counted; run again, nothing is lost" {
	ch_stop 2
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" --timeout 5 spin1.raw spin2.raw spin3.raw spin4.raw
	echo "status $status; stderr: $stderr"
	assert_failure 1
	[[ "$stderr" == *"0 dumps stored"* ]]
	[[ "$stderr" == *"the server answered 500"* ]]
	ch_start 2
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.raw spin2.raw spin3.raw spin4.raw
	echo "status $status; stderr: $stderr"
	assert_success
	diff <(zt-fold spin1.raw spin2.raw spin3.raw spin4.raw | sort) <(stacks zt-samples)
}

@test "garbage, a truncated dump and a foreign file are named and skipped; the others are stored" {
	printf 'hello\nworld\n' > garbage.txt
	head -c 3000 spin1.raw > truncated.raw
	cp /bin/true foreign.bin
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" garbage.txt truncated.raw spin2.raw foreign.bin
	echo "status $status; stderr: $stderr"
	assert_failure 1
	[[ "$stderr" == *"garbage.txt"* && "$stderr" == *"truncated.raw"* && "$stderr" == *"foreign.bin"* ]]
	[[ "$stderr" == *"1 dumps stored, 0 stored before, 0 failed, 3 not read"* ]]
	diff <(zt-fold spin2.raw | sort) <(stacks zt-samples)
}

@test "a dead server: said once per request, exit 1, and no password printed" {
	port=$(free_ports 1)
	start=$(date +%s)
	run --separate-stderr zt-ingest --url "http://ztuser:s3cr3t@127.0.0.1:$port" --timeout 2 spin1.raw spin2.raw
	echo "status $status; stderr: $stderr"
	assert_failure 1
	[[ "$stderr" == *"http://127.0.0.1:$port"* ]]
	[[ "$stderr" != *s3cr3t* ]]
	[[ "$stderr" == *"0 dumps stored, 0 stored before, 2 failed"* ]]
	[ $(($(date +%s) - start)) -lt 20 ]
	CLICKHOUSE_PASSWORD=s3cr3t run --separate-stderr zt-ingest --url "http://127.0.0.1:$port" --timeout 2 spin1.raw
	[[ "$stderr" != *s3cr3t* ]]
	# A password that holds an '@' is hidden whole.
	run --separate-stderr zt-ingest --url "http://u:se@cr3t@127.0.0.1:$port/?database=zt" --timeout 2 spin1.raw
	echo "stderr: $stderr"
	[[ "$stderr" != *cr3t* && "$stderr" == *"http://127.0.0.1:$port/?database=zt"* ]]
}

@test "a URL with a path and a query of its own; a dump without samples is said, and stored as nothing" {
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1/?database=zt" spin1.raw
	echo "status $status; stderr: $stderr"
	assert_success
	# Sampling never started (--paused): a whole dump without samples.
	zt-collect --paused -o empty.raw true 2> /dev/null
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" empty.raw spin2.raw
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"no samples in 'empty.raw'; nothing stored"* ]]
	[[ "$stderr" == *"1 dumps stored, 0 stored before, 0 failed, 0 not read, 1 without samples"* ]]
	diff <(zt-fold spin1.raw spin2.raw | sort) <(stacks zt-samples)
}

@test "a server that answers garbage or an error page is named with what it said; nothing is counted" {
	port=$(free_ports 1)
	python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.end_headers(); self.wfile.write(b"<html>a proxy page</html>\n")
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()' "$port" &
	srv=$!
	for i in $(seq 1 50); do curl -s -X POST "http://127.0.0.1:$port/" > /dev/null && break; sleep 0.1; done
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$port" spin1.raw
	kill "$srv"
	echo "status $status; stderr: $stderr"
	assert_failure 1
	[[ "$stderr" == *"the server answered '<html>a proxy page</html>' to a count"* ]]
	[[ "$stderr" == *"0 dumps stored"* ]]
}

@test "usage errors exit 2: no --url, a bad table, standard input, a bad bucket" {
	run zt-ingest spin1.raw
	assert_failure 2
	assert_output --partial "--url names the server"
	run zt-ingest --url "http://127.0.0.1:1" --table "zt.samples; DROP TABLE x" spin1.raw
	assert_failure 2
	assert_output --partial "--table wants DB.TABLE"
	run zt-ingest --url "http://127.0.0.1:1" - < spin1.raw
	assert_failure 2
	run zt-ingest --url "http://127.0.0.1:1" --bucket 0 spin1.raw
	assert_failure 2
	assert_output --partial "--bucket wants a whole number of seconds"
	run zt-ingest --url "ftp://127.0.0.1:1" spin1.raw
	assert_failure 2
	run zt-ingest --help
	assert_success
	assert_output --partial "usage: zt-ingest"
}

@test "a query's TabSeparated rows go straight into zt-flame, zt-stat and zt-diff" {
	zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" spin1.raw spin2.raw 2> /dev/null
	# ClickHouse 18.16 has no GROUP BY 1: the stack is grouped by its name.
	sql="SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all WHERE event = 'zt-samples'"
	q "$sql GROUP BY s" | zt-flame > q.svg
	grep -q '<svg' q.svg
	run zt-stat <(q "$sql GROUP BY s")
	assert_success
	n=$(( $(sed -n 's/^samples //p' spin1.raw) + $(sed -n 's/^samples //p' spin2.raw) ))
	assert_line --regexp "^samples: $n "
	run --separate-stderr zt-diff <(q "$sql AND pid = $(sed -n 's/^pid //p' spin1.raw) GROUP BY s") <(q "$sql GROUP BY s")
	echo "status $status; stderr: $stderr"
	assert_success
	[ "${#lines[@]}" -gt 0 ]
}

@test "a dump's host and labels are each row's, so a query can select and group by them" {
	zt-collect --label service=web --label version=2 -o lab.raw "$SAMPLES/spin" > /dev/null 2>&1
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" lab.raw spin1.raw
	echo "status $status; stderr: $stderr"
	assert_success
	run q "SELECT DISTINCT host, label_keys, label_values FROM zt.samples_all ORDER BY length(label_keys)"
	assert_output "$(printf "%s\t[]\t[]\n%s\t['service','version']\t['web','2']" "$(uname -n)" "$(uname -n)")"
	diff <(zt-fold lab.raw | sort) <(q "SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all
		WHERE label_values[indexOf(label_keys, 'service')] = 'web' GROUP BY s" | tr '\t' ' ' | sort)
}

@test "https checks the server's certificate; --insecure does not, and says so" {
	command -v openssl > /dev/null || skip "openssl is not installed (make deps)"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 2 \
		-subj "/CN=127.0.0.1" 2> /dev/null
	port=$(free_ports 1)
	openssl s_server -accept "127.0.0.1:$port" -cert c.pem -key k.pem -www -quiet > /dev/null 2>&1 &
	srv=$!
	for i in $(seq 1 50); do curl -sk "https://127.0.0.1:$port/" > /dev/null && break; sleep 0.1; done
	run --separate-stderr zt-ingest --url "https://127.0.0.1:$port" --timeout 3 spin1.raw
	echo "status $status; stderr: $stderr"
	assert_failure 1
	[[ "$stderr" == *"certificate"* ]]
	[[ "$stderr" != *"--insecure"* ]]
	run --separate-stderr zt-ingest --insecure --url "https://127.0.0.1:$port" --timeout 3 spin1.raw
	kill "$srv"
	echo "status $status; stderr: $stderr"
	# openssl's test server takes the connection and never answers a POST.
	assert_failure 1
	[[ "$stderr" == *"--insecure: the server's certificate is not checked"* ]]
	[[ "$stderr" != *"certificate problem"* ]]
}

# $1 files of folded stacks, big.N.folded, of 80,000 stacks each: about 9 MB
# of rows, more than a batch holds (8 MiB), so each is an INSERT of its own.
big_folded() {
	for i in $(seq 1 "$1"); do
		awk -v i="$i" 'BEGIN { for (j = 0; j < 80000; j++)
			printf "big%d;main;work_%d;leaf_%d %d\n", i, j % 977, j, j % 13 + 1 }' > "big.$i.folded"
	done
}

# The dump ids zt.samples_all holds, with their rows, "ID ROWS" sorted (from shard $1's server).
ids_rows() {
	clickhouse-client --port "$(eval echo \$CH_TCP_$1)" --query \
		"SELECT dump_id, count() FROM zt.samples_all GROUP BY dump_id ORDER BY dump_id" | tr '\t' ' '
}

# Kill server $1 (-9) once the first batch is stored on either shard, while zt-ingest (pid $2) runs.
kill_after_first_batch() {
	local i
	for i in $(seq 1 600); do
		[ $(( $(rows_on 1) + $(rows_on 2) )) -gt 0 ] && break
		sleep 0.05
	done
	kill -0 "$2"	# zt-ingest still runs: the kill is mid-run
	kill -9 "$(cat "$CH_DIR/$1/pid")"
	rm -f "$CH_DIR/$1/pid"
}

# The run of zt-ingest in ingest.out (its status $1) against the servers' rows now:
# every file it did not say it stored is named as not stored, and every
# dump it counted as stored is whole in the table. $2: the server to ask.
check_first_run() {
	local st=$1 n stored failed f
	cat ingest.out
	[ "$st" -eq 1 ]
	stored=$(sed -n 's/.*: \([0-9]*\) dumps stored, .*/\1/p' ingest.out)
	failed=$(sed -n 's/.* stored before, \([0-9]*\) failed, .*/\1/p' ingest.out)
	[ "$failed" -ge 1 ] && [ $((stored + failed)) -eq 8 ]
	n=0
	for f in big.*.folded; do
		if grep -q "not stored\(, or not known to be\)\?: .*$f" ingest.out; then
			n=$((n + 1))
		fi
	done
	[ "$n" -eq "$failed" ]
}

# A second run stores what the first did not; each dump is in the table once, whole.
check_rerun() {
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" big.*.folded
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *", 0 failed, 0 not read"* ]]
	run ids_rows 1
	echo "$output"
	[ "${#lines[@]}" -eq 8 ]
	for l in "${lines[@]}"; do [ "${l#* }" -eq 80000 ]; done
	diff <(cat big.*.folded | sort) <(q "SELECT arrayStringConcat(stack, ';') AS s, sum(weight) FROM zt.samples_all GROUP BY s" | tr '\t' ' ' | sort)
}

@test "the server zt-ingest talks to killed (-9) mid-run: the dumps not stored are named, exit 1; run again, each is stored once" {
	big_folded 8
	zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" --timeout 10 big.*.folded > ingest.out 2>&1 &
	pid=$!
	kill_after_first_batch 1 "$pid"
	wait "$pid" && st=0 || st=$?
	check_first_run "$st"
	ch_start 1
	check_rerun
}

@test "the other shard killed (-9) mid-run: the dumps not stored are named, exit 1; run again, each is stored once" {
	big_folded 8
	zt-ingest --url "http://127.0.0.1:$CH_HTTP_1" --timeout 10 big.*.folded > ingest.out 2>&1 &
	pid=$!
	kill_after_first_batch 2 "$pid"
	wait "$pid" && st=0 || st=$?
	check_first_run "$st"
	ch_start 2
	check_rerun
}

@test "an INSERT stored but its answer lost (the connection cut): not sent again, counted stored, each dump once" {
	# A proxy before server 1 that passes every request on, and cuts the
	# connection of the first INSERT once the server has answered it.
	port=$(free_ports 1)
	python3 -c '
import http.server, socket, sys, urllib.error, urllib.parse, urllib.request
cut = [int(sys.argv[3])]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        req = urllib.request.Request("http://127.0.0.1:%s%s" % (sys.argv[2], self.path),
                                     data=body, headers={"Content-Type": "text/plain"})
        try:
            r = urllib.request.urlopen(req)
            code, out = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, out = e.code, e.read()
        if "INSERT" in urllib.parse.unquote(self.path) and cut[0] > 0:
            cut[0] -= 1
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.send_response(code)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()' "$port" "$CH_HTTP_1" 1 &
	srv=$!
	for i in $(seq 1 50); do curl -s -X POST "http://127.0.0.1:$port/?query=SELECT%201" > /dev/null && break; sleep 0.1; done
	run --separate-stderr zt-ingest --url "http://127.0.0.1:$port" spin1.raw spin2.raw spin3.raw spin4.raw
	kill "$srv"
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" == *"4 dumps stored, 0 stored before, 0 failed, 0 not read"* ]]
	diff <(zt-fold spin1.raw spin2.raw spin3.raw spin4.raw | sort) <(stacks zt-samples)
}
