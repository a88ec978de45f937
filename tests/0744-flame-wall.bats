#!/usr/bin/env bats
# zt-flame on a wall-clock profile: a hot/cold flame graph (frames whose
# every stack is off-CPU in a cold, blue palette; the others warm), widths
# in ns, and --clock=cpu|off views.

load helper
load wall

setup_file() {
	wall_setup
	zt-fold w.raw > w.folded 2> /dev/null
	zt-flame w.raw > w.svg 2> /dev/null
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# The fill of the frame titled "$1 (" in SVG $2: "r g b".
fill_of() {
	N=$1 awk 'index($0, "<g><title>" ENVIRON["N"] " (") == 1 {
		sub(/.*fill="rgb\(/, ""); sub(/\)".*/, ""); gsub(/,/, " "); print; exit }' "$2"
}

# Whether "r g b" is flamegraph.pl's cold palette (r = g in 80..140, b in 190..245).
cold() { set -- $1; [ "$1" = "$2" ] && [ "$1" -ge 80 ] && [ "$1" -le 140 ] && [ "$3" -ge 190 ]; }
# Whether "r g b" is its hot palette (r 205..255, b 0..55).
warm() { set -- $1; [ "$1" -ge 205 ] && [ "$3" -le 55 ]; }

# The width of "all" in SVG $1, in its title's unit.
all_of() { sed -n 's/^<g><title>all (\([0-9,]*\) .*/\1/p' "$1" | tr -d ,; }

# The ns of w.raw's sample lines that match awk regex $1.
ns_of() {
	R=$1 awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 } s && $0 ~ ENVIRON["R"] {
		for (i = 3; i <= NF; i++) if (substr($i, 1, 1) == "^") t += $2 * substr($i, 2) }
	     END { printf "%.0f\n", t }' w.raw
}

@test "off-CPU frames are cold, on-CPU ones warm: a hot/cold flame graph" {
	cold "$(fill_of '[futex]' w.svg)"
	cold "$(fill_of hot_b w.svg)"
	cold "$(fill_of waiter w.svg)"
	warm "$(fill_of hot_a w.svg)"
	# main has on-CPU time below it, and its waiting for a CPU: warm.
	warm "$(fill_of main w.svg)"
	cold "$(fill_of '[waiting for a CPU]' w.svg)"
	# Widths are ns, and the titles say so.
	grep -q '^<g><title>all ([0-9,]* ns, 100%)' w.svg
	[ "$(all_of w.svg)" = "$(ns_of .)" ]
	# The folded stacks draw the same graph.
	zt-flame w.folded | cmp - w.svg
}

@test "--clock=cpu draws the on-CPU stacks only, --clock=off the others" {
	zt-flame --clock=cpu w.raw > cpu.svg
	run grep -c -e '\[futex\]' -e 'waiting for a CPU' -e '>waiter<' cpu.svg
	assert_output 0
	[ "$(all_of cpu.svg)" = "$(ns_of '^[^!]*$')" ]
	warm "$(fill_of hot_a cpu.svg)"
	zt-flame --clock=off w.raw > off.svg
	[ "$(all_of off.svg)" = "$(ns_of '!')" ]
	cold "$(fill_of '[futex]' off.svg)"
	cold "$(fill_of main off.svg)"
	zt-flame --clock=off w.folded | cmp - off.svg
}

@test "a CPU profile is drawn as before, and --clock is refused on it" {
	zt-flame c.raw > c.svg
	grep -q '^<g><title>all ([0-9,]* samples, 100%)' c.svg
	# Its script is what it was; a wall-clock graph's reads "ns" titles too.
	grep -qF ') samples, /.exec(title)' c.svg
	run grep -c 'samples|ns' c.svg
	assert_output 0
	grep -qF ') (?:samples|ns), /.exec(title)' w.svg
	warm "$(fill_of hot_b c.svg)"
	run -1 --separate-stderr zt-flame --clock=cpu c.raw
	assert_equal "$stderr" "zt-flame: --clock=cpu needs a wall-clock profile (zt-collect --clock=wall, or folded stacks with '# zt weight: ns'); a CPU profile is on-CPU only"
	run -2 --separate-stderr zt-flame --clock=wall w.raw
	assert_equal "${stderr%%$'\n'*}" "zt-flame: --clock wants cpu or off, not 'wall'"
	zt-fold c.raw > c.folded
	run -1 --separate-stderr zt-flame c.folded w.folded
	assert_equal "$stderr" "zt-flame: 'w.folded': a wall-clock profile ('# zt weight: ns'), but the first input is not one: they cannot be drawn in one graph"
}
