# 0301-fold-input.bats — zt-fold on zt-symbolize's stream and on its own
# inputs: several files, stdin, gzip, source lines, events, and options.
load helper
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	cat > "$T/spin.sym" <<'X'
# zt version 2
# zt hz 997
# zt timer perf-task-clock
# zt samples 4
# zt lost 0
spin 4242/4242 0.000000: 3 zt-samples:
	55d0c0a01136 hot_a+0x1d (/tmp/spin)
	55d0c0a0117b work+0x1f (/tmp/spin)
	55d0c0a011a2 main+0x20 (/tmp/spin)

spin 4242/4243 0.000000: 1 zt-samples:
	55d0c0a01150 hot_b+0x12 (/tmp/spin)
	55d0c0a01187 work+0x2b (/tmp/spin)
	55d0c0a011a2 main+0x20 (/tmp/spin)

X
}

@test "fold sums zt-symbolize records by period and prints no comment lines" {
	run --separate-stderr zt-fold "$T/spin.sym"
	assert_success
	assert_output "spin;main;work;hot_a 3
spin;main;work;hot_b 1"
	[ -z "$stderr" ]
}

@test "fold --tid puts pid and tid in the root frame" {
	run zt-fold --tid "$T/spin.sym"
	assert_success
	assert_output "spin-4242/4242;main;work;hot_a 3
spin-4242/4243;main;work;hot_b 1"
}

@test "fold reads stdin when given no file" {
	run zt-fold < "$T/spin.sym"
	assert_success
	assert_output "spin;main;work;hot_a 3
spin;main;work;hot_b 1"
}

@test "fold reads stdin for - among files and merges all inputs" {
	cp "$T/spin.sym" "$T/again.sym"
	run zt-fold "$T/spin.sym" - "$T/again.sym" < "$T/spin.sym"
	assert_success
	assert_output "spin;main;work;hot_a 9
spin;main;work;hot_b 3"
}

@test "fold reads gzip input by its magic bytes, whatever the name" {
	gzip -c "$T/spin.sym" > "$T/spin.txt"
	run zt-fold "$T/spin.txt"
	assert_success
	assert_output "spin;main;work;hot_a 3
spin;main;work;hot_b 1"
}

@test "fold reads gzip on stdin" {
	run sh -c "gzip -c '$T/spin.sym' | zt-fold"
	assert_success
	assert_output "spin;main;work;hot_a 3
spin;main;work;hot_b 1"
}

@test "fold takes a one-letter command as stackcollapse-perf.pl does (its regex wants two)" {
	printf 'p 1 1.0: 5 cycles:\n\t1 a (m)\n\n' > "$T/p.txt"
	run zt-fold "$T/p.txt"
	assert_success
	assert_output "p_1_1.0:;a 5"
}

@test "fold sorts stacks by byte order" {
	printf 'bb 1/1 0.0: 1 ev:\n\t1 z (m)\n\nBB 1/1 0.0: 1 ev:\n\t1 a (m)\n\nbb 1/1 0.0: 1 ev:\n\t1 Z (m)\n\n' > "$T/o.txt"
	run zt-fold "$T/o.txt"
	assert_success
	assert_output "BB;a 1
bb;Z 1
bb;z 1"
}

@test "fold --srcline appends each frame's source line" {
	cat > "$T/lines.sym" <<'X'
spin 1/1 0.000000: 2 zt-samples:
	1136 hot_a+0x1d (/tmp/spin)
  /src/spin.c:12
	117b work+0x1f (/tmp/spin)
  /src/spin.c:20 [inlined]
	77 [unknown] ([unknown])

X
	run zt-fold --srcline "$T/lines.sym"
	assert_success
	assert_output "spin;[unknown];work:/src/spin.c:20;hot_a:/src/spin.c:12 2"
}

@test "fold without --srcline accepts source lines and ignores them" {
	printf 'spin 1/1 0.0: 2 zt-samples:\n\t1136 hot_a+0x1d (/tmp/spin)\n  /src/spin.c:12\n\n' > "$T/l.sym"
	run --separate-stderr zt-fold "$T/l.sym"
	assert_success
	assert_output "spin;hot_a 2"
}

@test "fold keeps the first event and warns about records of others" {
	printf 'pp 1 1.0: 5 cycles:\n\t1 a (m)\n\npp 1 2.0: 7 instructions:\n\t1 b (m)\n\n' > "$T/ev.txt"
	run --separate-stderr zt-fold "$T/ev.txt"
	assert_success
	assert_output "pp;a 5"
	assert_equal "$stderr" "zt-fold: skipped 1 records of other events than 'cycles' (the first was 'instructions')"
}

@test "fold names inlined frames with _[i] and splits them" {
	printf 'pp 1 1.0: 1 ev:\n\t1 outer->inner+0x4 (m)\n\n' > "$T/in.txt"
	run zt-fold "$T/in.txt"
	assert_success
	assert_output "pp;outer;inner_[i] 1"
}

@test "fold warns about a last record with no blank line, and drops it as stackcollapse-perf.pl does" {
	printf 'pp 1 1.0: 1 ev:\n\t1 a (m)\n\npp 1 2.0: 1 ev:\n\t1 b (m)\n' > "$T/u.txt"
	run --separate-stderr zt-fold "$T/u.txt"
	assert_success
	assert_output "pp;a 1"
	assert_equal "$stderr" "zt-fold: '$T/u.txt': line 4: last record has no blank line after it; dropped, as stackcollapse-perf.pl drops it"
}

@test "fold --help prints usage to stdout and exits 0" {
	run --separate-stderr zt-fold --help
	assert_success
	assert_output --partial "usage: zt-fold"
	[ -z "$stderr" ]
}

@test "fold --version prints its version" {
	run zt-fold --version
	assert_success
	assert_output --regexp '^zt-fold \(zt\) [0-9]'
}
