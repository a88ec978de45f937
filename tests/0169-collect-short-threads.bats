#!/usr/bin/env bats
# Every thread's CPU time is sampled in proportion: each thread's counter
# starts at a random point of its period, so threads shorter than a period
# get their share; a thread zt cannot sample is counted, with its CPU time,
# in the dump and on zt-collect's line. (Issue 17, item 4.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

key() { sed -n "s/^$2 //p" "$1"; }

@test "3,000 threads of 0.4 ms get their share of the samples (binomial tolerance)" {
	run --separate-stderr zt-collect -o st.raw "$SAMPLES/shortthreads" cpu
	assert_success
	assert_output "shortthreads: 3000 threads"
	read -r short main < cpu
	# Samples in the measured spins of each side, against the CPU time each
	# spin measured: the work around them (pthread_create and join in main,
	# zt's own start of each thread) is in neither.
	# Each spin's clock counts the kernel's time in it too, zt's counter
	# user time only: that is within the tolerance again since each
	# thread's first period is at least 100 us (timer.c, first_floor). At
	# the kernel's 10 us, periods shorter than the interrupt and the signal
	# take stormed: seconds of system time counted in the short threads'
	# spins (fe27574 had to allow the run's whole system share here).
	zt-fold st.raw > st.folded
	A=$short B=$main awk '
		/;short_thread;spin_for/ { o += $NF } /;main_spin;spin_for/ { m += $NF }
		END {
			a = ENVIRON["A"]; b = ENVIRON["B"]
			n = m + o; p = a / (a + b); got = o / n; sd = sqrt(p * (1 - p) / n)
			d = got - p; if (d < 0) d = -d
			printf "samples %d, short threads %d: share %.4f, CPU share %.4f, sd %.4f\n", n, o, got, p, sd
			exit !(n >= 1500 && got >= 0.25 && d <= 4 * sd + 0.02)
		}' st.folded
	# A short thread (0.4 ms of spin, a full period of 1 ms after its
	# first sample) has one sample at most: a counter that overflowed again
	# before the handler set the whole period sampled it twice (21 to 34 of
	# 1,200 sampled threads with 10 us first periods on a loaded machine;
	# 0 since on a quiet machine; up to 1% allowed for threads that a
	# loaded machine's interrupts made last a period: 6 of 1,172 beside
	# four other test runs).
	pid=$(key st.raw pid)
	PID=$pid awk '
		/^samples$/ { in_s = 1; next } /^[a-z]/ { in_s = 0 }
		in_s && $1 != ENVIRON["PID"] { c[$1]++ }
		END {
			for (t in c) { k++; if (c[t] > 1) twice++ }
			printf "short threads sampled %d, twice or more %d\n", k, twice
			exit !(k >= 500 && twice <= k / 100)
		}' st.raw
}

@test "a thread made with a raw clone is counted, with its CPU time, in the dump and on the line" {
	run --separate-stderr zt-collect -o rc.raw "$SAMPLES/rawclone" ns
	assert_success
	assert_output "rawclone: done"
	clone=$(cat ns)
	[ "$(key rc.raw unsampled-threads)" = 1 ]
	got=$(key rc.raw unsampled-cpu-ns)
	echo "clone $clone ns, unsampled $got ns"
	# Its 0.3 s, give or take what thread start-up costs.
	[ "$got" -ge $((clone * 9 / 10)) ] && [ "$got" -le $((clone * 13 / 10)) ]
	# The one cause that happened: no timer (nothing blocked zt's signal).
	re=' lost, 0\.[23][0-9][0-9] CPU-s in threads zt could not sample \(no timer\), 1 threads not sampled;'
	[[ ${stderr_lines[0]} =~ $re ]]
	re='1 threads were not sampled \(made with a raw clone.*; 0\.[23][0-9]* CPU-s in all are in no sample'
	[[ $stderr =~ $re ]]
}

@test "a program without such threads shows none on the line" {
	run --separate-stderr zt-collect -o s.raw "$SAMPLES/spin" 20
	assert_success
	[[ $stderr != *"could not sample"* ]]
	[ "$(key s.raw unsampled-threads)" = "" ]
	[ "$(key s.raw unsampled-cpu-ns)" = "" ] || [ "$(key s.raw unsampled-cpu-ns)" -lt 20000000 ]
}
