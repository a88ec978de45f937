# 0400-stat-report.bats — zt-stat's header and top table on zt-symbolize's
# stream, folded stacks and real perf script output, and its --by and --json
# views.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	cat > "$T/spin.sym" <<'X'
# zt version 2
# zt hz 997
# zt timer perf-task-clock
# zt samples 400
# zt lost 0
spin 4242/4242 0.000000: 300 zt-samples:
	55d0c0a01136 hot_a+0x1d (/tmp/spin)
	55d0c0a0117b work+0x1f (/tmp/spin)
	55d0c0a011a2 main+0x20 (/tmp/spin)

spin 4242/4242 0.000000: 100 zt-samples:
	55d0c0a01150 hot_b+0x12 (/lib/libb.so)
	55d0c0a01187 work+0x2b (/tmp/spin)
	55d0c0a011a2 main+0x20 (/tmp/spin)

X
	cat > "$T/lines.sym" <<'X'
# zt hz 1000
# zt cpu-ns 5000000
# zt lost 2 buffer-full
spin 1/1 0.000000: 3 zt-samples:
	1136 hot_a+0x1d (/tmp/spin)
  /src/spin.c:12
	117b work+0x1f (/usr/lib/libw.so)
  /src/work.c:20
	11a2 main+0x20 (/tmp/spin)
  /src/spin.c:30

spin 1/2 0.000000: 2 zt-samples:
	1150 hot_b+0x12 (/tmp/spin)
  /src/spin.c:16
	117b work+0x1f (/usr/lib/libw.so)
  /src/work.c:20
	11a2 main+0x20 (/tmp/spin)
  /src/spin.c:30

X
}

@test "stat prints the header from zt's facts and a pprof-like top table" {
	run --separate-stderr zt-stat "$T/spin.sym"
	assert_success
	assert_output "samples: 400 (sampling error ±20, 5.0%)
cpu time: 0.401 s (estimated, 400 samples at 997 Hz)
timer: perf-task-clock, 997 Hz requested
lost: 0

      flat   flat%    sum%        cum    cum%  function
       300  75.00%  75.00%        300  75.00%  hot_a
       100  25.00% 100.00%        100  25.00%  hot_b
         0   0.00% 100.00%        400 100.00%  main
         0   0.00% 100.00%        400 100.00%  work"
}

@test "stat prefers the measured CPU time and shows why samples were lost" {
	run zt-stat "$T/lines.sym"
	assert_success
	assert_line --index 1 "cpu time: 0.005 s (measured)"
	assert_line --index 3 "lost: 2 buffer-full"
}

@test "stat reads folded stacks, detected by their first line" {
	zt-fold "$T/spin.sym" > "$T/spin.folded"
	run zt-stat < "$T/spin.folded"
	assert_success
	assert_output "samples: 400 (sampling error ±20, 5.0%)
cpu time: unknown (the input gives no sampling rate)
timer: unknown
lost: unknown

      flat   flat%    sum%        cum    cum%  function
       300  75.00%  75.00%        300  75.00%  hot_a
       100  25.00% 100.00%        100  25.00%  hot_b
         0   0.00% 100.00%        400 100.00%  main
         0   0.00% 100.00%        400 100.00%  spin
         0   0.00% 100.00%        400 100.00%  work"
}

@test "stat counts a recursive function once per sample in cum" {
	printf 'pp;a;b;a;b;a 2\npp;c 1\n' > "$T/rec.folded"
	run zt-stat -n 0 "$T/rec.folded"
	assert_success
	assert_line --index 5 "         2  66.67%  66.67%          2  66.67%  a"
	assert_line --index 8 "         0   0.00% 100.00%          2  66.67%  b"
}

@test "stat -n limits the rows and says how many were left out" {
	run zt-stat -n 1 "$T/spin.sym"
	assert_success
	assert_line --index 5 "       300  75.00%  75.00%        300  75.00%  hot_a"
	assert_line --index 6 "(3 more rows; -n 0 shows all)"
	assert_equal "${#lines[@]}" 7
}

@test "stat --by=module reports modules by basename" {
	run zt-stat --by=module "$T/spin.sym"
	assert_success
	assert_line --index 4 "      flat   flat%    sum%        cum    cum%  module"
	assert_line --index 5 "       300  75.00%  75.00%        400 100.00%  spin"
	assert_line --index 6 "       100  25.00% 100.00%        100  25.00%  libb.so"
	assert_equal "${#lines[@]}" 7
}

@test "stat --by=line reports source lines" {
	run zt-stat --by=line "$T/lines.sym"
	assert_success
	assert_output "samples: 5 (sampling error ±2, 44.7%)
cpu time: 0.005 s (measured)
timer: unknown, 1000 Hz requested
lost: 2 buffer-full

      flat   flat%    sum%        cum    cum%  line
         3  60.00%  60.00%          3  60.00%  /src/spin.c:12
         2  40.00% 100.00%          2  40.00%  /src/spin.c:16
         0   0.00% 100.00%          5 100.00%  /src/spin.c:30
         0   0.00% 100.00%          5 100.00%  /src/work.c:20"
}

@test "stat --by=thread reports threads by comm-pid/tid" {
	run zt-stat --by=thread "$T/lines.sym"
	assert_success
	assert_line --index 5 "         3  60.00%  60.00%          3  60.00%  spin-1/1"
	assert_line --index 6 "         2  40.00% 100.00%          2  40.00%  spin-1/2"
}

@test "stat --json gives samples and functions with self and total" {
	run zt-stat --json "$T/spin.sym"
	assert_success
	assert_output '{"samples": 400, "sampling_error": 20, "unit": "samples", "total": 400, "period": null, "not_samples": null, "kept": 400, "hz": 997, "cpu_seconds": 0.401204, "cpu_seconds_measured": false, "cpu_user_seconds": null, "cpu_system_seconds": null, "cpu_before_seconds": null, "system_sampled": null, "timer": "perf-task-clock", "lost": 0, "zt_own": 0, "by": "function", "functions": [
  {"name": "hot_a", "self": 300, "total": 300},
  {"name": "hot_b", "self": 100, "total": 100},
  {"name": "main", "self": 0, "total": 400},
  {"name": "work", "self": 0, "total": 400}
]}'
	if command -v python3 > /dev/null; then
		echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["samples"] == 400'
	fi
}

@test "stat turns perf's fixed periods into samples exactly, and says so" {
	run --separate-stderr zt-stat -n 2 "$DATA/perf-script/perf-dd-stacks-01.txt"
	assert_success
	assert_line --index 0 "samples: 10 (sampling error ±3, 31.6%), each a period of 10101010 ns"
	assert_line --index 5 "         3  30.00%  30.00%          3  30.00%  __srcu_read_unlock"
}

@test "stat merges several inputs" {
	run zt-stat "$T/spin.sym" "$T/spin.sym"
	assert_success
	assert_line --index 0 "samples: 800 (sampling error ±28, 3.5%)"
}

@test "stat reads a real dump from the POSIX fallback and says its rate is capped" {
	cd "$BATS_TEST_TMPDIR"
	zt-collect --timer=posix -o p.raw "$SAMPLES/spin" 100 > /dev/null 2>&1
	run --separate-stderr sh -c 'zt-symbolize p.raw | zt-stat'
	[ "$status" -eq 0 ]
	[[ "$output" == *"timer: posix-cpu, 997 Hz requested, rate capped (kernel-tick)"* ]]
	[[ "$output" == *" hot_a"* ]]
}
