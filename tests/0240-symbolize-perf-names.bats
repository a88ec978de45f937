#!/usr/bin/env bats
# Names as perf gives them (zt-symbolize(1), NAMES): perf records a small C
# program that spends its time in glibc (write, getppid, memset, qsort,
# snprintf), where one address often has several names (__GI___libc_write,
# __libc_write, __write, write) and glibc's debug file keeps symbol versions
# in names (__libc_start_main@@GLIBC_2.34). tests/perfnames.py makes a raw
# dump of every address perf named, at perf's own lookup addresses, and checks
# that zt-symbolize gives each one perf's name, without its version, and
# perf's offset. Skipped only when perf is not installed (make deps installs
# linux-perf); a perf that is installed but fails makes the test fail.

load helper

setup() {
	command -v perf > /dev/null ||
		skip "perf is not installed (make deps installs linux-perf)"
	cd "$BATS_TEST_TMPDIR"
	cat > names.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(void)
{
	static int v[4096];
	char *b = malloc(1 << 16), s[64];
	int fd = open("/dev/null", O_WRONLY);
	for (int i = 0; i < 30000; i++) {
		memset(b, i, 1 << 15);
		if (write(fd, b, 1) != 1 || getppid() < 0)
			return 1;
		for (int j = 0; j < 64; j++)
			v[j] = (j * 7919 + i) % 4096;
		qsort(v, 64, sizeof *v, cmp);
		snprintf(s, sizeof s, "%d %g", i, i / 3.0);
	}
	return 0;
}
C
	gcc -O1 -o names names.c
}

@test "every address perf names gets perf's name from zt-symbolize, without the symbol version" {
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o p.data ./names
	perf script -i p.data --no-inline -F ip,sym,symoff,dso > p.perf
	/usr/bin/python3 "$ZT_TOP/tests/perfnames.py" dump p.perf > p.raw
	zt-symbolize p.raw > p.sym
	run --separate-stderr /usr/bin/python3 "$ZT_TOP/tests/perfnames.py" compare p.perf p.sym
	printf '# %s\n' "${stderr_lines[@]}" >&3
	assert_success
	assert_output ''
	# Enough of glibc to mean something: perf named at least 8 functions.
	[[ ${stderr_lines[0]} =~ ,\ ([0-9]+)\ names ]]
	(( BASH_REMATCH[1] >= 8 ))
}

@test "a version in a debug file's symbol name is dropped: __libc_start_main, as gdb's info symbol says" {
	local id f
	id=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 | sed -n 's/.*Build ID: //p')
	f=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[[ -f $f ]] || skip "libc6-dbg is not installed"
	readelf -sW "$f" | grep -q ' __libc_start_main@@GLIBC_2.34$' ||
		skip "this glibc's debug file has no versioned __libc_start_main"
	perf record -q -F 997 -e cpu-clock --all-user --call-graph dwarf -o p.data ./names
	perf script -i p.data --no-inline -F ip,sym,symoff,dso > p.perf
	grep -q '__libc_start_main@@GLIBC_2.34+' p.perf
	/usr/bin/python3 "$ZT_TOP/tests/perfnames.py" dump p.perf > p.raw
	run zt-symbolize p.raw
	assert_output --partial ' __libc_start_main+0x'
	refute_output --partial '@GLIBC'
}

@test "a label (no type, no size, in code: ld.so's _start) names the code after it up to the next symbol, as perf does" {
	local ld id f start user next base
	ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
	id=$(readelf -n "$ld" | sed -n 's/.*Build ID: //p')
	f=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[[ -f $f ]] || skip "libc6-dbg is not installed"
	# _start and _dl_start_user: NOTYPE, size 0, in .text (RTLD_START's asm).
	start=$(readelf -sW "$f" | awk '$8 == "_start" && $4 == "NOTYPE" && $3 == 0 { print $2 }')
	user=$(readelf -sW "$f" | awk '$8 == "_dl_start_user" && $4 == "NOTYPE" && $3 == 0 { print $2 }')
	[[ -n $start && -n $user ]] || skip "this ld.so's debug file has no _start and _dl_start_user labels"
	base=$((0x7f0000000000))
	{
		printf 'zt-prof 1\nhz 997\ndropped 0\nmaps\n'
		readelf -lW "$ld" | while read -r kind o v _ s _; do
			[ "$kind" = LOAD ] || continue
			printf '%x-%x r-xp %08x 08:01 42 %s\n' $((base + (v & ~0xfff))) \
				$((base + ((v + s + 0xfff) & ~0xfff))) $((o & ~0xfff)) "$ld"
		done
		printf 'samples\n%x\n%x\n' $((base + 0x$start + 7)) $((base + 0x$user + 4))
	} > l.raw
	run --separate-stderr zt-symbolize l.raw
	assert_success
	assert_output --partial " _start+0x7 ("
	assert_output --partial " _dl_start_user+0x4 ("
}
