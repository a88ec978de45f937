# cpu.sh — sourced by tests/bench/offcpu-cost.sh (what a collector costs the
# profiled program; not yet in ratio.inc's form). The caller sets
# (from the top of the tree) $tmp (a scratch directory) and $cputime (tests/cputime), and defines
# samples_of NAME, which prints how many samples the run NAME just took.
#
# CPU time is user + system of the whole command (profiler included) from
# wait4's rusage. The ratios are given for the fastest run of each (best of
# ROUNDS, the usual estimate on a noisy machine) and for the medians.

# The floor library (floor.c), built into $tmp/floor.so.
build_floor() {
	cc -O2 -shared -fPIC -o "$tmp/floor.so" tests/bench/floor.c
}

# run NAME COMMAND...: one timed run; appends "cpu samples" to $tmp/NAME.
run() {
	name=$1
	shift
	"$cputime" "$@" > /dev/null 2> "$tmp/err"
	read -r user sys _ <<EOT
$(tail -n 1 "$tmp/err")
EOT
	n=$(samples_of "$name")
	echo "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.4f", u + s }') ${n:-0}" >> "$tmp/$name"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
least() { sort -n | head -n 1; }

# table NAME...: a Markdown row per run name, against the runs named bare.
table() {
	bare_min=$(cut -d' ' -f1 "$tmp/bare" | least)
	bare_med=$(cut -d' ' -f1 "$tmp/bare" | median)
	printf '\n| collector | CPU s, best | vs bare, best | CPU s, median | vs bare, median | samples per CPU-s |\n'
	printf '| --- | --- | --- | --- | --- | --- |\n'
	for name in "$@"; do
		[ -s "$tmp/$name" ] || { printf '| %s | not available | | | | |\n' "$name"; continue; }
		min=$(cut -d' ' -f1 "$tmp/$name" | least)
		med=$(cut -d' ' -f1 "$tmp/$name" | median)
		rate=$(awk '$1 > 0 { print $2 / $1 }' "$tmp/$name" | median)
		awk -v n="$name" -v a="$min" -v b="$bare_min" -v c="$med" -v d="$bare_med" -v r="$rate" 'BEGIN {
			printf "| %s | %.3f | %+.1f%% | %.3f | %+.1f%% | %s |\n", n, a, (a / b - 1) * 100,
				c, (c / d - 1) * 100, n == "bare" || n == "floor" ? "-" : sprintf("%.0f", r) }'
	done
}
