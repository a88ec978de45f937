#!/usr/bin/env bats
# zt-symbolize: separate debug files (by build-id, by .gnu_debuglink with its
# CRC), libc's internals from libc6-dbg, --debug-dir, --sysroot, files
# marked (deleted), pseudo-names, demangling, and never a wrong name.

load helper

# A program whose functions are static, so that a stripped copy names none
# of them, and a C++ one with names to demangle. One dump of each.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > p.c <<'C'
#include <stdlib.h>
static __attribute__((noinline)) long inner(long n)
{ long s = 0; for (long i = 0; i < n; i++) s = s * 7 + i; return s; }
static __attribute__((noinline)) long outer(long n) { return inner(n) + 1; }
int main(int argc, char **argv) { return outer(argc > 1 ? atol(argv[1]) : 150000000) == 42; }
C
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o full p.c
	cp full p
	objcopy --only-keep-debug p p.debug
	strip p
	b=$(readelf -n p | awk '/Build ID/ { print $3 }')
	mkdir -p "dbg/.build-id/${b:0:2}"
	cp p.debug "dbg/.build-id/${b:0:2}/${b:2}.debug"
	zt-collect -o p.raw ./p 2>/dev/null
	cat > cx.cc <<'C'
#include <cstdlib>
namespace ns {
template <typename T> struct Acc {
	T v;
	__attribute__((noinline)) T add(T x) { for (int i = 0; i < 1000; i++) v = v * 31 + x + i; return v; }
};
}
int main(int argc, char **argv)
{ ns::Acc<long> a{1}; long s = 0, n = argc > 1 ? atol(argv[1]) : 150000;
  for (long i = 0; i < n; i++) s += a.add(i); return s == 42; }
C
	g++ -O1 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o cx cx.cc
	zt-collect -o cx.raw ./cx 2>/dev/null
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# The distinct function names of a symbolized stream, one per line.
names() {
	awk '/^\t/ { $1 = ""; sub(/^ /, ""); sub(/\+0x[0-9a-f]+ \(.*$/, ""); sub(/ \(.*$/, ""); print }' | sort -u
}

@test "libc's internal functions are named from libc6-dbg's debug file" {
	run --separate-stderr zt-symbolize p.raw
	[ "$status" -eq 0 ]
	[[ "$output" == *" __libc_start_call_main+0x"*"(/usr/lib/x86_64-linux-gnu/libc.so.6)"* ]]
	[[ "$output" != *"[libc.so.6"* ]]
	# The one warning is about the stripped p, none about libc.
	[[ "$stderr" != *libc* ]]
}

# Without its debug file, a stripped binary's functions are named by the
# start of the .eh_frame FDE that holds each address: _start, inner, outer and main
# of the unstripped copy start where those FDEs do.
@test "a stripped binary names its functions [basename+0xSTART] by .eh_frame, with one warning" {
	run --separate-stderr zt-symbolize p.raw
	[ "$status" -eq 0 ]
	want=$(nm full | awk '$3 == "inner" || $3 == "outer" || $3 == "main" || $3 == "_start" { print "[p+0x" $1 "]" }' |
		sed 's/0x0*/0x/' | sort)
	got=$(printf '%s\n' "$output" | grep "($PWD/p)" | names)
	[ "$got" = "$want" ]
	# 100%, or 99% when a sample fell in the loader's entry code.
	[[ "$stderr" == "zt-symbolize: '$PWD/p': no symbol for its innermost frame in "*"% of the samples: those frames are named [p+0xSTART] by the .eh_frame function that holds them; for names, put its debug file .build-id/"*".debug under /usr/lib/debug or a --debug-dir (on Debian, install the -dbgsym package of the package that 'dpkg -S $PWD/p' names)" ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$output" == *"# zt warning '$PWD/p': no symbol for its innermost frame in "*"% of the samples"* ]]
}

@test "--debug-dir finds the stripped binary's debug file by build-id" {
	run --separate-stderr zt-symbolize --debug-dir=dbg p.raw
	[ "$status" -eq 0 ]
	assert_equal "$stderr" ""
	got=$(printf '%s\n' "$output" | grep "($PWD/p)" | names)
	[[ "$got" == *inner* ]]
	[[ "$got" != *"[p]"* ]]
	# The same names as the unstripped binary gives on the same addresses.
	sed "s|$PWD/p\$|$PWD/full|" p.raw > full.raw
	zt-symbolize full.raw | grep "($PWD/full)" | names > want
	printf '%s\n' "$output" | grep "($PWD/p)" | names | diff want -
	# -d is the short form, and it may repeat.
	zt-symbolize --debug-dir=dbg p.raw > one
	zt-symbolize -d /tmp -d dbg p.raw | diff one -
}

@test ".gnu_debuglink beside the binary and in .debug/ is followed" {
	rm -rf link && mkdir link && cp p p.debug link/
	(cd link && objcopy --add-gnu-debuglink=p.debug p)
	sed "s|$PWD/p\$|$PWD/link/p|" p.raw > link.raw
	# The build-id of the dump is the binary's: a debug link changes no code,
	# but objcopy leaves the build-id note alone.
	run --separate-stderr zt-symbolize link.raw
	[ "$status" -eq 0 ]
	assert_equal "$stderr" ""
	[[ "$(printf '%s\n' "$output" | grep "($PWD/link/p)" | names)" == *inner* ]]
	mkdir link/.debug && mv link/p.debug link/.debug/
	run --separate-stderr zt-symbolize link.raw
	[[ "$(printf '%s\n' "$output" | grep "($PWD/link/p)" | names)" == *inner* ]]
}

@test "a debug file that fails its CRC is not used, with one warning, then the share unnamed" {
	rm -rf crc && mkdir crc && cp p p.debug crc/
	(cd crc && objcopy --add-gnu-debuglink=p.debug p)
	printf 'x' >> crc/p.debug
	sed "s|$PWD/p\$|$PWD/crc/p|" p.raw > crc.raw
	run --separate-stderr zt-symbolize crc.raw
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "zt-symbolize: '$PWD/crc/p': debug file '$PWD/crc/p.debug' fails its CRC check; not used" ]
	[[ "${stderr_lines[1]}" == "zt-symbolize: '$PWD/crc/p': no symbol for its innermost frame in "*"% of the samples: "* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ "$output" == *"# zt warning '$PWD/crc/p': debug file '$PWD/crc/p.debug' fails its CRC check; not used"* ]]
	[[ "$(printf '%s\n' "$output" | grep "($PWD/crc/p)" | names)" != *inner* ]]
}

@test "an unreadable --debug-dir or --sysroot is a usage error" {
	run --separate-stderr zt-symbolize --debug-dir=/nonexistent p.raw
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "zt-symbolize: --debug-dir: cannot read '/nonexistent': No such file or directory"* ]]
	[[ "$stderr" == *"usage: zt-symbolize"* ]]
	run --separate-stderr zt-symbolize --sysroot=/nonexistent p.raw
	[ "$status" -eq 2 ]
	[[ "$stderr" == "zt-symbolize: --sysroot: cannot read '/nonexistent': No such file or directory"* ]]
}

@test "--sysroot looks for the dump's files under a directory" {
	rm -rf root && mkdir -p "root$PWD"
	cp full "root$PWD/gone"
	sed "s|$PWD/p\$|$PWD/gone|" p.raw > gone.raw
	# The dump has the stripped binary's build-id; full has the same one.
	[ "$(readelf -n full | awk '/Build ID/ { print $3 }')" = "$(readelf -n p | awk '/Build ID/ { print $3 }')" ]
	run --separate-stderr zt-symbolize --sysroot=root gone.raw
	[ "$status" -eq 0 ]
	[[ "$(printf '%s\n' "$output" | grep "($PWD/gone)" | names)" == *inner* ]]
	# Everything is looked for under the sysroot, libc too.
	[[ "$stderr" == *"'root/usr/lib/x86_64-linux-gnu/libc.so.6': cannot open"* ]]
	run --separate-stderr zt-symbolize gone.raw
	[[ "$stderr" == *"'$PWD/gone': cannot open: No such file or directory; its frames are named [gone]"* ]]
}

@test "a file marked (deleted) in the maps is still read, build-id checked" {
	sed "s|$PWD/p\$|$PWD/full (deleted)|" p.raw > del.raw
	run --separate-stderr zt-symbolize del.raw
	[ "$status" -eq 0 ]
	assert_equal "$stderr" ""
	[[ "$(printf '%s\n' "$output" | grep "($PWD/full)" | names)" == *inner* ]]
	# Another build under that name is not trusted.
	gcc -O1 -o other p.c -DOTHER
	sed "s|$PWD/p\$|$PWD/other (deleted)|" p.raw > del2.raw
	run --separate-stderr zt-symbolize del2.raw
	[[ "$stderr" == *"'$PWD/other': build-id mismatch: the dump has "* ]]
	[ "$(printf '%s\n' "$output" | grep "($PWD/other)" | names)" = "[other]" ]
}

@test "a build-id mismatch is a # zt warning in the output and a warning on stderr" {
	gcc -O1 -g -o rebuilt p.c -DREBUILT
	sed "s|$PWD/p\$|$PWD/rebuilt|" p.raw > mis.raw
	run --separate-stderr zt-symbolize mis.raw
	[ "$status" -eq 0 ]
	b=$(readelf -n p | awk '/Build ID/ { print $3 }')
	r=$(readelf -n rebuilt | awk '/Build ID/ { print $3 }')
	msg="'$PWD/rebuilt': build-id mismatch: the dump has $b, the file has $r; its frames are named [rebuilt]"
	[ "$stderr" = "zt-symbolize: $msg" ]
	[ "$(printf '%s\n' "$output" | grep -cxF "# zt warning $msg")" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep "($PWD/rebuilt)" | names)" = "[rebuilt]" ]
}

@test "[vdso] and anonymous memory keep their pseudo-names" {
	printf '%s\n' 'zt-prof 1' maps \
		'7fff0000-7fff2000 r-xp 00000000 00:00 0   [vdso]' \
		'10000000-10001000 rwxp 00000000 00:00 0' \
		samples '7fff0010 10000010' > pseudo.raw
	run zt-symbolize pseudo.raw
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep $'^\t')" = "$(printf '\t%16x [vdso] ([vdso])\n\t%16x [anon] (//anon)' 0x7fff0010 0x10000010)" ]
}

@test "C++ names are demangled by default, and --no-demangle keeps them" {
	run --separate-stderr zt-symbolize cx.raw
	[ "$status" -eq 0 ]
	[[ "$output" == *" ns::Acc<long>::add(long)+0x"*"($PWD/cx)"* ]]
	[[ "$output" != *"_ZN2ns3AccIlE3addEl"* ]]
	run --separate-stderr zt-symbolize --no-demangle cx.raw
	[[ "$output" == *" _ZN2ns3AccIlE3addEl+0x"*"($PWD/cx)"* ]]
	[[ "$output" != *"ns::Acc"* ]]
}
