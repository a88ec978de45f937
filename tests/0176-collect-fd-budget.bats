#!/usr/bin/env bats
# zt's counters never make the program's own open() fail: at the usual soft
# limit of 1024, zt holds at most a quarter of it; threads beyond that are
# sampled by the POSIX timer (weighted by the periods each sample stands
# for) and counted. (Issue 17, item 5.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "700 threads and 400 opens at a soft limit of 1024: no open fails, the fallback is counted and said" {
	ulimit -Sn 1024
	expect=$("$SAMPLES/fdhostile" budget 700 400)
	[ "$expect" = "700 threads, 400 opens: 0 failed" ]
	run --separate-stderr zt-collect -o b.raw "$SAMPLES/fdhostile" budget 700 400
	assert_success
	assert_output "$expect"
	n=$(sed -n 's/^timer-fallback //p' b.raw)
	echo "fallback $n"
	# 1024 / 4 = 256 counters at most, the main thread's among them.
	[ "$n" -ge 444 ] && [ "$n" -le 500 ]
	[[ $stderr == *"$n threads were sampled by the POSIX timer instead of perf"* ]]
	grep -qx end b.raw
}

@test "a thread on the fallback timer is sampled in proportion: its samples weighted by their periods" {
	ulimit -Sn 16
	# 16 / 4 = 4 counters: the main thread's and three of the workers'.
	run --separate-stderr zt-collect -o w.raw "$SAMPLES/threads"
	assert_success
	# samples/threads starts its four workers' work once all exist.
	n=$(sed -n 's/^timer-fallback //p' w.raw)
	echo "timer-fallback ${n:-absent}, want 1"
	[ "$n" = 1 ]
	# Each worker prints "NAME TID CPU-SECONDS": its weighted samples per
	# CPU-second are the rate asked for, within 20%, fallback or not.
	printf '%s\n' "$output" > cpu
	awk 'FNR == NR { cpu[$2] = $3; next }
		/^samples$/ { s = 1; next } /^(maps|buildids|threads|summary|end)$/ { s = 0 }
		s && ($1 in cpu) { n[$1] += $2; if ($2 > 1) w[$1] = 1 }
		END {
			for (t in cpu) {
				r = n[t] / cpu[t]; printf "%s: %d samples, %.1f per CPU-s%s\n", t, n[t], r, w[t] ? " (weighted)" : ""
				if (r < 0.8 * 997 || r > 1.2 * 997) bad = 1
				weighted += w[t]
			}
			exit bad || weighted != 1
		}' cpu w.raw
}
