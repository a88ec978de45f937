# 0313-small-frictions.bats — a new user's small frictions: a --focus that
# keeps nothing is said, --focus matches the root frame alike in every
# input (never: it is the command), and the docs agree with the code on
# the dump versions and draw with zt-flame, which zt installs.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() { stages_setup; }
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "zt-fold --focus that matches nothing says so, as zt-stat does" {
	run --separate-stderr zt-fold --focus='^no_such_function$' p.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_output ""
	[[ "$stderr" == "zt-fold: kept 0 of "*" records by --focus, --ignore and --hide: no stack matched --focus='^no_such_function\$'" ]]
	# A focus that matches says nothing.
	run --separate-stderr zt-fold --focus='^hot_a$' p.raw
	assert_success
	assert_equal "$stderr" ""
	[ -n "$output" ]
}

@test "zt-stat --focus never matches the root frame, in folded stacks as in a raw dump" {
	for f in p.raw p.folded; do
		run zt-stat --focus='^prog$' "$f"
		echo "$f: ${lines[*]:0:6}"
		assert_line --regexp '^kept: 0 of [0-9]+ samples'
	done
	a=$(zt-stat --focus='^hot_a$' p.raw | grep '^kept:')
	b=$(zt-stat --focus='^hot_a$' p.folded | grep '^kept:')
	echo "raw: $a; folded: $b"
	[ "$a" = "$b" ]
}

@test "the docs name the dump versions the readers read" {
	max=$(sed -n 's/^#define ZT_RAW_VERSION_MAX \([0-9]*\).*/\1/p' "$ZT_TOP/lib/rawfmt.h")
	echo "readers read 1 to $max"
	[ -n "$max" ]
	grep -q "versions 1 to $max\." "$ZT_TOP/README.md"
	grep -q "version 1 to $max " "$ZT_TOP/man/zt-symbolize.1"
	grep -q "version 1 to $max " "$ZT_TOP/man/zt-pprof.1"
	grep -q "^Every reader reads versions 1 to $max\.\$" "$ZT_TOP/man/zt-raw.5"
	grep -A3 '^Readers reject a dump whose first line is not' "$ZT_TOP/man/zt-raw.5" | grep -q "^\.Ql zt-prof $max\$"
}

@test "the man pages' examples draw with zt-flame, not flamegraph.pl (which no package installs)" {
	run grep -n '^\.Dl .*flamegraph\.pl' "$ZT_TOP"/man/*.1
	echo "$output"
	assert_failure 1
}

@test "zt-symbolize --lines gives every frame a source line: perf's stand-in where it has none" {
	zt-symbolize --lines p.raw > l.sym 2> /dev/null
	# After every frame line, a source line (two spaces); never the blank
	# line that ends the record, which stackcollapse-perf.pl --srcline would
	# take for one, merging the next record into the stack.
	bad=$(awk '/^\t/ { if (f) n++; f = 1; next } /^  / { f = 0; next } { if (f) n++; f = 0 }
		END { print n + 0 }' l.sym)
	echo "frame lines without a source line: $bad"
	[ "$bad" = 0 ]
	# _start (crt1.o, no line table) gets perf's "name+OFFSET", the offset in decimal.
	off=$(awk '/^\t.* _start\+0x[0-9a-f]+ / { sub(/.*_start\+0x/, ""); sub(/ .*/, ""); print; exit }' l.sym)
	echo "_start+0x$off"
	[ -n "$off" ]
	grep -qx "  _start+$((16#$off))" l.sym
	# The stream folds the same from the dump and from its text.
	diff <(zt-fold --srcline l.sym) <(zt-fold -l --srcline p.raw 2> /dev/null)
}

@test "zt-symbolize --lines: zt's pseudo-frames (a wait, [depth limit], [zt]) get perf's stand-in too, and fold bare" {
	cd "$BATS_TEST_TMPDIR"
	cat > deep.c <<-'EOF2'
	#include <pthread.h>
	#include <time.h>
	static volatile long sink;
	static void *sleeper(void *a)
	{ struct timespec ts = { 0, 200000000 }; (void)a; nanosleep(&ts, 0); return 0; }
	static __attribute__((noinline)) void down(int n)
	{ if (n) { down(n - 1); sink++; return; } for (long i = 0; i < 100000000; i++) sink += i; }
	int main(void)
	{ pthread_t t; pthread_create(&t, 0, sleeper, 0); down(40); pthread_join(t, 0); return 0; }
	EOF2
	gcc -O1 -g -pthread -o deep deep.c
	zt-collect --clock=wall --max-depth=16 -o w.raw ./deep 2> /dev/null
	zt-symbolize --lines w.raw > w.lsym
	bad=$(awk '/^\t/ { if (f) n++; f = 1; next } /^  / { f = 0; next } { if (f) n++; f = 0 }
		END { print n + 0 }' w.lsym)
	echo "frame lines without a source line: $bad"
	[ "$bad" = 0 ]
	grep -A1 -F '[depth limit] ([unknown])' w.lsym | grep -qx '  \[unknown\]\[0\]'
	grep -A1 -F '] ([off-cpu])' w.lsym | grep -qx '  \[off-cpu\]\[0\]'
	# Folded with --srcline (brackets dropped, as stackcollapse-perf.pl
	# does), the pseudo-frames keep their bare names.
	zt-fold --srcline w.lsym > w.folded
	grep -q '^deep;\[depth limit\];down:' w.folded
	run grep -E '\[(depth limit|unknown|off-cpu|zt)\]:|\]:\[' w.folded
	assert_failure 1
}

@test "a differential flame graph's title says what red and blue mean" {
	zt-diff p.folded q.folded | zt-flame > d.svg
	title=$(grep -o '<text id="title"[^>]*>[^<]*' d.svg | sed 's/.*>//')
	echo "title: $title"
	[ "$title" = "Differential Flame Graph: red grew, blue shrank (after - before); widths are after's" ]
	zt-diff p.folded q.folded | zt-flame --negate > n.svg
	grep -q '>Differential Flame Graph: blue grew, red shrank (after - before, negated); widths are after&apos;s<\|>Differential Flame Graph: blue grew, red shrank (after - before, negated); widths are after'"'"'s<' n.svg
	# A profile's own graph keeps its title, and --title wins.
	zt-flame p.folded | grep -q '<text id="title"[^>]*>Flame Graph<'
	zt-diff p.folded q.folded | zt-flame --title=T | grep -q '<text id="title"[^>]*>T<'
}

@test "a flame graph taller than the window opens at its widest part, the bottom" {
	[ -x /usr/bin/chromium ] || skip "chromium is not installed (make deps installs it)"
	node --experimental-websocket -e 'new WebSocket("ws://127.0.0.1:1").onerror = () => {}' 2> /dev/null ||
		skip "node with --experimental-websocket (Node 20.10 or later) is needed"
	# A wide base (main;work) under a thin tower of 200 frames: 3,000+ px.
	awk 'BEGIN { s = "prog;main;work"; print s ";hot 900"
		t = s; for (i = 0; i < 200; i++) t = t ";rec"; print t " 10" }' > tall.folded
	zt-flame tall.folded > tall.svg
	FLAME_WINDOW_HEIGHT=800 run node --experimental-websocket "$ZT_TOP/tests/flame-browser.js" tall.svg work '^hot$' tall.png
	assert_success
	printf '%s\n' "$output" > tall.json
	run node -e '
		const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const s = o.scroll;
		console.log("scrollY " + s.y + ", window " + s.inner + ", page " + s.height);
		// scrolled to the bottom of a page taller than the window
		if (!(s.height > s.inner && s.y > 0 && s.y + s.inner >= s.height - 1)) process.exitCode = 1;
	' tall.json
	echo "$output"
	assert_success
}
