#!/usr/bin/env bats
# A dump that names more modules than the symbolizer's first array holds
# (python3 with numpy maps about a hundred): made of real libraries of this
# machine, each mapped as the loader maps it, with its build-id. Every tool
# reads it, and every frame gets the name readelf gives its address.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	python3 "$ZT_TOP/tests/manymods.py" make 40 many.raw many.expect
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "zt-symbolize names every frame of 40 real libraries as readelf does" {
	run --separate-stderr zt-symbolize many.raw
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > many.sym
	run python3 "$ZT_TOP/tests/manymods.py" check many.expect many.sym
	echo "$output"
	[ "$status" -eq 0 ]
	# 40 one-frame samples and one stack through all 40.
	assert_line "frames checked: 80, wrong: 0"
}

@test "every analysis tool reads the dump of 40 real libraries" {
	for tool in zt-stat zt-fold zt-flame zt-pprof; do
		run --separate-stderr "$tool" many.raw
		echo "$tool: status $status; stderr: $stderr"
		[ "$status" -eq 0 ]
	done
	# zt-fold's stack through every library names the 40 functions.
	run zt-fold many.raw
	frames=$(printf '%s\n' "$output" | awk -F';' 'NF > 2 { print NF }')
	echo "frames of the long stack: $frames (want 41: the command, then 40)"
	[ "$frames" = 41 ]
}
