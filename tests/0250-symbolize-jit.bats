#!/usr/bin/env bats
# Code that moves: JIT code in anonymous executable memory, named from the
# program's /tmp/perf-PID.map as perf names it, never from a file mapped at
# its address later (formats/raw.md, "Maps snapshots" and "perfmap").

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	for f in *.raw; do
		[ -f "$f" ] || continue
		pid=$(sed -n 's/^pid //p' "$f" | head -n 1)
		[ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"
	done
	true
}

# Leaf self-shares from folded stacks: "LEAF PERCENT" lines.
leaf_shares() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n; t += n }
	     END { for (l in s) printf "%s %.2f\n", l, 100 * s[l] / t }' | sort
}

# The frame lines of symbolized stream $2 in the page at hex address $1.
in_code() {
	grep -E "^	 *${1%???}[0-9a-f]{3} " "$2"
}

# The share of jit_hot_a among the samples in either JIT function.
jit_share() {
	awk '{ n = $NF } /;jit_hot_a / { a += n } /;jit_hot_b / { b += n }
	     END { if (a + b == 0) print "none"; else printf "%.3f\n", a / (a + b) }'
}

@test "JIT code is named from the program's perf map, as perf names it" {
	run --separate-stderr zt-collect -o j.raw "$SAMPLES/jitter"
	[ "$status" -eq 0 ]
	code=$(echo "$output" | sed -n 's/^code //p')
	want=$(echo "$output" | sed -n 's/^jit_hot_a //p')
	pid=$(sed -n 's/^pid //p' j.raw)
	# The perf map is in the dump: it may be gone when the dump is read.
	sed -n '/^perfmap$/,/^buildids$/p' j.raw | grep -qx "$code 9 jit_hot_a"
	[ "$(sed -n 's/^perfmap-lines //p' j.raw)" -eq 2 ]
	rm "/tmp/perf-$pid.map"
	zt-symbolize j.raw > j.sym
	grep -Eq "^	 *${code%???}[0-9a-f]{3} jit_hot_a\\+0x[0-9a-f]+ \\(/tmp/perf-$pid\\.map\\)$" j.sym
	got=$(zt-fold j.sym | jit_share)
	echo "jit_hot_a: program $want, zt $got"
	awk -v w="$want" -v g="$got" 'BEGIN { d = w - g; exit !(d < 0.05 && d > -0.05) }'
	# No JIT sample takes a name from the file mapped at the code's
	# address after it was unmapped: every frame in the code's page is
	# one of the JIT functions.
	in_code "$code" j.sym > frames
	[ -s frames ]
	[ "$(grep -cv ' jit_hot_[ab]+0x' frames)" -eq 0 ]
	# zt-fold --jit marks them as stackcollapse-perf.pl --jit does.
	zt-fold --jit j.sym | grep -q ';jit_hot_a_\[j\] '
	[ "$(zt-fold j.sym | grep -c '_\[j\]')" -eq 0 ]
}

@test "JIT code mapped by raw system calls: the handler notices it, and the file mapped later lends it no name" {
	run --separate-stderr zt-collect -o r.raw "$SAMPLES/jitter" raw
	[ "$status" -eq 0 ]
	code=$(echo "$output" | sed -n 's/^code //p')
	want=$(echo "$output" | sed -n 's/^jit_hot_a //p')
	zt-symbolize r.raw > r.sym
	got=$(zt-fold r.sym | jit_share)
	echo "jit_hot_a: program $want, zt $got"
	[ "$got" != none ]
	awk -v w="$want" -v g="$got" 'BEGIN { d = w - g; exit !(d < 0.05 && d > -0.05) }'
	in_code "$code" r.sym > frames
	[ -s frames ]
	[ "$(grep -cv ' jit_hot_[ab]+0x' frames)" -eq 0 ]
	# The snapshot the handler asked for shows the code as anonymous memory.
	grep -Eq "^$code-[0-9a-f]+ rwxp 00000000 00:00 0 *$" r.raw
}

@test "zt's names for JIT code agree with perf's on the same program" {
	perf record -F 997 -g -o j.data "$SAMPLES/jitter" 24 > perf.out 2> perf.err ||
		skip "perf record does not work here: $(tail -n 1 perf.err)"
	pid=$(perf script -i j.data -F pid 2> /dev/null | head -n 1 | tr -d ' ')
	# Samples whose leaf each JIT function is, from perf's records (the
	# first frame line after each header), and from zt's folded stacks.
	perf script -i j.data 2> /dev/null |
		awk '/cpu-clock/ { h = 1; next } h && /jit_hot_a\+/ { a++ } h && /jit_hot_b\+/ { b++ } { h = 0 }
		     END { print a + 0, b + 0 }' > perf.ab
	rm -f "/tmp/perf-$pid.map"
	zt-collect -o j.raw "$SAMPLES/jitter" 24 > /dev/null 2>&1
	zt-symbolize j.raw | zt-fold |
		awk '{ n = $NF } /;jit_hot_a / { a += n } /;jit_hot_b / { b += n } END { print a + 0, b + 0 }' > zt.ab
	cat perf.ab zt.ab
	# jit_hot_a's share of the JIT samples: within 3 points, or within four
	# standard deviations of the difference of two such samples when the
	# counts are too small for 3 points to be that.
	read -r pa pb < perf.ab
	read -r za zb < zt.ab
	[ "$((pa + pb))" -gt 100 ]
	[ "$((za + zb))" -gt 100 ]
	awk -v pa="$pa" -v pb="$pb" -v za="$za" -v zb="$zb" 'BEGIN {
		p = pa / (pa + pb); z = za / (za + zb); q = (pa + za) / (pa + pb + za + zb)
		tol = 4 * sqrt(q * (1 - q) * (1 / (pa + pb) + 1 / (za + zb)))
		if (tol < 0.03) tol = 0.03
		printf "perf %.3f zt %.3f tolerance %.3f\n", p, z, tol
		exit !(p - z < tol && z - p < tol) }'
}

@test "a hostile perf map cannot forge the dump: lines checked, names escaped, bad lines counted" {
	cat > hostile.py <<'PY'
import os
p = "/tmp/perf-%d.map" % os.getpid()
with open(p, "wb") as f:
    f.write(b"1000 10 good_one\n")
    f.write(b"end\n")
    f.write(b"samples\n")
    f.write(b"zzzz 10 bad_start\n")
    f.write(b"2000 0 zero_size\n")
    f.write(b"3000 10 esc\x1b[2Jape\r\n")
    f.write(b"4000 10 " + b"x" * 5000 + b"\n")
    f.write(b"5000 10 \\012not a newline\n")
    f.write(b"6000 10 no_newline_at_the_end")
s = 0
for i in range(3000000):
    s += i
PY
	run --separate-stderr zt-collect -o h.raw python3 hostile.py
	[ "$status" -eq 0 ]
	sed -n '/^perfmap$/,/^buildids$/p' h.raw > section
	cat section
	[ "$(sed -n 's/^perfmap-lines //p' h.raw)" -eq 3 ]
	[ "$(sed -n 's/^perfmap-skipped //p' h.raw)" -eq 6 ]
	grep -qx '1000 10 good_one' section
	grep -qx '3000 10 esc\\033\[2Jape' section
	grep -qx '5000 10 \\134012not a newline' section
	# Every line of the section has the one shape; the dump reads whole.
	[ "$(sed '1d;$d' section | grep -cvE '^[0-9a-f]+ [0-9a-f]+ [^ ]')" -eq 0 ]
	zt-symbolize h.raw > /dev/null
}

@test "a perf map that is a symbolic link is not read" {
	cat > link.py <<'PY'
import os
os.symlink("/etc/passwd", "/tmp/perf-%d.map" % os.getpid())
s = 0
for i in range(1000000):
    s += i
PY
	run --separate-stderr zt-collect -o l.raw python3 link.py
	[ "$status" -eq 0 ]
	pid=$(sed -n 's/^pid //p' l.raw)
	rm -f "/tmp/perf-$pid.map"
	[ "$(grep -cx perfmap l.raw)" -eq 0 ]
	grep -qx 'perfmap-refused 1' l.raw
}

@test "a bad perfmap line in a dump names its line" {
	printf 'zt-prof 4\nperfmap\n1000 0 x\nend\n' > z.raw
	run --separate-stderr zt-symbolize z.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: 'z.raw': line 3: perfmap: bad size" ]
	printf 'zt-prof 4\nperfmap\n1000 10\nend\n' > n.raw
	run --separate-stderr zt-symbolize n.raw
	[ "$stderr" = "zt-symbolize: 'n.raw': line 3: perfmap: no name" ]
	# Version 3 has no perfmap section.
	printf 'zt-prof 3\nsamples\nperfmap\nend\n' > v3.raw
	run --separate-stderr zt-symbolize v3.raw
	[ "$status" -eq 1 ]
}
