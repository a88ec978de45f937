#!/usr/bin/env bats
# debuginfod: with DEBUGINFOD_URLS set, every tool that symbolizes fetches
# the files it cannot find here from a real `debuginfod -F DIR` server (on
# 127.0.0.1, stopped at the end), names what it fetched and from where,
# never fetches unless asked, and never uses a file of another build-id. A
# dead or silent server costs at most one time-out per build-id, and the
# frames are then named as without it.

load helper

# Two programs whose functions are static (a stripped copy names none).
# p: the client keeps its stripped binary. q: the dump was taken elsewhere,
# the binary is gone. The server holds both unstripped.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > p.c <<'C'
#include <stdlib.h>
static __attribute__((noinline)) long inner(long n)
{ long s = 0; for (long i = 0; i < n; i++) s = s * 7 + i; return s; }
static __attribute__((noinline)) long outer(long n) { return inner(n) + 1; }
#ifndef N
#define N 150000000
#endif
int main(int argc, char **argv) { return outer(argc > 1 ? atol(argv[1]) : N) == 42; }
C
	# Two builds: other code, other build-ids.
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o p.full p.c
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -DN=150000001 -o q.full p.c
	mkdir srv dbg
	cp p.full q.full srv/
	cp p.full p
	strip p
	cp q.full q
	zt-collect -o p.raw ./p 2> /dev/null
	zt-collect -o q.raw ./q 2> /dev/null
	rm q
	pb=$(readelf -n p.full | awk '/Build ID/ { print $3 }')
	qb=$(readelf -n q.full | awk '/Build ID/ { print $3 }')
	# Here, the local way to the same files: --debug-dir.
	mkdir -p "dbg/.build-id/${pb:0:2}" "dbg/.build-id/${qb:0:2}"
	objcopy --only-keep-debug p.full "dbg/.build-id/${pb:0:2}/${pb:2}.debug"
	cp q.full "dbg/.build-id/${qb:0:2}/${qb:2}"
	[ "$pb" != "$qb" ]
	echo "$pb $qb" > ids
	port=$(free_port)
	echo "$port" > port
	# The server federates nothing: no DEBUGINFOD_URLS of its own.
	env -u DEBUGINFOD_URLS debuginfod -p "$port" -d "$PWD/db.sqlite" -F "$PWD/srv" \
		> server.log 2>&1 3>&- &
	echo $! > server.pid
	# Ready when it has scanned srv/: it serves both files.
	wait_url "http://127.0.0.1:$port/buildid/$pb/debuginfo" &&
		wait_url "http://127.0.0.1:$port/buildid/$qb/executable" ||
		{ cat server.log >&3; return 1; }
}

teardown_file() {
	kill "$(cat "$BATS_FILE_TMPDIR/server.pid")" 2> /dev/null || true
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	read -r pb qb < ids
	read -r port < port
	url=http://127.0.0.1:$port
	# A private cache per test: what one test fetched is not the next's.
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
	unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT
}

teardown() {
	[ ! -s "$BATS_TEST_TMPDIR/other.pid" ] || kill "$(cat "$BATS_TEST_TMPDIR/other.pid")"
}

# Plain HTTP with python3-minimal (tests/webstub.py): a free port of
# 127.0.0.1, a GET, a stub server.
web() {
	python3 "$ZT_TOP/tests/webstub.py" "$@"
}
free_port() {
	web port
}

# Wait (at most 30 s) until URL $1 answers 200.
wait_url() {
	local i
	for i in $(seq 300); do
		web get "$1" > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "no answer from $1"
	return 1
}

# The server's count of requests for files of type $1 (debuginfo, executable).
requests() {
	web get "$url/metrics" | awk -v k="http_requests_total{type=\"$1\"}" '$1 == k { n += $2 } END { print n + 0 }'
}

# Start a stub server (webstub.py serve MODE, with FILE $2) on a free port,
# its port into $other, the paths asked into $BATS_TEST_TMPDIR/asked; it is
# stopped in teardown.
start_other() {
	other=$(free_port)
	# python3 itself in the background (not a subshell running web), so
	# that its pid is $!, the one teardown kills.
	python3 "$ZT_TOP/tests/webstub.py" serve "$1" "$other" "$BATS_TEST_TMPDIR/asked" \
		${2:+"$2"} 3>&- &
	echo $! > "$BATS_TEST_TMPDIR/other.pid"
	local i
	for i in $(seq 100); do
		[ -e "$BATS_TEST_TMPDIR/asked" ] && return 0
		sleep 0.1
	done
	return 1
}

# Whether $output is the text of file $1; if not, the difference.
same_as() {
	# As run keeps it: without the last newlines.
	printf '%s\n' "$(cat "$1")" > "$BATS_TEST_TMPDIR/want"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/got"
	diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" | head -40
	cmp -s "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

@test "names through debuginfod equal names from the local debug file, with one line saying so" {
	zt-symbolize -d dbg p.raw > local.sym 2> /dev/null
	DEBUGINFOD_URLS=$url run --separate-stderr zt-symbolize p.raw
	[ "$status" -eq 0 ]
	same_as local.sym
	[[ "$output" == *" inner+0x"* && "$output" == *" outer+0x"* ]]
	assert_equal "${stderr_lines[0]}" "zt-symbolize: debuginfod: 'p': debug file from '$url'"
	# No warning that p has no names: its debug file gave them.
	[[ "$stderr" != *"'$PWD/p'"* ]]
	[ -s "$DEBUGINFOD_CACHE_PATH/$pb/debuginfo" ]
	# Asked again, the cache answers.
	DEBUGINFOD_URLS=$url run --separate-stderr zt-symbolize p.raw
	same_as local.sym
	assert_equal "${stderr_lines[0]}" \
		"zt-symbolize: debuginfod: 'p': debug file from the cache '$DEBUGINFOD_CACHE_PATH'"
}

@test "a dump from another machine: every symbolizing tool fetches the executable, as --debug-dir finds it" {
	zt-fold -d dbg q.raw > local.folded 2> /dev/null
	grep -q ';main;outer;inner ' local.folded
	DEBUGINFOD_URLS=$url run --separate-stderr zt-fold q.raw
	[ "$status" -eq 0 ]
	same_as local.folded
	assert_equal "$stderr" "zt-fold: debuginfod: 'q': executable from '$url'"
	for tool in zt-stat zt-flame "zt-pprof -o $BATS_TEST_TMPDIR/q.pb.gz" zt-diff; do
		args=q.raw
		[ "$tool" != zt-diff ] || args="q.raw q.raw"
		rm -rf "$DEBUGINFOD_CACHE_PATH"
		DEBUGINFOD_URLS=$url run --separate-stderr $tool $args
		echo "$tool: $status: $stderr"
		[ "$status" -eq 0 ]
		# Once: the second dump of zt-diff has the answer of the first.
		assert_equal "$stderr" "${tool%% *}: debuginfod: 'q': executable from '$url'"
		[ -s "$DEBUGINFOD_CACHE_PATH/$qb/executable" ]
	done
	DEBUGINFOD_URLS=$url run zt-stat q.raw
	[[ "$output" == *inner* ]]
}

@test "without DEBUGINFOD_URLS, or with it empty, nothing is fetched and nothing said" {
	zt-symbolize p.raw > want.sym 2> want.err
	before=$(( $(requests debuginfo) + $(requests executable) ))
	for tool in zt-symbolize zt-fold zt-stat zt-flame zt-diff; do
		args="p.raw q.raw"
		[ "$tool" != zt-symbolize ] || args=q.raw
		run --separate-stderr $tool $args
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"'$PWD/q': cannot open"* && "$stderr" != *debuginfod* ]]
		DEBUGINFOD_URLS= run --separate-stderr $tool $args
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"'$PWD/q': cannot open"* && "$stderr" != *debuginfod* ]]
	done
	run --separate-stderr zt-symbolize p.raw
	same_as want.sym
	assert_equal "$stderr" "$(cat want.err)"
	[[ "$output" == *"[p+0x"* && "$output" != *" inner+"* ]]
	[ ! -e "$DEBUGINFOD_CACHE_PATH" ]
	assert_equal "$(( $(requests debuginfo) + $(requests executable) ))" "$before"
}

@test "--no-debuginfod fetches nothing, in every symbolizing tool" {
	zt-symbolize p.raw > want.sym 2> want.err
	before=$(( $(requests debuginfo) + $(requests executable) ))
	for tool in zt-symbolize zt-fold zt-stat zt-flame zt-diff "zt-pprof -o $BATS_TEST_TMPDIR/x.pb.gz"; do
		args="p.raw q.raw"
		[ "$tool" != zt-symbolize ] || args=q.raw
		DEBUGINFOD_URLS=$url run --separate-stderr $tool --no-debuginfod $args
		echo "$tool: $status: $stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *debuginfod* ]]
		[[ "$stderr" == *"'$PWD/q': cannot open"* ]]
	done
	DEBUGINFOD_URLS=$url run --separate-stderr zt-symbolize --no-debuginfod p.raw
	same_as want.sym
	assert_equal "$stderr" "$(cat want.err)"
	[ ! -e "$DEBUGINFOD_CACHE_PATH/$pb" ]
	assert_equal "$(( $(requests debuginfo) + $(requests executable) ))" "$before"
	# Every tool's help names it.
	for tool in zt-symbolize zt-fold zt-stat zt-flame zt-diff zt-pprof; do
		$tool --help | grep -q -- '--no-debuginfod'
	done
}

@test "a dead server: frames named as without it, one message, exit 0" {
	zt-fold p.raw q.raw > want.folded 2> /dev/null
	dead=$(free_port)
	DEBUGINFOD_URLS=http://127.0.0.1:$dead run --separate-stderr zt-fold p.raw q.raw
	[ "$status" -eq 0 ]
	same_as want.folded
	[[ "$output" == *";[p+0x"* && "$output" == *";[q];"* ]]
	assert_equal "${stderr_lines[0]}" "zt-fold: debuginfod: 'p': debug file not fetched; no answer from 'http://127.0.0.1:$dead' (Connection refused): nothing more asked"
	[[ "$stderr" == *"zt-fold: debuginfod: 'q': not fetched; the servers failed before: nothing more asked"* ]]
	[ "$(grep -c debuginfod <<< "$stderr")" -eq 2 ]
}

# A server that takes connections and never answers: DEBUGINFOD_TIMEOUT
# (libdebuginfod's) ends each question. Two build-ids are missing here, so
# the run may take two time-outs; zt stops asking after the first.
@test "a silent server costs at most one time-out per build-id" {
	start_other silent
	zt-fold p.raw q.raw > want.folded 2> /dev/null
	start=$(date +%s.%N)
	DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_URLS=http://127.0.0.1:$other run --separate-stderr zt-fold p.raw q.raw
	took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }')
	echo "took $took s: $stderr"
	[ "$status" -eq 0 ]
	same_as want.folded
	[[ "$stderr" == *"(Timer expired): nothing more asked"* ]]
	# Two build-ids, 2 s each, and 2 s for the rest of the run on a busy machine.
	awk -v t="$took" 'BEGIN { exit !(t < 2 * 2 + 2) }'
}

@test "a server answering with another build-id's file is named and ignored" {
	start_other file q.full
	zt-symbolize p.raw > want.sym 2> /dev/null
	DEBUGINFOD_URLS=http://127.0.0.1:$other run --separate-stderr zt-symbolize p.raw
	[ "$status" -eq 0 ]
	same_as want.sym
	assert_equal "${stderr_lines[0]}" "zt-symbolize: debuginfod: 'p': debug file from 'http://127.0.0.1:$other' ignored (its build-id is $qb)"
	# Asked once in a process, though two dumps need it.
	: > "$BATS_TEST_TMPDIR/asked"
	rm -rf "$DEBUGINFOD_CACHE_PATH"
	DEBUGINFOD_URLS=http://127.0.0.1:$other run --separate-stderr zt-diff p.raw p.raw
	[ "$status" -eq 0 ]
	assert_equal "$(cat "$BATS_TEST_TMPDIR/asked")" "/buildid/$pb/debuginfo"
	[ "$(grep -c 'debuginfod:' <<< "$stderr")" -eq 1 ]
}

@test "an executable answered with a debug file is refused as such; the debug file names the frames" {
	objcopy --only-keep-debug q.full "$BATS_TEST_TMPDIR/q.debug"
	start_other file "$BATS_TEST_TMPDIR/q.debug"
	zt-fold -d dbg q.raw > local.folded 2> /dev/null
	DEBUGINFOD_URLS=http://127.0.0.1:$other run --separate-stderr zt-fold q.raw
	[ "$status" -eq 0 ]
	same_as local.folded
	assert_equal "$stderr" "zt-fold: debuginfod: 'q': executable from 'http://127.0.0.1:$other' ignored (a debug file: its code is not in it), debug file from 'http://127.0.0.1:$other'"
}

@test "a password in DEBUGINFOD_URLS is never shown" {
	dead=$(free_port)
	DEBUGINFOD_URLS="http://zt:s3cret@127.0.0.1:$dead" run --separate-stderr zt-symbolize p.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"no answer from 'http://127.0.0.1:$dead'"* ]]
	[[ "$stderr" != *s3cret* ]]
}

# A server that sends p's file in small pieces, slowly: on a terminal
# (script gives the tool one as stderr) the transfer shows how far it got;
# the one line after it stays.
@test "progress of a transfer on a terminal, none in a pipe" {
	start_other slow p.full
	script -q -e -c "ZT_PROGRESS_MS=0 DEBUGINFOD_URLS=http://127.0.0.1:$other zt-symbolize p.raw > $BATS_TEST_TMPDIR/out" \
		"$BATS_TEST_TMPDIR/tty.raw" > /dev/null
	cat -v "$BATS_TEST_TMPDIR/tty.raw"
	grep -q "zt-symbolize: debuginfod: debug file of 'p': [0-9]* of [0-9]* KiB" "$BATS_TEST_TMPDIR/tty.raw"
	grep -q "zt-symbolize: debuginfod: 'p': debug file from 'http://127.0.0.1:$other'" "$BATS_TEST_TMPDIR/tty.raw"
	grep -q " inner+0x" "$BATS_TEST_TMPDIR/out"
	# In a pipe: the one line, no progress.
	rm -rf "$DEBUGINFOD_CACHE_PATH"
	ZT_PROGRESS_MS=0 DEBUGINFOD_URLS=http://127.0.0.1:$other run --separate-stderr zt-symbolize p.raw
	assert_equal "$stderr" "zt-symbolize: debuginfod: 'p': debug file from 'http://127.0.0.1:$other'"
}
