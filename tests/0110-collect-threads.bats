#!/usr/bin/env bats
# Threads: every thread sampled on its own CPU time, at the full rate, with
# its id on every sample and its name in the dump.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	zt-collect -o th.raw "$SAMPLES/threads" > th.out 2> th.err
	rusage_of th.err > cpu
	zt-symbolize th.raw > th.sym
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/th.* "$BATS_FILE_TMPDIR"/cpu .
}

@test "each of 4 threads (work 1:1:2:4) gets its CPU share of samples, within 3 points" {
	# Samples per thread id, from the records' pid/tid.
	awk '/zt-samples:$/ { split($2, id, "/"); n[id[2]] += $(NF-1); t += $(NF-1) }
		END { for (k in n) print k, n[k] / t * 100 }' th.sym | sort > sampled
	# CPU per thread id, as each thread measured itself.
	awk '{ c[$2] = $3; t += $3 } END { for (k in c) print k, c[k] / t * 100 }' th.out |
		sort > cpu_share
	cat sampled cpu_share
	[ "$(wc -l < cpu_share)" -eq 4 ]
	join cpu_share sampled | awk '{ d = $2 - $3; if (d < 0) d = -d;
		print $1, $2, $3, d; if (d > 3) bad = 1 } END { exit bad }'
}

@test "a 4-thread run's samples are within 5% of CPU time times 997 Hz" {
	total=$(awk '/zt-samples:$/ { s += $(NF-1) } END { print s }' th.sym)
	read -r user sys _ < cpu
	echo "samples $total cpu $user + $sys"
	near "$total" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print (u + s) * 997 }')" 5
}

@test "the dump names every thread and tags every sample with its thread" {
	for w in worker1 worker2 worker3 worker4; do
		tid=$(W=$w awk '$1 == ENVIRON["W"] { print $2 }' th.out)
		grep -qx "$tid $w" th.raw
		grep -q "^$w [0-9]*/$tid [0-9]*\.[0-9]*: " th.sym
		grep -qx "# zt thread $tid $w" th.sym
	done
	zt-fold --tid th.sym | grep -q '^worker4-[0-9]*/[0-9]*;.*;worker;burn '
}

@test "threads that exit before the program keep their samples and names" {
	# The workers end long before main returns; their buffers were flushed.
	for w in worker1 worker2 worker3 worker4; do
		n=$(W=$w awk '$1 == ENVIRON["W"] && /zt-samples:$/ { s += $(NF-1) } END { print s + 0 }' th.sym)
		[ "$n" -gt 50 ]
	done
}

@test "a thread already running when sampling starts is sampled too" {
	# libearly.so's constructor starts its thread before zt's constructor runs
	# (ld.so initializes the program's libraries before the preloaded one).
	cd "$BATS_TEST_TMPDIR"
	LD_DEBUG=files LD_PRELOAD="$ZT_TOP/collect/libzt-prof.so" "$SAMPLES/earlythread" 2>&1 |
		grep 'calling init' | grep -A1 libearly.so | grep -q libzt-prof.so
	run --separate-stderr zt-collect -o e.raw "$SAMPLES/earlythread"
	[ "$status" -eq 0 ]
	zt-symbolize e.raw | zt-fold > folded
	cat folded
	n=$(awk '/;early_work / { s += $NF } END { print s + 0 }' folded)
	m=$(awk '/;main_work / { s += $NF } END { print s + 0 }' folded)
	# Both threads burn CPU the whole time: about as many samples each.
	[ "$n" -gt $((m / 2)) ]
	! grep -q 'unsampled-threads' e.raw
}
