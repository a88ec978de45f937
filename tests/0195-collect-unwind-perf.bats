#!/usr/bin/env bats
# zt's CFI unwinder against perf --call-graph dwarf on Debian's own binaries,
# built without frame pointers: Debian's python3 running a pure-Python loop
# and `xz -9 -T1` compressing 2 MB of generated text. The same command runs
# under each tool (about 2 CPU-seconds, 997 Hz, user space only: perf with
# `-e cpu-clock --all-user` and its default 8 KB stack copy), and
# tests/unwindcmp.py checks that
#   - the share of samples whose stack reaches the program's entry (root frame
#     `_start`, found by the executable's ELF entry point since xz's has no
#     name, or glibc's clone3 in a thread) is at least perf's less 0.2
#     points: perf's own share varied by that much between unchanged runs
#     (python3: 99.83% to 100%, its 8 KB stack copy cutting deep stacks of
#     Python's startup), and zt loses a sample now and then in ld.so's lazy
#     binding trampoline _dl_runtime_resolve_xsavec, whose CFA is rbx+32,
#     which zt's unwinder does not follow and perf's does (zt: 99.94% and
#     99.95% in 2 of 6 runs, perf 99.94% and 100% in those);
#   - the total share (samples whose stack holds the function at least once)
#     of each of perf's ten largest functions, and of zt's, is within 3
#     points of the other tool's.
# Functions are matched by address (object and .eh_frame FDE start), not by
# name: unwindcmp.py's header says why and how. Both tools' numbers go to
# the TAP diagnostics of every run. Skipped only when perf is not installed
# (`make deps` installs linux-perf); a perf that is installed but fails makes
# the tests fail.

load helper

setup_file() {
	command -v perf > /dev/null ||
		skip "perf is not installed (make deps installs linux-perf): cannot compare with perf --call-graph dwarf"
	cd "$BATS_FILE_TMPDIR"
	/usr/bin/python3 "$SAMPLES/text.py" input
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# profile_both NAME COMMAND...: run COMMAND under zt-collect (default
# unwinder, or ZT_UNWIND_ARG) and under perf --call-graph dwarf, into
# NAME.raw/NAME.sym and NAME.data/NAME.perf.
profile_both() {
	local name=$1
	shift
	zt-collect ${ZT_UNWIND_ARG:-} -o "$name.raw" "$@" > /dev/null
	zt-symbolize "$name.raw" > "$name.sym"
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf \
		-o "$name.data" "$@" > /dev/null
	perf script -i "$name.data" --no-inline -F comm,tid,time,event,ip,sym,dso \
		> "$name.perf" 2> "$name.perf-err" || { cat "$name.perf-err"; return 1; }
}

# compare NAME [OPTIONS]: unwindcmp.py on NAME's two profiles; its table goes
# to the TAP diagnostics.
compare() {
	local name=$1
	shift
	run --separate-stderr /usr/bin/python3 "$ZT_TOP/tests/unwindcmp.py" compare "$@" \
		"perf:$name.perf" "zt:$name.sym:$name.raw"
	printf '# %s\n' "$name:" "${stderr_lines[@]}" >&3
}

@test "python3 loop: zt reaches the entry as often as perf dwarf, top-10 total shares within 3 points" {
	profile_both py /usr/bin/python3 "$SAMPLES/loop.py" 12000
	# Slack of 0.1 points (1 sample in 1,000): on a loaded machine one
	# sample of 1,300 in Python's exit handlers was seen ending at
	# __run_exit_handlers (not reproduced in 10 quiet runs; not diagnosed).
	compare py --slack 0.1
	[ "$status" -eq 0 ]
}

@test "xz -9 -T1: zt reaches the entry as often as perf dwarf, top-10 total shares within 3 points" {
	profile_both xz /usr/bin/xz -9 -T1 -c "$BATS_FILE_TMPDIR/input"
	compare xz --slack 0
	[ "$status" -eq 0 ]
}

@test "the comparison fails on zt's frame-pointer stacks of python3 (it can fail)" {
	ZT_UNWIND_ARG=--unwind=fp profile_both pyfp /usr/bin/python3 "$SAMPLES/loop.py" 2000
	compare pyfp --slack 0.2
	[ "$status" -eq 1 ]
	[[ $stderr == *"FAIL: zt's stacks reach the entry in 0.00% of samples"*"(slack 0.2)"* ]]
}
