# 0314-many-inputs.bats — any number of inputs (issue 29, item 5): every
# tool reads its inputs one open at a time, so thousands of dumps (a fleet's,
# or -f's of a build) are read under a descriptor limit of 256, in memory
# bounded by the distinct stacks, not by the inputs; and folded inputs of
# many distinct stacks are summed stack by stack.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	zt-collect -o one.raw "$SAMPLES/spin" 10 2> /dev/null
	zt-fold one.raw > one.folded
	mkdir many
	# 3,000 names of one dump: each is opened and read as its own input.
	local i
	for ((i = 1; i <= 3000; i++)); do
		ln one.raw "many/d$i.raw"
		ln one.folded "many/f$i.folded"
	done
}
setup() { cd "$BATS_FILE_TMPDIR"; }

# "COUNT STACK" of one input's folded lines, each count times k.
times() {
	awk -v k="$1" '{ c = $NF; $NF = ""; sub(/ $/, ""); print $0 " " c * k }' "$2"
}

# Under cputime, the command's maximum resident set in KiB into $1.
maxrss() {
	local out=$1
	shift
	"$ZT_TOP/tests/cputime" "$@" > /dev/null 2> rss.err || return 1
	tail -n 1 rss.err | awk '{ print $3 }' > "$out"
}

@test "zt-fold sums folded inputs of many distinct stacks, each stack whole (before: garbage counts past the 16th)" {
	local i
	for ((i = 1; i <= 300; i++)); do echo "main;f$i $i"; done > a.folded
	cp a.folded b.folded
	run --separate-stderr zt-fold a.folded b.folded
	echo "status $status; stderr: $stderr"
	assert_success
	[ "${#lines[@]}" -eq 300 ]
	diff <(times 2 a.folded | sort) <(printf '%s\n' "${lines[@]}" | sort)
}

@test "zt-fold reads 3,000 raw dumps and 3,000 folded files under ulimit -n 256, in the memory of one" {
	local one all
	run --separate-stderr bash -c 'ulimit -n 256 && zt-fold many/d*.raw'
	echo "status $status; stderr: $stderr"
	assert_success
	diff <(times 3000 one.folded) <(printf '%s\n' "${lines[@]}")
	run --separate-stderr bash -c 'ulimit -n 256 && zt-fold many/f*.folded'
	echo "status $status; stderr: $stderr"
	assert_success
	diff <(times 3000 one.folded) <(printf '%s\n' "${lines[@]}")
	# Memory: within twice that of one input (not with AddressSanitizer,
	# whose quarantine keeps what each input freed: 24 and 120 MiB).
	! sanitized "$ZT_TOP/tools/zt-fold" || skip "zt-fold is built with a sanitizer: its memory is the sanitizer's"
	maxrss one.kib zt-fold one.raw
	maxrss all.kib bash -c 'ulimit -n 256 && exec zt-fold many/d*.raw'
	one=$(cat one.kib) all=$(cat all.kib)
	echo "maximum resident set: one input $one KiB, 3,000 inputs $all KiB"
	[ "$all" -le $((2 * one)) ]
}

@test "zt-stat, zt-flame and zt-pprof read 3,000 dumps under ulimit -n 256" {
	run --separate-stderr bash -c 'ulimit -n 256 && zt-stat many/d*.raw'
	echo "status $status; stderr: $stderr"
	assert_success
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' one.raw)
	assert_line --regexp "^samples: $((3000 * n)) "
	run --separate-stderr bash -c 'ulimit -n 256 && zt-flame many/d*.raw > many.svg'
	echo "status $status; stderr: $stderr"
	assert_success
	grep -q '<svg' many.svg
	run --separate-stderr bash -c 'ulimit -n 256 && zt-pprof -o many.pb.gz many/f*.folded'
	echo "status $status; stderr: $stderr"
	assert_success
	[ -s many.pb.gz ]
	run --separate-stderr bash -c 'ulimit -n 256 && zt-pprof -o raws.pb.gz many/d[123][0-9][0-9].raw'
	echo "status $status; stderr: $stderr"
	assert_success
	[ -s raws.pb.gz ]
}

@test "zt-stat and zt-flame read 3,000 dumps in the memory of one and a half (before: zt-flame kept each input's lines, 1.96 times)" {
	local one all t
	! sanitized "$ZT_TOP/tools/zt-flame" || skip "zt-flame is built with a sanitizer: its memory is the sanitizer's"
	for t in zt-stat zt-flame; do
		maxrss one.kib $t one.raw
		maxrss all.kib bash -c "ulimit -n 256 && exec $t many/d*.raw"
		one=$(cat one.kib) all=$(cat all.kib)
		echo "$t: maximum resident set: one input $one KiB, 3,000 inputs $all KiB"
		[ $((2 * all)) -le $((3 * one)) ] || return 1
	done
}

@test "zt-pprof merges 3,000 dumps of one program as pprof does: one mapping, location and sample each, in the memory of one (before: 23 MiB, 750 KB of output)" {
	local one all
	zt-pprof -o one.pb.gz one.raw
	run --separate-stderr bash -c 'ulimit -n 256 && zt-pprof -o all.pb.gz many/d*.raw'
	echo "status $status; stderr: $stderr"
	assert_success
	# The same tables, each sample's values times 3,000 (the duration too).
	one=$(gzip -dc one.pb.gz | wc -c) all=$(gzip -dc all.pb.gz | wc -c)
	echo "profile.proto bytes: one input $one, 3,000 inputs $all"
	[ "$all" -le $((one + 64 * 1024 / 10)) ]
	! sanitized "$ZT_TOP/tools/zt-pprof" || skip "zt-pprof is built with a sanitizer: its memory is the sanitizer's"
	maxrss one.kib zt-pprof -o one.pb.gz one.raw
	maxrss all.kib bash -c 'ulimit -n 256 && exec zt-pprof -o all.pb.gz many/d*.raw'
	one=$(cat one.kib) all=$(cat all.kib)
	echo "maximum resident set: one input $one KiB, 3,000 inputs $all KiB"
	[ "$all" -le $((2 * one)) ]
}

@test "zt-diff --report reads 1,500 runs a side under ulimit -n 256, in the memory of one a side (before: every run open at once, 290 MiB for 200)" {
	local one all n
	run --separate-stderr bash -c 'ulimit -n 256 && zt-diff --report many/d[1-9].raw many/d[1-9][0-9].raw many/d[1-9][0-9][0-9].raw many/d1[0-4][0-9][0-9].raw -- many/d1[5-9][0-9][0-9].raw many/d2[0-9][0-9][0-9].raw many/d3000.raw'
	echo "status $status; stderr: $stderr"
	assert_success
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' one.raw)
	assert_line "before: 1499 runs, $((1499 * n)) samples; after: 1501 runs, $((1501 * n)) samples"
	! sanitized "$ZT_TOP/tools/zt-diff" || skip "zt-diff is built with a sanitizer: its memory is the sanitizer's"
	maxrss one.kib zt-diff --report one.raw -- many/d1.raw
	maxrss all.kib bash -c 'ulimit -n 256 && exec zt-diff --report many/d[1-9].raw many/d[1-9][0-9].raw many/d[1-9][0-9][0-9].raw many/d1[0-4][0-9][0-9].raw -- many/d1[5-9][0-9][0-9].raw many/d2[0-9][0-9][0-9].raw many/d3000.raw'
	one=$(cat one.kib) all=$(cat all.kib)
	echo "maximum resident set: one run a side $one KiB, 3,000 runs $all KiB"
	[ "$all" -le $((2 * one)) ]
}

@test "standard input among files is read once, and kept open for its turn" {
	run --separate-stderr bash -c 'zt-fold one.raw - < one.folded'
	echo "status $status; stderr: $stderr"
	assert_success
	diff <(times 2 one.folded) <(printf '%s\n' "${lines[@]}")
}
