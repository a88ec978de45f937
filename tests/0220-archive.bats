#!/usr/bin/env bats
# zt-archive, and zt-symbolize --debug-dir on its archive: an old dump is
# named correctly after its binary was rebuilt or deleted, and never wrongly.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > p.c <<'C'
#include <stdlib.h>
static __attribute__((noinline)) long inner(long n)
{ long s = 0; for (long i = 0; i < n; i++) s = s * 7 + i; return s; }
static __attribute__((noinline)) long outer(long n) { return inner(n) + 1; }
#ifdef REBUILT
static __attribute__((noinline)) long extra(long n) { return inner(n / 2) * 3 + outer(n / 2); }
#define outer extra
#endif
int main(int argc, char **argv) { return outer(argc > 1 ? atol(argv[1]) : 150000000) == 42; }
C
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o prog p.c
	zt-collect -o p.raw ./prog 2>/dev/null
	zt-symbolize p.raw > before.sym 2>/dev/null
	build=$(readelf -n prog | awk '/Build ID/ { print $3 }')
	echo "$build" > build
	cp prog prog.orig
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/{p.c,p.raw,before.sym,build,prog.orig} .
	cp prog.orig prog
	sed -i "s|$BATS_FILE_TMPDIR/prog|$PWD/prog|" p.raw before.sym
	read -r build < build
	dest="arch/.build-id/${build:0:2}/${build:2}"
}

@test "zt-archive stores each file under the dump's build-id, then finds it present" {
	run --separate-stderr zt-archive --dir=arch p.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "stored $dest $PWD/prog" ]
	cmp prog "$dest"
	# libc, and libc6-dbg's debug file beside it.
	libc=$(readelf -n /usr/lib/x86_64-linux-gnu/libc.so.6 | awk '/Build ID/ { print $3 }')
	[[ "$output" == *"stored arch/.build-id/${libc:0:2}/${libc:2} /usr/lib/x86_64-linux-gnu/libc.so.6"* ]]
	[[ "$output" == *"stored arch/.build-id/${libc:0:2}/${libc:2}.debug /usr/lib/debug/.build-id/${libc:0:2}/${libc:2}.debug"* ]]
	first=$output
	run --separate-stderr zt-archive -d arch < p.raw
	[ "$status" -eq 0 ]
	[ "$output" = "${first//stored /present }" ]
}

@test "after a rebuild, --debug-dir names the old dump as before; without it, [prog]" {
	zt-archive --dir=arch p.raw > /dev/null
	gcc -O1 -g -fno-omit-frame-pointer -DREBUILT -o prog p.c
	run --separate-stderr zt-symbolize p.raw
	[[ "$stderr" == *"'$PWD/prog': build-id mismatch: the dump has $build"* ]]
	[[ "$output" == *" [prog] ($PWD/prog)"* ]]
	[[ "$output" != *" inner+"* ]]
	run --separate-stderr zt-symbolize --debug-dir=arch p.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat before.sym)" ]
}

@test "after the binary is deleted, --debug-dir still names the old dump" {
	zt-archive --dir=arch p.raw > /dev/null
	rm prog
	run --separate-stderr zt-symbolize --debug-dir=arch p.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat before.sym)" ]
}

@test "with only a debug file archived, addresses are mapped with the load bias" {
	objcopy --only-keep-debug prog prog.debug
	mkdir -p "$(dirname "$dest")"
	cp prog.debug "$dest.debug"
	rm prog
	run --separate-stderr zt-symbolize --debug-dir=arch p.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat before.sym)" ]
}

@test "a stripped binary is archived with the debug file its debug link names" {
	objcopy --only-keep-debug prog prog.debug
	strip prog
	objcopy --add-gnu-debuglink=prog.debug prog
	# Stripping changes the file, not its build-id: the dump still matches.
	run --separate-stderr zt-archive --dir=arch p.raw
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "stored $dest $PWD/prog" ]
	[ "${lines[1]}" = "stored $dest.debug $PWD/prog.debug" ]
	rm prog prog.debug
	run --separate-stderr zt-symbolize --debug-dir=arch p.raw
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat before.sym)" ]
}

@test "a file rebuilt before archiving is skipped and named, exit 1" {
	gcc -O1 -g -DREBUILT -o prog p.c
	now=$(readelf -n prog | awk '/Build ID/ { print $3 }')
	run --separate-stderr zt-archive --dir=arch p.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-archive: '$PWD/prog': build-id mismatch: the dump has $build, the file has $now; not archived" ]
	[ ! -e "$dest" ]
	[[ "$output" != *"$PWD/prog"* ]]
	[[ "$output" == *"stored arch/.build-id/"*"/usr/lib/x86_64-linux-gnu/libc.so.6"* ]]
	rm prog
	run --separate-stderr zt-archive --dir=arch p.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-archive: '$PWD/prog': cannot open: No such file or directory; not archived" ]
}

@test "zt-archive: bad usage exits 2, a bad dump exits 1 with no output" {
	run --separate-stderr zt-archive p.raw
	[ "$status" -eq 2 ]
	[[ "$stderr" == "usage: zt-archive -d DIR [--sysroot ROOT] [FILE]"* ]]
	run --separate-stderr zt-archive --bogus -d arch p.raw
	[ "$status" -eq 2 ]
	run --separate-stderr zt-archive --sysroot=/nonexistent -d arch p.raw
	[ "$status" -eq 2 ]
	[ "$stderr" = "zt-archive: --sysroot: cannot read '/nonexistent': No such file or directory" ]
	run --separate-stderr zt-archive --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: zt-archive -d DIR [--sysroot ROOT] [FILE]"* ]]
	printf 'hello\n' > g.raw
	run --separate-stderr zt-archive -d arch g.raw
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "zt-archive: 'g.raw': line 1: not a zt raw dump (expected 'zt-prof 1' to '6')" ]
	[ ! -e arch ]
	touch file
	run --separate-stderr zt-archive -d file/sub p.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-archive: cannot create 'file/sub': Not a directory" ]
}
