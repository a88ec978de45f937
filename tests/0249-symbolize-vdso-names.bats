#!/usr/bin/env bats
# The vDSO's frames are named as perf names them: the dump carries the
# vDSO's image (formats/raw.md, "The vDSO") and zt-symbolize names its
# frames from it. A dump without it (older collectors) still reads, its
# frames "[vdso]"; a corrupt one warns, naming its line, and changes nothing
# else. How many vDSO frames a call takes is the kernel's business (one with
# the tsc clocksource, two with kvm-clock): no test counts them.

load helper

# The section's lines, in hex, of dump $1: its "ADDR SIZE" line, then bytes.
section() {
	awk '$0 == "vdso" { s = 1; next } s && $0 == "samples" { exit } s' "$1"
}

# The dump's vDSO image, as a file $2, from dump $1.
image() {
	section "$1" | sed 1d | perl -ne 'chomp; print pack("H*", $_)' > "$2"
}

# The names of the vDSO's functions, one per line, from its image $1
# (readelf's .dynsym, without symbol versions).
dynsym() {
	readelf -W --dyn-syms "$1" | awk '$4 == "FUNC" && $7 != "UND" { n = $8; sub(/@.*/, "", n); print n }' |
		sort -u
}

# From zt-symbolize's output $1: "RECORDS GOOD BADNAME" over the records
# with a vDSO frame (module [vdso]): GOOD ones have their vDSO frames at
# the leaf, at least one of them named from the names in $NAMES (the rest
# [vdso]), then libc's clock_gettime, read_clock and main. BADNAME counts
# vDSO frames named with a name not in $NAMES.
check_stacks() {
	awk 'BEGIN { n = split(ENVIRON["NAMES"], a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
	function field(line, what,   s) {
		s = line
		if (what == "mod") { sub(/^.* \(/, "", s); sub(/\)$/, "", s); return s }
		sub(/^\t *[0-9a-f]+ /, "", s); sub(/ \(.*$/, "", s); sub(/\+0x[0-9a-f]+$/, "", s)
		return s
	}
	function check(   i, v, named, stray) {
		v = 0; named = 0; stray = 0
		for (i = 1; i <= k && field(f[i], "mod") == "[vdso]"; i++) {
			v++
			if (field(f[i], "name") == "[vdso]")
				continue
			if (field(f[i], "name") in ok)
				named++
			else
				badname++
		}
		for (; i <= k; i++)
			if (field(f[i], "mod") == "[vdso]")
				stray++
		if (!v && !stray)
			return
		recs++
		if (v && !stray && named && k >= v + 3 && field(f[v + 1], "name") ~ /clock_gettime/ &&
		    field(f[v + 2], "name") == "read_clock" && field(f[v + 3], "name") == "main")
			good++
	}
	/^\t/ { f[++k] = $0; next }
	{ if (k) check(); k = 0 }
	END { if (k) check(); print recs + 0, good + 0, badname + 0 }' "$1"
}

# The vDSO frames of zt-symbolize's output $1, as "NAME" lines, sorted.
vdso_names() {
	awk '/ \(\[vdso\]\)$/ { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); print n }' "$1" | sort -u
}

# The program that reads the clock through the vDSO, profiled until 20
# samples have a vDSO frame (at most 4 runs, each twice the last): v.raw.
profile_clock() {
	local rounds=40 try
	for try in 1 2 3 4; do
		zt-collect -o v.raw "$SAMPLES/vdso" clock "$rounds" > v.out 2> v.err
		zt-symbolize v.raw > v.sym
		n=$(grep -c ' (\[vdso\])$' v.sym || true)
		echo "run $try: $rounds rounds, $n vDSO frames"
		[ "$n" -ge 20 ] && return 0
		rounds=$((rounds * 2))
	done
	return 1
}

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	if ! LD_SHOW_AUXV=1 /bin/true | grep -q '^AT_SYSINFO_EHDR:'; then
		touch novdso
		return 0
	fi
	profile_clock > profile.log
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	if [ -e novdso ]; then
		skip "this process has no vDSO (AT_SYSINFO_EHDR is absent)"
	fi
}

@test "the dump carries the vDSO's image: the ELF object mapped at [vdso], before the samples" {
	cat profile.log
	section v.raw | head -1 > first
	read -r addr size < first
	echo "vdso section: address $addr size $size"
	# The [vdso] mapping of the final maps starts where the image was.
	grep -E "^0*$addr-[0-9a-f]+ r-xp .* \[vdso\]\$" v.raw
	image v.raw img
	[ "$(stat -c %s img)" -eq "$((0x$size))" ]
	readelf -h img | grep -E 'Type: +DYN'
	# Its build-id is the one the dump lists for linux-vdso.so.1.
	id=$(readelf -n img | awk '/Build ID:/ { print $3 }')
	echo "image build-id $id"
	grep -E "^0*$addr( @[0-9]+)? $id linux-vdso" v.raw
	# Written before the samples (zt-collect finishes a killed process's
	# dump from that part of the file).
	awk '$0 == "vdso" { v = NR } $0 == "samples" { s = NR } END { exit !(v && v < s) }' v.raw
}

@test "vDSO frames are named from its .dynsym, as perf names them, and their stacks reach main" {
	image v.raw img
	dynsym img > names
	cat names
	NAMES=$(tr '\n' ' ' < names) check_stacks v.sym > res
	read -r recs good badname < res
	echo "records with a vDSO frame $recs, reaching main with a named vDSO frame $good, names not in .dynsym $badname"
	[ "$recs" -ge 20 ]
	[ "$good" -eq "$recs" ]
	[ "$badname" -eq 0 ]
	vdso_names v.sym > zt.names
	echo "zt names: $(tr '\n' ' ' < zt.names)"
	grep -vx '\[vdso\]' zt.names
	# perf's names for the same functions (perf copies the image out of the
	# process): every name zt gives is one perf gives, where perf can record.
	if perf record -q -e cpu-clock:u -g -o perf.data "$SAMPLES/vdso" clock 60 > /dev/null 2> perf.err &&
	   perf script -i perf.data 2> /dev/null > perf.txt; then
		awk '/ \(\[vdso\]\)$/ && $2 != "[unknown]" { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); print n }' \
			perf.txt | sort -u > perf.names
		echo "perf names: $(tr '\n' ' ' < perf.names)"
		if [ -s perf.names ]; then
			comm -23 zt.names perf.names | grep -vx '\[vdso\]' > extra || true
			echo "named by zt, not by perf: $(cat extra)"
			[ ! -s extra ]
		fi
	else
		echo "perf record cannot run here: $(cat perf.err)"
	fi
}

@test "zt-symbolize --lines keeps [vdso] as the vDSO frames' module" {
	zt-symbolize --lines v.raw > lines.sym
	a=$(grep -c ' (\[vdso\])$' v.sym)
	b=$(grep -c ' (\[vdso\])$' lines.sym)
	echo "vDSO frames: $a plain, $b with --lines"
	[ "$a" -eq "$b" ]
	[ "$(vdso_names v.sym)" = "$(vdso_names lines.sym)" ]
	grep -vx '\[vdso\]' <(vdso_names lines.sym)
}

@test "zt-pprof: the vDSO's mapping is [vdso], its functions named" {
	if ! command -v go > /dev/null; then
		skip "go tool pprof is missing: golang-go is not installed (make deps installs it)"
	fi
	export HOME=$BATS_TEST_TMPDIR PPROF_TMPDIR=$BATS_TEST_TMPDIR
	zt-pprof -o v.pb.gz v.raw
	go tool pprof -raw v.pb.gz > pp.raw 2> pp.err || { cat pp.err; false; }
	image v.raw img
	read -r addr size < <(section v.raw | head -1)
	# Mappings: "ID: 0xSTART/0xEND/0xOFF [vdso] ..."
	grep -E "^ *[0-9]+: 0x0*$addr/0x[0-9a-f]+/0x0+ \[vdso\]" pp.raw
	name=$(grep -vx '\[vdso\]' <(vdso_names v.sym) | head -1)
	echo "a vDSO function: $name"
	grep -E " $name( |\$)" pp.raw
}

@test "a dump without the vdso section (older collectors) reads as before: its frames are [vdso]" {
	awk '$0 == "vdso" { s = 1; next } s && $0 == "samples" { s = 0 } !s' v.raw > old.raw
	none_left=$(grep -cx vdso old.raw || true)
	[ "$none_left" -eq 0 ]
	zt-symbolize old.raw > old.sym 2> old.err
	cat old.err
	none_said=$(grep -c vdso old.err || true)
	[ "$none_said" -eq 0 ]
	vdso_names old.sym > old.names
	echo "names: $(cat old.names)"
	[ "$(cat old.names)" = "[vdso]" ]
	# Everything else is the same: the names are all that the section adds.
	echo "with the section: $(vdso_names v.sym | tr '\n' ' ')"
	grep -vx '\[vdso\]' <(vdso_names v.sym)
	sed -E 's/ [^ ]+ \(\[vdso\]\)$/ [vdso] ([vdso])/' v.sym | grep -v '^#' > want
	grep -v '^#' old.sym > got
	diff want got
}

# corrupt SEDSCRIPT WANT: v.raw edited by sed into bad.raw reads, exit 0,
# with the warning WANT (a glob: brackets escaped), and names as a dump
# without the section.
corrupt() {
	sed "$1" v.raw > bad.raw
	zt-symbolize bad.raw > bad.out 2> bad.err || { echo "sed '$1': exit $?"; return 1; }
	echo "sed '$1':"
	cat bad.err
	[[ "$(cat bad.err)" == $2 ]]
	grep -v '^#' bad.out > bad.sym
	sed -E 's/ [^ ]+ \(\[vdso\]\)$/ [vdso] ([vdso])/' v.sym | grep -v '^#' > want
	diff want bad.sym
}

@test "a corrupt vdso section is a warning naming its line; the vDSO's frames stay [vdso]" {
	L=$(grep -nx vdso v.raw | cut -d: -f1)
	last=$(($(grep -nx samples v.raw | cut -d: -f1) - 1))
	echo "section at line $L, its last line $last"
	corrupt "$((L + 4))s/^./z/" \
		"*zt-symbolize: 'bad.raw': line $((L + 4)): vdso: bad hex byte 'z?'; the vDSO's frames stay \\[vdso\\]*"
	corrupt "$((L + 3))s/.\$//" \
		"*zt-symbolize: 'bad.raw': line $((L + 3)): vdso: an odd number of hex digits;*"
	corrupt "${last}d" \
		"*zt-symbolize: 'bad.raw': line $L: vdso: cut short: * of its * bytes; the vDSO's frames stay \\[vdso\\]*"
	corrupt "$((L + 1))s/ .*/ 0/" \
		"*zt-symbolize: 'bad.raw': line $((L + 1)): vdso: size 0 is not 1 to 0x100000 bytes;*"
	corrupt "$((L + 1))s/ / x/" \
		"*zt-symbolize: 'bad.raw': line $((L + 1)): vdso: bad first line*"
	# A whole section whose bytes are no ELF object: named when it is read.
	corrupt "$((L + 2))s/^7f454c46/00000000/" \
		"*zt-symbolize: 'bad.raw': line $L: vdso: the vDSO's image: *; its frames stay \\[vdso\\]*"
	# Two sections: neither is trusted.
	sed -n "$L,${last}p" v.raw > sec
	sed "${last}r sec" v.raw > two.raw
	run --separate-stderr zt-symbolize two.raw
	printf '%s\n' "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"line $((last + 1)): vdso: a second section (a dump has one)"* ]]
}
