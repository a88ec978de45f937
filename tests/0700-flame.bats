# 0700-flame.bats — zt-flame: the same frames as flamegraph.pl's SVGs in
# tests/data/flamegraph (rules in its README.md), differential and icicle
# graphs, options, errors, determinism, xmllint on every SVG made here, and
# the SVG used in headless Chromium: hover, click to zoom, search, reset.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	FG=$DATA/flamegraph
}

# flame OUT ARGS...: zt-flame ARGS > OUT, which must be well-formed XML
# that names no URL but the SVG namespace.
flame() {
	local out=$1
	shift
	zt-flame "$@" > "$out" || return 1
	xmllint --noout "$out" || { echo "xmllint rejects $out" >&2; return 1; }
	if grep -o '[a-z]*://[^" ]*' "$out" | grep -vx 'http://www.w3.org/2000/svg'; then
		echo "$out names a URL" >&2
		return 1
	fi
}

compare() {
	run python3 "$ZT_TOP/tests/flamecmp.py" --fills "$1" "$2"
	assert_success
	assert_output "frames: $3 in reference, $3 in ours, $3 matched"
}

@test "flame: the same frames as flamegraph.pl on perf-funcab-cmd-01" {
	flame "$T/a.svg" "$FG/perf-funcab-cmd-01.folded"
	compare "$FG/perf-funcab-cmd-01.svg" "$T/a.svg" 6
}

@test "flame: the same frames as flamegraph.pl on perf-cycles-instructions-01" {
	flame "$T/a.svg" "$FG/perf-cycles-instructions-01.folded"
	compare "$FG/perf-cycles-instructions-01.svg" "$T/a.svg" 20
}

@test "flame: the same frames as flamegraph.pl on perf-dd-stacks-01" {
	flame "$T/a.svg" "$FG/perf-dd-stacks-01.folded"
	compare "$FG/perf-dd-stacks-01.svg" "$T/a.svg" 26
}

@test "flame: the same 1139 frames as flamegraph.pl on example.folded.gz" {
	flame "$T/a.svg" "$FG/example.folded.gz"
	gzip -dc "$FG/example.svg.gz" > "$T/ref.svg"
	compare "$T/ref.svg" "$T/a.svg" 1139
	# and the same image size
	assert_equal "$(grep -o '<svg [^>]*height="[0-9]*"' "$T/a.svg" | grep -o 'height="[0-9]*"')" \
		     "$(grep -o '<svg [^>]*height="[0-9]*"' "$T/ref.svg" | grep -o 'height="[0-9]*"')"
}

@test "flame: --icicle draws flamegraph.pl --inverted's frames" {
	flame "$T/a.svg" --icicle "$FG/example.folded.gz"
	gzip -dc "$FG/example.icicle.svg.gz" > "$T/ref.svg"
	compare "$T/ref.svg" "$T/a.svg" 1139
	grep -q '<text id="title" [^>]*>Icicle Graph</text>' "$T/a.svg"
}

@test "flame: a differential file is drawn red and blue as flamegraph.pl draws it" {
	flame "$T/a.svg" "$FG/diff.txt"
	compare "$FG/diff.svg" "$T/a.svg" 6
	grep -q '<title>a (30 samples, 48.39%; +32.26%)</title><rect [^>]*fill="rgb(255,0,0)"' "$T/a.svg"
	grep -q '<title>d (2 samples, 3.23%; -4.84%)</title><rect [^>]*fill="rgb(178,178,255)"' "$T/a.svg"
}

@test "flame: zt-diff's output gives the same differential frames, widths from the second profile" {
	zt-diff "$FG/d-before.folded" "$FG/d-after.folded" > "$T/d.txt"
	flame "$T/a.svg" "$T/d.txt"
	compare "$FG/diff.svg" "$T/a.svg" 6
	grep -q '<title>all (62 samples, 100%)</title>' "$T/a.svg"
}

@test "flame: --negate swaps red and blue and the sign of the change" {
	flame "$T/a.svg" --negate "$FG/diff.txt"
	grep -q '<title>a (30 samples, 48.39%; -32.26%)</title><rect [^>]*fill="rgb(0,0,255)"' "$T/a.svg"
	grep -q '<title>d (2 samples, 3.23%; +4.84%)</title><rect [^>]*fill="rgb(255,178,178)"' "$T/a.svg"
	# the layout is unchanged
	flame "$T/b.svg" "$FG/diff.txt"
	assert_equal "$(grep -o '<rect x=[^>]* height=' "$T/a.svg")" "$(grep -o '<rect x=[^>]* height=' "$T/b.svg")"
}

@test "flame: --title and --width" {
	flame "$T/a.svg" --title 'spin <&> "x"' --width 800 "$FG/perf-funcab-cmd-01.folded"
	grep -q '<svg [^>]*width="800" height="150"' "$T/a.svg"
	grep -q '<text id="title" x="400" y="24">spin &lt;&amp;&gt; "x"</text>' "$T/a.svg"
	grep -q '<title>all (169 samples, 100%)</title><rect x="10.0" y="101" width="780.0"' "$T/a.svg"
	grep -q '<title>func_b (88 samples, 52.07%)</title><rect x="383.8" y="37" width="406.2"' "$T/a.svg"
}

@test "flame: --minwidth in pixels and in percent leaves narrow frames out" {
	printf 'a;b 990\na;c 6\na;d 4\n' > "$T/in.folded"
	flame "$T/a.svg" "$T/in.folded"
	assert_equal "$(grep -c '<title>' "$T/a.svg")" 5
	flame "$T/b.svg" --minwidth 5 "$T/in.folded"		# d is 4.7 px wide
	assert_equal "$(grep -c '<title>' "$T/b.svg")" 4
	refute grep -q '<title>d ' "$T/b.svg"
	flame "$T/c.svg" --minwidth 1% "$T/in.folded"		# c and d are under 1%
	assert_equal "$(grep -c '<title>' "$T/c.svg")" 3
}

@test "flame: colours are hashed from the name, [module] frames in their own palette" {
	printf 'main;work;hot_a 3\nmain;[libc.so.6] 1\n' > "$T/one.folded"
	printf 'x;y;main 5\nx;[libc.so.6] 2\n' > "$T/two.folded"
	flame "$T/a.svg" "$T/one.folded"
	flame "$T/b.svg" "$T/two.folded"
	# flamegraph.pl --hash gives main rgb(247,83,46) (perf-funcab-cmd-01.svg)
	grep -q '<title>main (4 samples, 100.00%)</title><rect [^>]*fill="rgb(247,83,46)"' "$T/a.svg"
	grep -q '<title>main (5 samples, 71.43%)</title><rect [^>]*fill="rgb(247,83,46)"' "$T/b.svg"
	fill='s/.*<title>\[libc.so.6\] [^<]*<\/title><rect [^>]*fill="\(rgb([0-9,]*)\)".*/\1/p'
	a=$(sed -n "$fill" "$T/a.svg")
	b=$(sed -n "$fill" "$T/b.svg")
	[ -n "$a" ]
	assert_equal "$a" "$b"
	# aqua: red 50-110, green and blue 165-220
	[[ $a =~ ^rgb\(([0-9]+),([0-9]+),([0-9]+)\)$ ]]
	(( BASH_REMATCH[1] >= 50 && BASH_REMATCH[1] <= 110 && BASH_REMATCH[2] >= 165 && BASH_REMATCH[3] >= 165 ))
}

@test "flame: names that are not XML-safe or not UTF-8 still give valid XML" {
	printf 'a&b;<c>;"d";\303\251t\303\251;bad\377byte;ctl\001x 3\nstd::vector<int, std::allocator<int> >::push_back 1\n' > "$T/in.folded"
	flame "$T/a.svg" "$T/in.folded"
	grep -q '<title>a&amp;b (3 samples, 75.00%)</title>' "$T/a.svg"
	grep -q '<title>&lt;c&gt; (3 samples' "$T/a.svg"
	grep -q '<title>&quot;d&quot; (3 samples' "$T/a.svg"
	grep -q '<title>été (3 samples' "$T/a.svg"
	grep -q '<title>bad�byte (3 samples' "$T/a.svg"
	grep -q '<title>std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back (1 samples' "$T/a.svg"
}

@test "flame: the same input gives the same bytes, whatever the order of its lines" {
	gzip -dc "$FG/example.folded.gz" > "$T/in.folded"
	sort -r "$T/in.folded" > "$T/rev.folded"
	flame "$T/a.svg" "$T/in.folded"
	flame "$T/b.svg" "$T/in.folded"
	flame "$T/c.svg" < "$T/rev.folded"
	cmp "$T/a.svg" "$T/b.svg"
	cmp "$T/a.svg" "$T/c.svg"
}

@test "flame: several inputs are drawn as one" {
	printf 'a;b 2\n' > "$T/one.folded"
	printf 'a;c 1\na;b 1\n' > "$T/two.folded"
	flame "$T/a.svg" "$T/one.folded" "$T/two.folded"
	grep -q '<title>b (3 samples, 75.00%)</title>' "$T/a.svg"
	grep -q '<title>all (4 samples, 100%)</title>' "$T/a.svg"
}

@test "flame: a bad line stops it with the file and line, exit 1, nothing written" {
	printf 'a;b 3\na;c\n' > "$T/bad.folded"
	run -1 --separate-stderr zt-flame "$T/bad.folded"
	assert_output ""
	assert_equal "$stderr" "zt-flame: '$T/bad.folded': line 2: missing count"
	printf 'a;b 3\na;c 2.5\n' > "$T/bad.folded"
	run -1 --separate-stderr zt-flame < "$T/bad.folded"
	assert_output ""
	assert_equal "$stderr" "zt-flame: line 2: fractional count (counts are whole numbers of samples)"
}

@test "flame: differential and plain lines cannot be mixed" {
	printf 'a;b 3 4\na;c 2\n' > "$T/bad.txt"
	run -1 --separate-stderr zt-flame "$T/bad.txt"
	assert_output ""
	assert_equal "$stderr" "zt-flame: '$T/bad.txt': line 2: one count, but the first line has two (a folded line in a differential file)"
	printf 'a;b 3\na;c 2 5\n' > "$T/bad.txt"
	run -1 --separate-stderr zt-flame "$T/bad.txt"
	assert_equal "$stderr" "zt-flame: '$T/bad.txt': line 2: two counts, but the first line has one (a differential line in a folded file)"
	printf 'a;b 3 4\na;c -2 5\n' > "$T/bad.txt"
	run -1 --separate-stderr zt-flame "$T/bad.txt"
	assert_equal "$stderr" "zt-flame: '$T/bad.txt': line 2: negative count"
}

@test "flame: an empty file, and one whose counts are all 0, exit 1" {
	: > "$T/empty"
	run -1 --separate-stderr zt-flame "$T/empty"
	assert_output ""
	assert_equal "$stderr" "zt-flame: '$T/empty': empty file"
	printf 'a;b 0\n' > "$T/zero"
	run -1 --separate-stderr zt-flame "$T/zero"
	assert_output ""
	assert_equal "$stderr" "zt-flame: no samples: every count is 0"
}

@test "flame: bad usage exits 2 and prints usage" {
	run -2 --separate-stderr zt-flame --bogus "$FG/diff.txt"
	assert_output ""
	assert_equal "${stderr_lines[1]}" "usage: zt-flame [-i] [-t title] [-w width] [-m minwidth[%]] [--negate]"
	run -2 --separate-stderr zt-flame --width wide "$FG/diff.txt"
	assert_equal "${stderr_lines[0]}" "zt-flame: --width wants pixels from 100 to 1000000, not 'wide'"
	run -2 --separate-stderr zt-flame --minwidth -1 "$FG/diff.txt"
	assert_equal "${stderr_lines[0]}" "zt-flame: --minwidth wants pixels or a percentage, not '-1'"
	run -2 --separate-stderr zt-flame - -
	assert_equal "${stderr_lines[0]}" "zt-flame: stdin can be read only once"
	run -1 --separate-stderr zt-flame "$T/missing"
	assert_equal "$stderr" "zt-flame: cannot open '$T/missing': No such file or directory"
}

@test "flame: --help prints usage to stdout" {
	run zt-flame --help
	assert_success
	assert_line --index 0 "usage: zt-flame [-i] [-t title] [-w width] [-m minwidth[%]] [--negate]"
}

@test "flame: samples/spin in headless Chromium: tooltip, click to zoom, search, reset, screenshot" {
	[ -x /usr/bin/chromium ] || skip "chromium is not installed (make deps installs it)"
	node --experimental-websocket -e 'new WebSocket("ws://127.0.0.1:1").onerror = () => {}' 2> /dev/null ||
		skip "node with --experimental-websocket (Node 20.10 or later) is needed"
	zt-collect -o "$T/spin.raw" "$SAMPLES/spin" 100 2> /dev/null
	zt-symbolize "$T/spin.raw" | zt-fold > "$T/spin.folded"
	flame "$T/spin.svg" "$T/spin.folded"
	a=$(awk '$1 ~ /;hot_a$/ { print $2 }' "$T/spin.folded")
	b=$(awk '$1 ~ /;hot_b$/ { print $2 }' "$T/spin.folded")
	# A few samples may land outside hot_a and hot_b (the loader resolving
	# a symbol, the exit path): shares are of all samples.
	n=$(awk '{ n += $NF } END { print n }' "$T/spin.folded")
	[ -n "$a" ] && [ -n "$b" ] && [ -n "$n" ]
	run node --experimental-websocket "$ZT_TOP/tests/flame-browser.js" "$T/spin.svg" hot_a '^hot_b$' "$T/spin.png"
	assert_success
	echo "$output" > "$T/out.json"
	run node -e '
		const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const [a, b, n] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4])];
		const fail = (m) => { console.log("FAIL " + m); process.exitCode = 1; };
		const pct = (k) => (100 * k / n).toFixed(2);
		const close = (x, y) => Math.abs(x - y) < 0.05;
		// the tooltip: the title, and the details line on hover
		const title = "hot_a (" + a.toLocaleString("en-US") + " samples, " + pct(a) + "%)";
		if (o.details !== title) fail("details " + o.details + ", not " + title);
		// (the width is the difference of the ends rounded to 0.1 px, as in
		// flamegraph.pl: within 0.1 px of the exact width when other frames,
		// such as a sample in the loader, come before hot_a)
		if (Math.abs(o.before.width - 1180 * a / n) > 0.1 + 1e-9) fail("width before " + o.before.width);
		// after the click: hot_a fills the width, hot_b is hidden, its callers faded
		if (!close(o.after.x, 10) || !close(o.after.width, 1180)) fail("zoomed box " + JSON.stringify(o.after));
		if (o.after.cls.includes("hide")) fail("hot_a hidden");
		const hb = o.zoomed.find((f) => f.title.startsWith("hot_b "));
		if (!hb || !hb.cls.includes("hide")) fail("hot_b not hidden");
		// (frames below hot_a that are not its callers, such as a sample in
		// the loader beside work, are hidden like hot_b)
		const callers = o.zoomed.filter((f) => f.y > o.after.y && !f.cls.includes("hide"));
		if (callers.length < 3 || !callers.every((f) => f.cls.includes("parent") && close(f.width, 1180)))
			fail("callers " + JSON.stringify(callers));
		if (o.unzoomHidden) fail("no Reset Zoom button");
		// search: hot_b highlighted, its share reported
		const m = "Matched: " + (100 * b / n).toFixed(1) + "% (" + b + " of " + n + " samples)";
		if (o.matched !== m) fail("matched " + o.matched + ", not " + m);
		if (o.highlighted !== 1) fail("highlighted " + o.highlighted);
		// reset: back to the first layout
		if (!close(o.reset.width, o.before.width) || !close(o.reset.x, o.before.x)) fail("reset " + JSON.stringify(o.reset));
		if (!o.unzoomHiddenAfterReset) fail("Reset Zoom still shown");
		console.log("ok");
	' "$T/out.json" "$a" "$b" "$n"
	assert_output "ok"
	run python3 "$ZT_TOP/tests/pngcheck.py" "$T/spin.png" 5 3
	assert_success
}
