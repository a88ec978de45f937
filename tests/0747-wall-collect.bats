#!/usr/bin/env bats
# The filters on a real wall-clock dump (zt-collect --clock=wall): what
# zt-stat, zt-fold and zt-flame show adds up to what the collector counted.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	zt-collect --clock=wall -o s.raw sleep 1 2> s.err
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "sleep 1: its off-CPU time is the collector's, and its leaf is clock_nanosleep" {
	grep -qx 'zt-prof 5' s.raw
	# "... 0.987 s off-CPU in all threads; ..."
	said=$(sed -n 's/^zt-collect: wall clock: .*, \([0-9.]*\) s off-CPU in all threads.*/\1/p' s.err)
	[ -n "$said" ]
	zt-stat --json s.raw 2> /dev/null > j.out
	off=$(sed -n 's/.*"wall": {"on_cpu_ns": [0-9]*, "off_cpu_ns": \([0-9]*\), "waiting_for_cpu_ns": \([0-9]*\),.*/\1 \2/p' j.out)
	[ -n "$off" ]
	A="$said" B="$off" awk 'BEGIN { split(ENVIRON["B"], b, " "); d = (b[1] + b[2]) / 1e9 - ENVIRON["A"]
		if (d < -0.002 || d > 0.002) { print "collector " ENVIRON["A"] " s, zt-stat " (b[1] + b[2]) / 1e9 " s"; exit 1 } }'
	# Nearly all of it off-CPU, in clock_nanosleep.
	zt-fold s.raw 2> /dev/null > s.folded
	[ "$(head -1 s.folded)" = '# zt weight: ns' ]
	awk '!/^#/ { t += $NF } /;\[clock_nanosleep\] [0-9]+$/ { c += $NF }
	     END { if (t == 0 || c < 0.9 * t) { print c " of " t; exit 1 } }' s.folded
	zt-stat s.raw 2> /dev/null | grep -Eq '^    thread [0-9]+ sleep: wall 0\.9[0-9]* s|^    thread [0-9]+ sleep: wall 1\.[0-9]* s'
	zt-flame s.raw 2> /dev/null | grep -q '<title>\[clock_nanosleep\] ([0-9,]* ns, '
}
