#!/usr/bin/env bats
# The depth limit (zt-collect --max-depth, issue 28 item 5). A stack deeper
# than the limit is cut there: its sample line ends in '+' (not '-', an
# unwinding failure), it is counted apart (the summary's truncated, zt-stat's
# "cut at the depth limit", zt-collect's note), and its root frame is
# [depth limit], not [truncated]. samples/deeprec keeps main;rec x DEPTH;spin
# on the stack while it burns 300 ms of CPU.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The samples with spin on their stack, from folded stacks on stdin (a
# frame may hold a space: "[depth limit]").
spin_samples() {
	awk '{ s = substr($0, 1, length($0) - length($NF) - 1); m = split(s, fr, ";")
	       for (i = 1; i <= m; i++) if (fr[i] == "spin") { t += $NF; break } }
	     END { print t + 0 }'
}

# Records of DUMP until it has at least 20 samples in spin (at most 4 runs:
# 300 ms of CPU is about 290 samples at 997 Hz, 75 at the kernel tick).
collect_until_spin() {
	local try got
	for try in 1 2 3 4; do
		run --separate-stderr zt-collect "$@"
		assert_success
		got=$(zt-fold "$DUMP" | spin_samples)
		[ "$got" -ge 20 ] && return 0
	done
	echo "only $got samples in spin after $try runs"
	return 1
}

@test "default limit: a 300-deep recursion's stacks are cut at 128 frames, marked '+', not as unwinding failures" {
	DUMP=deep.raw collect_until_spin -o deep.raw "$SAMPLES/deeprec" 300
	echo "$stderr"
	grep -qx 'max-depth 128' deep.raw
	# Every cut line holds exactly 128 addresses after "TID COUNT @NS", then '+'.
	awk '/^samples$/ { on = 1; next } on && /^[a-z]/ { on = 0 }
	     on && $NF == "+" { cut++; if (NF - 4 != 128) bad++ }
	     END { print cut + 0, bad + 0 }' deep.raw > marks
	read -r cut bad < marks
	truncated=$(sed -n 's/^truncated //p' deep.raw)
	partial=$(sed -n 's/^partial //p' deep.raw)
	echo "lines cut: $cut (of them not 128 frames: $bad), summary truncated $truncated partial $partial"
	[ "$bad" -eq 0 ]
	[ "$cut" -eq "$truncated" ]
	[ "$cut" -ge 20 ]
	# zt-fold: every stack through spin has the [depth limit] root, none [truncated].
	zt-fold deep.raw > folded
	spin=$(spin_samples < folded)
	cutspin=$(grep '^deeprec;\[depth limit\];' folded | spin_samples)
	failspin=$(grep '\[truncated\]' folded | spin_samples)
	echo "spin samples $spin: under [depth limit] $cutspin, under [truncated] $failspin"
	# A stack the unwinder gave up on stays rare: 1 in 271 once beside a
	# check-busy run (zt-collect's note counts them); never one of the cut.
	[ $((cutspin + failspin)) -eq "$spin" ]
	[ $((100 * failspin)) -le "$spin" ]
	# zt-symbolize ends such records in the [depth limit] frame.
	zt-symbolize deep.raw > deep.sym
	grep -q $'^\t *0 \\[depth limit\\] (\\[unknown\\])$' deep.sym
	# zt-stat's header counts them apart, as the folded roots do.
	all_cut=$(grep '^deeprec;\[depth limit\];' folded | awk '{ t += $NF } END { print t + 0 }')
	all_fail=$(grep '\[truncated\]' folded | awk '{ t += $NF } END { print t + 0 }')
	run zt-stat deep.raw
	assert_success
	assert_line "partial stacks: $all_cut cut at the depth limit (max-depth 128), $all_fail could not be unwound"
	# zt-collect's note says the same.
	[[ "$stderr" == *"were cut at the depth limit (128 frames; --max-depth); they show [depth limit] at the root"* ]]
}

@test "--max-depth=512 keeps the whole 300-deep stacks, from _start through main" {
	DUMP=deep.raw collect_until_spin --max-depth=512 -o deep.raw "$SAMPLES/deeprec" 300
	grep -qx 'max-depth 512' deep.raw
	grep -qx 'truncated 0' deep.raw
	zt-fold deep.raw > folded
	# Every stack through spin: deeprec;_start;...;main, exactly 300 rec, spin
	# (then whatever spin called: cpu_ms, clock_gettime).
	awk -v want="deeprec;_start;__libc_start_main;__libc_start_call_main;main" '
	     { s = $1; m = split(s, fr, ";"); k = 0
	       for (i = 1; i <= m; i++) if (fr[i] == "spin") { k = i; break }
	       if (!k) next
	       spin += $NF; r = 0
	       for (i = 6; i < k; i++) if (fr[i] == "rec") r++
	       if (index(s, want ";rec;") == 1 && r == 300 && k == 6 + 300) whole += $NF
	       else { bad += $NF; print "not whole: " substr(s, 1, 120) " ... rec x " r }
	     } END { print "spin " spin + 0 " whole " whole + 0 " other " bad + 0 }' folded > verdict
	cat verdict
	# None is cut at the depth limit. An unwinding failure ([truncated],
	# the dump's partial count) is 0190's and 0195's to judge: beside 4 CPU
	# hogs one stack in about 3,000 was seen to end at spin; up to 1% of
	# them (at least one) is left to those tests.
	run ! grep -q '\[depth limit\]' folded
	grep -qx 'truncated 0' deep.raw
	partial=$(sed -n 's/^partial //p' deep.raw)
	tail -1 verdict | {
		read -r _ spin _ whole _ other
		echo "spin $spin whole $whole other $other, partial in the dump $partial"
		[ "$spin" -ge 20 ] && [ "$whole" -ge $((spin - (spin + 99) / 100)) ] &&
			[ "$other" -le "$partial" ] && [ $((whole + other)) -eq "$spin" ]
	}
}

@test "--max-depth: bounds 16 and 4096 are taken, others are usage errors naming the option" {
	for v in 16 4096; do
		run --separate-stderr zt-collect --max-depth=$v -o ok.raw true
		echo "--max-depth=$v: status $status, $stderr"
		assert_success
		grep -qx "max-depth $v" ok.raw
	done
	for v in 15 4097 0 -1 abc 12x '' 99999999999999999999; do
		run --separate-stderr zt-collect --max-depth="$v" -o bad.raw true
		echo "--max-depth='$v': status $status, $stderr"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"zt-collect: --max-depth: '$v' is not a number of frames from 16 to 4096"* ]]
		[[ "$stderr" == *"usage: zt-collect"* ]]
		[ ! -e bad.raw ]
	done
}

@test "readers: '-' ends a stack the unwinder gave up on ([truncated]), '+' one cut at max-depth ([depth limit]); '+' must be last" {
	cat > marks.raw <<'EOF'
zt-prof 4
pid 7
hz 997
timer perf-task-clock
max-depth 128
unwind auto
clock monotonic
start-ns 1000
samples
7 3 @10 1000 2000 -
7 2 @20 1000 3000 +
7 1 @30 1000 4000
maps @0
threads
7 prog
summary
samples 6
lost 0
truncated 2
partial 5
end
EOF
	run zt-fold marks.raw
	assert_success
	assert_output "$(printf '%s\n' 'prog;[depth limit];[unknown];[unknown] 2' \
		'prog;[truncated];[unknown];[unknown] 3' 'prog;[unknown];[unknown] 1')"
	run zt-stat marks.raw
	assert_success
	assert_line "partial stacks: 2 cut at the depth limit (max-depth 128), 3 could not be unwound"
	# A dump written before the mark: its cut stacks end in '-' and show
	# [truncated], but its summary already counted them apart (truncated).
	sed -e 's/ +$/ -/' marks.raw > old.raw
	run zt-fold old.raw
	assert_output "$(printf '%s\n' 'prog;[truncated];[unknown];[unknown] 5' 'prog;[unknown];[unknown] 1')"
	run zt-stat old.raw
	assert_line "partial stacks: 2 cut at the depth limit (max-depth 128), 3 could not be unwound"
	sed -e 's/^7 2 @20 1000 3000 +$/7 2 @20 1000 + 3000/' marks.raw > bad.raw
	run --separate-stderr zt-fold bad.raw
	[ "$status" -eq 1 ]
	echo "$stderr"
	[[ "$stderr" == *"line 11: sample: '+' is not the last word"* ]]
}
