# 0760-stage-cached.bats — a raw dump's records reach zt-fold, zt-stat and
# zt-flame from lib/stage.c's cache of each distinct address's frames, read
# once, not from a text read again per record: the records a reader skips
# (another event first), partial stacks ([truncated] at the root), source
# lines and inlined frames still give the bytes of `zt-symbolize | tool`.
load helper
load stages
bats_require_minimum_version 1.5.0

setup_file() {
	stages_setup
	# Every sample of p.raw partial, and half of them (every other line).
	awk '/^samples/ { s = 1; print; next } s && /^[0-9]+ [0-9]+ / { $0 = $0 " -" } { print }' \
		p.raw > all.raw
	awk '/^samples/ { s = 1; print; next } s && /^[0-9]+ [0-9]+ / && n++ % 2 { $0 = $0 " -" }
	     { print }' p.raw > half.raw
}
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "records of a raw dump skipped for their event are skipped as its merged stream's: same stacks, same warning" {
	other=$DATA/perf-script/perf-dd-stacks-01.txt
	# A dump's records are one per distinct stack (zt-symbolize --merge's).
	zt-symbolize --merge p.raw > p.msym 2> /dev/null
	run --separate-stderr zt-fold "$other" p.msym
	assert_success
	want=$output wanterr=$stderr
	[[ "$wanterr" == *"skipped "*" records of other events than 'cpu-clock' (the first was 'zt-samples')"* ]]
	run --separate-stderr zt-fold "$other" p.raw
	assert_success
	assert_equal "$output" "$want"
	# Every record skipped: the input is named as one with no samples.
	assert_equal "$stderr" "${wanterr/\'p.msym\'/\'p.raw\'}"
	# And the other way round: the dump's records first, the text's skipped.
	zt-fold p.msym "$other" > want 2> wanterr
	zt-fold p.raw "$other" > got 2> goterr
	cmp want got
	cmp wanterr goterr
	grep -q "than 'zt-samples' (the first was 'cpu-clock')" goterr
}

@test "partial stacks of a raw dump end in [truncated] as in its stream, for zt-fold, zt-stat and zt-flame" {
	for d in all half; do
		zt-symbolize $d.raw 2> /dev/null > $d.sym
		grep -q '\[truncated\]' $d.sym
		for t in zt-fold "zt-fold --addrs" zt-stat "zt-stat --by=module" zt-flame; do
			$t $d.sym > want 2> /dev/null
			$t $d.raw > got 2> /dev/null
			cmp want got || { echo "$t on $d.raw differs"; return 1; }
		done
		grep -q '\[truncated\];' <(zt-fold $d.raw)
	done
}

@test "source lines and inlined frames of a raw dump come from the cache as zt-symbolize --lines writes them" {
	zt-symbolize --lines half.raw > half.lsym 2> /dev/null
	grep -q '^  .*p.c:[0-9]' half.lsym
	zt-fold --srcline half.lsym > want
	zt-fold --lines --srcline half.raw > got
	cmp want got
	zt-stat --by=line half.lsym > want
	zt-stat --lines --by=line half.raw > got
	cmp want got
}
