#!/usr/bin/env bats
# Hostile and broken inputs (issue 9): maps naming FIFOs, devices and /proc
# files; lines longer than the 1 MiB limit; NUL bytes; --sysroot escapes;
# a full or closed stdout; corrupt symbol tables; counts at the 64-bit
# limit; bytes after gzip data. Each gets a message naming the place and
# exit 1, and nothing hangs or grows without bound.

load helper

# A non-PIE spin with symbols, and a v1 dump of it written by hand from
# nm's addresses (as in 0200); dump FILE writes one naming FILE instead.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	gcc -O0 -fno-omit-frame-pointer -no-pie -o spin "$SAMPLES/spin.c"
	nm spin | awk '$3 == "hot_a" { print $1 }' > hot_a
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR/spin" .
	a=$(cat "$BATS_FILE_TMPDIR/hot_a")
}

# A v1 dump whose one mapping is spin's text, named $1.
dump() {
	printf 'zt-prof 1\nhz 997\ndropped 0\nmaps\n'
	readelf -lW spin | while read -r type off vaddr _ filesz _; do
		[ "$type" = LOAD ] || continue
		printf '%08x-%08x r-xp %08x 08:01 42   %s\n' $((vaddr & ~4095)) \
			$(((vaddr + filesz + 4095) & ~4095)) $((off & ~4095)) "$1"
	done
	printf 'samples\n%x\n' $((0x$a + 4))
}

# Patch spin's section headers with python: $1 is the change to make.
corrupt() {
	python3 - "$1" <<'EOF'
import struct, sys
what = sys.argv[1]
d = bytearray(open('spin', 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shnum, = struct.unpack_from('<H', d, 0x3c)
for i in range(shnum):
    o = shoff + i * 64
    if struct.unpack_from('<I', d, o + 4)[0] != 2:     # SHT_SYMTAB
        continue
    if what == 'entsize':
        struct.pack_into('<Q', d, o + 56, 16)
    elif what == 'link':
        struct.pack_into('<I', d, o + 40, 0)
    elif what == 'offset':
        struct.pack_into('<Q', d, o + 24, len(d) - 8)
    elif what == 'names':
        symoff, = struct.unpack_from('<Q', d, o + 24)
        size, = struct.unpack_from('<Q', d, o + 32)
        # Every function's name but hot_a's points past the string table.
        link, = struct.unpack_from('<I', d, o + 40)
        stroff, = struct.unpack_from('<Q', d, shoff + link * 64 + 24)
        for k in range(size // 24):
            s = symoff + k * 24
            name = d[stroff + struct.unpack_from('<I', d, s)[0]:].split(b'\0')[0]
            if d[s + 4] & 0xf == 2 and name != b'hot_a':
                struct.pack_into('<I', d, s, 0x7fffffff)
open('spin', 'wb').write(bytes(d))
EOF
}

@test "a maps line naming a FIFO, a device or a /proc file never blocks a tool" {
	mkfifo fifo
	for f in "$PWD/fifo" /dev/zero /dev/null /proc/self/mem /proc/self/status; do
		dump "$f" > f.raw
		run --separate-stderr timeout 20 zt-symbolize f.raw
		[ "$status" -eq 0 ]
		[ "$stderr" = "zt-symbolize: '$f': not a regular file; its frames are named [${f##*/}]" ]
		run --separate-stderr timeout 20 zt-symbolize -l f.raw
		[ "$status" -eq 0 ]
		run --separate-stderr timeout 20 zt-archive -d arch f.raw
		[ "$status" -eq 1 ]
		[ "$stderr" = "zt-archive: '$f': not a regular file; not archived" ]
	done
}

@test "a line longer than 1 MiB is refused by every filter, in bounded memory" {
	# 64 MiB of one line in 64 KiB of gzip, after a first line each format
	# accepts (today's dumps and stacks have lines of a few KB).
	long() { python3 -c 'import gzip,sys; sys.stdout.buffer.write(gzip.compress(sys.argv[1].encode() + b"a" * (64 << 20) + b" 1\n", 1))' "$1"; }
	long 'zt-prof 1
' > long.raw.gz
	long '# a comment
' > long.gz
	for t in zt-symbolize "zt-archive -d arch" zt-fold zt-stat "zt-diff long.gz" "zt-diff --report long.gz"; do
		f=long.gz
		case $t in zt-symbolize|zt-archive*) f=long.raw.gz ;; esac
		run --separate-stderr /usr/bin/time -f 'rss %M' $t $f
		[ "$status" -eq 1 ]
		[ "${stderr_lines[0]}" = "${t%% *}: '$f': line 2: longer than 1048576 bytes" ]
		rss=${stderr_lines[-1]#rss }
		[ "$rss" -lt 30000 ]
	done
	# On stdin the line alone is named, as for every other error there.
	run --separate-stderr sh -c 'zt-fold < long.gz'
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-fold: line 2: longer than 1048576 bytes" ]
}

@test "a line of exactly 1 MiB is read; one byte more is an error" {
	python3 -c 'import sys; sys.stdout.write("x;" + "a" * (1048576 - 4) + " 1\n")' > max.folded
	[ "$(head -1 max.folded | wc -c)" -eq 1048577 ]
	run --separate-stderr zt-stat max.folded
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "samples: 1 (sampling error ±1, 100.0%)" ]
	python3 -c 'import sys; sys.stdout.write("b 1\nx;" + "a" * (1048576 - 3) + " 1\n")' > over.folded
	run --separate-stderr zt-diff over.folded max.folded
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-diff: 'over.folded': line 2: longer than 1048576 bytes" ]
}

@test "a NUL byte is an error in raw dumps, perf script and folded input" {
	{ dump "$PWD/spin"; printf '%x\0\n' $((0x$a + 4)); } > nul.raw
	run --separate-stderr zt-symbolize nul.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: 'nul.raw': line $(wc -l < nul.raw): binary data, not a zt raw dump" ]
	printf 'p 1/1 0.000000: 1 cpu-clock:\n\t1 a\0b (m)\n\n' > nul.ps
	run --separate-stderr zt-fold nul.ps
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-fold: 'nul.ps': line 2: NUL byte in text (a binary file?)" ]
	printf 'a;b 1\nc\0 1\n' > nul.folded
	run --separate-stderr zt-diff nul.folded nul.folded
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-diff: 'nul.folded': line 2: NUL byte in text (a binary file?)" ]
}

@test "--sysroot keeps every lookup inside it: '..' and symbolic links too" {
	mkdir -p root/bin outside
	cp spin outside/spin
	# The same file outside the root, by '..' and by an absolute link.
	dump "/../../../../../../../..$PWD/outside/spin" > dots.raw
	run --separate-stderr zt-symbolize --sysroot=root dots.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == "zt-symbolize: 'root/../../../../../../../..$PWD/outside/spin': cannot open: No such file or directory;"* ]]
	[[ "$output" != *hot_a* ]]
	ln -s "$PWD/outside/spin" root/bin/link
	dump /bin/link > link.raw
	run --separate-stderr zt-symbolize --sysroot=root link.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == "zt-symbolize: 'root/bin/link': cannot open: No such file or directory;"* ]]
	[[ "$output" != *hot_a* ]]
	# Inside the root, links are followed as if the root were '/'.
	mkdir -p "root$PWD/outside"
	cp spin "root$PWD/outside/spin"
	run --separate-stderr zt-symbolize --sysroot=root link.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"hot_a+0x4 (/bin/link)"* ]]
	run --separate-stderr zt-symbolize --sysroot=root dots.raw
	[[ "$output" == *hot_a* ]]
}

@test "--help and --version to a full disk or a closed stdout exit 1 with a message" {
	for t in zt-symbolize zt-archive zt-fold zt-stat zt-diff zt-flame zt-pprof zt-collect; do
		for o in --help --version; do
			run --separate-stderr sh -c "$t $o > /dev/full"
			[ "$status" -eq 1 ]
			[ "$stderr" = "$t: cannot write <stdout>: No space left on device" ]
			run --separate-stderr sh -c "$t $o >&-"
			[ "$status" -eq 1 ]
			[ "$stderr" = "$t: cannot write <stdout>: Bad file descriptor" ]
		done
	done
}

@test "a corrupt .symtab gets a warning naming the file, and the valid symbols are used" {
	dump "$PWD/spin" > s.raw
	# Five samples: the no-symbol warning needs 5 as well as 1%.
	for i in 1 2 3 4; do printf '%x\n' $((0x$a + 4)) >> s.raw; done
	for what in entsize link offset; do
		cp "$BATS_FILE_TMPDIR/spin" spin
		corrupt $what
		run --separate-stderr zt-symbolize s.raw
		[ "$status" -eq 0 ]
		case $what in
		entsize) why=".symtab has entries of 16 bytes, not 24" ;;
		link) why=".symtab links to section 0, not a string table" ;;
		offset) why=".symtab lies past the end of the file" ;;
		esac
		[ "${stderr_lines[0]}" = "zt-symbolize: '$PWD/spin': corrupt symbol table: $why; only its valid symbols are used" ]
		[[ "$output" == *"# zt warning '$PWD/spin': corrupt symbol table: $why;"* ]]
		# Only .dynsym is left, which has no hot_a: the frame is named by
		# the .eh_frame function that holds it, with the warning that says so.
		[[ "$output" == *" [spin+0x$(printf %x $((0x$a)))]+0x4 ($PWD/spin)"* ]]
		[[ "$stderr" == *"'$PWD/spin': no symbol for its innermost frame in 100.0% of the samples"* ]]
	done
	cp "$BATS_FILE_TMPDIR/spin" spin
	corrupt names
	run --separate-stderr zt-symbolize s.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == "zt-symbolize: '$PWD/spin': corrupt symbol table: "*" names in .symtab lie past the end of its string table; only its valid symbols are used" ]]
	[[ "$output" == *"hot_a+0x4 ($PWD/spin)"* ]]
}

@test "counts at the 64-bit limit are overflow errors, not 'not a number'" {
	printf 'a;b 18446744073709551616\n' > over.folded
	printf 'a;b 18446744073709551615\nc 1\n' > sum.folded
	for t in zt-stat "zt-diff over.folded" "zt-diff --report over.folded"; do
		run --separate-stderr $t over.folded
		[ "$status" -eq 1 ]
		[ "$stderr" = "${t%% *}: 'over.folded': line 1: count does not fit in 64 bits" ]
	done
	for t in zt-stat "zt-diff sum.folded" "zt-diff --report sum.folded"; do
		run --separate-stderr $t sum.folded
		[ "$status" -eq 1 ]
		[ "$stderr" = "${t%% *}: 'sum.folded': line 2: total count does not fit in 64 bits" ]
	done
	printf 'p 1/1 0.000000: 18446744073709551616 cpu-clock:\n\t1 a (m)\n\n' > over.ps
	for t in zt-fold zt-stat; do
		run --separate-stderr $t over.ps
		[ "$status" -eq 1 ]
		[ "$stderr" = "$t: 'over.ps': line 1: period does not fit in 64 bits" ]
	done
	printf 'p 1/1 0.000000: 18446744073709551615 cpu-clock:\n\t1 a (m)\n\np 1/1 0.000000: 1 cpu-clock:\n\t1 a (m)\n\n' > sum.ps
	run --separate-stderr zt-fold sum.ps
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-fold: 'sum.ps': line 6: count of a stack does not fit in 64 bits" ]
}

@test "bytes after gzip data are an error; a second gzip member is read" {
	printf 'a;b 3\n' | gzip -c > one.gz
	printf 'c 1\n' | gzip -c > two.gz
	cat one.gz two.gz > both.gz
	run --separate-stderr zt-stat both.gz
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "samples: 4 (sampling error ±2, 50.0%)" ]
	# A whole input of each format, then junk.
	{ cat one.gz; echo junk; } > trail.gz
	{ printf 'p 1/1 0.000000: 1 cpu-clock:\n\t1 a (m)\n\n' | gzip -c; echo junk; } > trail.ps.gz
	{ dump "$PWD/spin" | gzip -c; echo junk; } > trail.raw.gz
	for t in zt-stat "zt-diff one.gz" zt-fold zt-symbolize; do
		f=trail.gz
		case $t in zt-fold) f=trail.ps.gz ;; zt-symbolize) f=trail.raw.gz ;; esac
		run --separate-stderr $t $f
		[ "$status" -eq 1 ]
		[[ "$stderr" == "${t%% *}: '$f': bytes after the end of the gzip data, after line "* ]]
	done
	run --separate-stderr sh -c 'zt-stat < trail.gz'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "zt-stat: <stdin>: bytes after the end of the gzip data, after line "* ]]
}

@test "corrupt gzip data is named by its file, never by zlib's internal name" {
	seq 1 20000 | sed 's/.*/a;b& 1/' | gzip -c > w.gz
	python3 -c 'import sys; d = bytearray(open("w.gz", "rb").read()); d[200] ^= 0xff; open("bad.gz", "wb").write(d)'
	for t in zt-stat zt-fold zt-symbolize; do
		run --separate-stderr $t bad.gz
		[ "$status" -eq 1 ]
		[[ "$stderr" == "$t: 'bad.gz': corrupt gzip data after line "*": "* ]]
		[[ "$stderr" != *"<fd:"* ]]
	done
}
