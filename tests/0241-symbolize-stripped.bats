#!/usr/bin/env bats
# Stripped code still splits by function (zt-symbolize(1), formats/symbolized.md):
# an address no symbol names is named by the start of the .eh_frame FDE that
# holds it, [basename+0xSTART] in the file's link-time addresses, and a file
# that no symbol names for 1% or more of the samples gets one warning that
# says the share and where names would come from. The oracle for the FDEs is
# readelf --debug-dump=frames.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > p.c <<'C'
#include <stdlib.h>
static __attribute__((noinline)) long inner(long n)
{ long s = 0; for (long i = 0; i < n; i++) s = s * 7 + i; return s; }
static __attribute__((noinline)) long outer(long n) { return inner(n) + 1; }
int main(int argc, char **argv) { return outer(argc > 1 ? atol(argv[1]) : 150000000) == 42; }
C
	gcc -O1 -o full p.c
	strip -o p full
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# fde_ranges FILE: "START END" of every FDE, hex without 0x, as readelf lists them.
fde_ranges() {
	readelf --debug-dump=frames "$1" |
		sed -n 's/.* FDE .* pc=0*\([0-9a-f][0-9a-f]*\)\.\.0*\([0-9a-f][0-9a-f]*\)$/\1 \2/p'
}

# check_fdes BASENAME FILE SYM: every frame of FILE in SYM that no symbol
# names is named [BASENAME+0xSTART]+0xOFF with START..START+OFF inside one of
# readelf's FDEs that starts at START; prints the distinct names.
check_fdes() {
	local base=$1 file=$2 sym=$3 s e name off
	declare -A end
	while read -r s e; do end[$s]=$e; done < <(fde_ranges "$file")
	grep "($file)\$" "$sym" | sed 's/^\t *[0-9a-f]* //; s/ (.*$//' | grep '^\[' | sort -u > frames
	while read -r name; do
		[[ $name =~ ^\[$base\+0x([0-9a-f]+)\]\+0x([0-9a-f]+)$ ]] ||
			{ echo "not an FDE name: $name"; return 1; }
		s=${BASH_REMATCH[1]} off=${BASH_REMATCH[2]}
		[[ -n ${end[$s]:-} ]] || { echo "no FDE starts at 0x$s: $name"; return 1; }
		(( 0x$s + 0x$off <= 0x${end[$s]} )) || { echo "past its FDE: $name"; return 1; }
	done < frames
	sed 's/+0x[0-9a-f]*$//' frames | sort -u
}

@test "Debian's xz -9: liblzma's time splits over 10 or more functions named by FDE start, with one warning" {
	local lzma id
	lzma=$(readlink -f /usr/lib/x86_64-linux-gnu/liblzma.so.5)
	id=$(readelf -n "$lzma" | sed -n 's/.*Build ID: //p')
	[[ ! -e /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug ]] ||
		skip "liblzma's debug file is installed: its functions have names"
	/usr/bin/python3 "$SAMPLES/text.py" input
	zt-collect -o x.raw xz -9 -T1 -k -c input > /dev/null
	run --separate-stderr zt-symbolize x.raw
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > x.sym
	# No frame in liblzma is left as the one [liblzma.so.5.4.1] frame.
	! grep -q "^	 *[0-9a-f]* \[${lzma##*/}\] " x.sym
	check_fdes "${lzma##*/}" "$lzma" x.sym > names
	printf '# %s distinct liblzma functions\n' "$(wc -l < names)" >&3
	(( $(wc -l < names) >= 10 ))
	# The warning, with the share (nearly all of xz's time is in liblzma).
	[[ "$stderr" =~ "zt-symbolize: '$lzma': no symbol for its innermost frame in "(9[0-9]|100)\.[0-9]"% of the samples: those frames are named [${lzma##*/}+0xSTART] by the .eh_frame function that holds them; for names, put its debug file .build-id/${id:0:2}/${id:2}.debug under /usr/lib/debug or a --debug-dir (on Debian, install the -dbgsym package of the package that 'dpkg -S $lzma' names)" ]]
	[ "$(grep -c "'$lzma': no symbol for its innermost frame in" <<< "$stderr")" -eq 1 ]
	# The same text is a # zt warning line of the stream.
	grep -q "^# zt warning '$lzma': no symbol for its innermost frame in " x.sym
	# A flame graph's input keeps the functions apart, as stackcollapse-perf.pl
	# would (a trailing +0x offset is stripped, the bracketed name kept).
	zt-fold x.sym | grep -o "\[${lzma##*/}+0x[0-9a-f]*\]" | sort -u > folded
	diff names folded
	zt-fold --addrs x.sym | grep -o "\[${lzma##*/}+0x[0-9a-f]*\]" | sort -u | diff names -
	# A tool reading the raw dump symbolizes it the same way, and warns the same.
	run --separate-stderr zt-stat x.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"zt-stat: '$lzma': no symbol for its innermost frame in "* ]]
	zt-fold x.raw 2>/dev/null | grep -o "\[${lzma##*/}+0x[0-9a-f]*\]" | sort -u | diff names -
}

@test "the names are the same from a second run: link-time FDE starts, not run-time addresses" {
	[[ -s x.raw ]] || skip "needs the first test's run"
	zt-collect -o y.raw xz -9 -T1 -k -c input > /dev/null
	# The five functions with the most samples of their own in the first run.
	zt-symbolize x.raw 2>/dev/null | zt-fold |
		awk '{ n = split($1, f, ";"); c[f[n]] += $2 } END { for (k in c) print c[k], k }' |
		sort -rn | head -5 | awk '{ print $2 }' | grep '^\[liblzma' > top-x || true
	zt-symbolize y.raw 2>/dev/null | zt-fold | grep -o '\[liblzma[^]]*\]' | sort -u > all-y
	[ -s top-x ]
	# Each of the first run's five hottest functions appears in the second.
	while read -r f; do grep -qxF "$f" all-y; done < top-x
}

# A dump of full's main (named) and p's inner (no symbol): N and M samples.
two_files() {
	/usr/bin/python3 - "$@" <<'PY'
import struct, subprocess, sys
n, m = int(sys.argv[1]), int(sys.argv[2])
def loads(path):
    data = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    for i in range(phnum):
        t, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if t == 1:
            yield off, vaddr, filesz
def sym(name):
    for line in subprocess.run(["nm", "full"], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if f[-1] == name:
            return int(f[0], 16)
print("zt-prof 1\nhz 997\ndropped 0\nmaps")
for path, base in (("full", 0x555500000000), ("p", 0x555600000000)):
    for off, vaddr, filesz in loads(path):
        print("%x-%x r-xp %08x 08:01 42 %s/%s" % ((base + vaddr) & ~0xfff,
              (base + vaddr + filesz + 0xfff) & ~0xfff, off & ~0xfff, sys.argv[3], path))
print("samples")
print(("%x\n" % (0x555500000000 + sym("main") + 1)) * n, end="")
print(("%x\n" % (0x555600000000 + sym("inner") + 1)) * m, end="")
PY
}

@test "the warning starts at 1% of the samples and 5 samples: 10 of 1000 warns, 9 of 1000 and 4 of 100 do not" {
	two_files 990 10 "$PWD" > at.raw
	run --separate-stderr zt-symbolize at.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == "zt-symbolize: '$PWD/p': no symbol for its innermost frame in 1.0% of the samples: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	inner=$(nm full | awk '$3 == "inner" { print $1 }' | sed 's/^0*//')
	[[ "$output" == *" [p+0x$inner]+0x1 ($PWD/p)"* ]]
	[[ "$output" == *" main+0x1 ($PWD/full)"* ]]
	two_files 991 9 "$PWD" > below.raw
	run --separate-stderr zt-symbolize below.raw
	[ "$status" -eq 0 ]
	assert_equal "$stderr" ""
	[[ "$output" == *" [p+0x$inner]+0x1 ($PWD/p)"* ]]
	# One stray sample (the loader's entry has no symbol and no FDE) is no
	# visible share: 4% of 100 samples is not warned about, 5% is.
	two_files 96 4 "$PWD" > few.raw
	run --separate-stderr zt-symbolize few.raw
	assert_equal "$stderr" ""
	two_files 95 5 "$PWD" > five.raw
	run --separate-stderr zt-symbolize five.raw
	[[ "$stderr" == "zt-symbolize: '$PWD/p': no symbol for its innermost frame in 5.0% of the samples: "* ]]
}

# corrupt_hdr IN OUT HOW: a copy of IN whose .eh_frame_hdr table is unsorted
# (entries 0 and 1 swapped) or has an entry pointing outside .eh_frame.
corrupt_hdr() {
	/usr/bin/python3 - "$@" <<'PY'
import struct, sys
src, dst, how = sys.argv[1:4]
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
sh = lambda i: struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize)
names = sh(shstrndx)[4]
for i in range(shnum):
    name, _, _, _, off, _ = sh(i)
    if b[names + name:b.index(0, names + name)] == b".eh_frame_hdr":
        t = off + 12
        if how == "unsorted":
            b[t:t + 8], b[t + 8:t + 16] = b[t + 8:t + 16], b[t:t + 8]
        else:
            struct.pack_into("<i", b, t + 4, 0x7fff0000)
open(dst, "wb").write(b)
PY
}

@test "a corrupt .eh_frame_hdr: one warning, and the same names from .eh_frame itself" {
	two_files 0 10 "$PWD" > good.raw
	zt-symbolize good.raw 2>/dev/null | grep -v '^#' > want
	grep -q '\[p+0x' want
	mkdir -p bad
	cp full bad/full
	for how in unsorted outside; do
		corrupt_hdr p bad/p "$how"
		sed "s|$PWD/p\$|$PWD/bad/p|" good.raw > bad.raw
		zt-symbolize bad.raw > bad.sym 2> bad.err
		mapfile -t stderr_lines < bad.err
		case $how in
		unsorted) [ "${stderr_lines[0]}" = "zt-symbolize: '$PWD/bad/p': corrupt .eh_frame_hdr: its table is not sorted (entry 1); .eh_frame read instead" ] ;;
		outside) [[ "${stderr_lines[0]}" == "zt-symbolize: '$PWD/bad/p': corrupt .eh_frame_hdr: entry "*" points outside .eh_frame; .eh_frame read instead" ]] ;;
		esac
		[ "${#stderr_lines[@]}" -eq 2 ]	# then the share unnamed
		grep -v '^#' bad.sym | sed "s|$PWD/bad/p|$PWD/p|" | diff want -
	done
}
