#!/usr/bin/env bats
# An aarch64 run's dump, read on this x86-64 machine (zt-symbolize(1),
# formats/raw.md's arch key): real aarch64 programs, cross-built with -O2 with
# and without -g, a shared library and a stripped one (its return addresses
# signed with pac-ret+b-key, so its CIEs say "zRB"), run once under
# qemu-aarch64, where the program writes a raw dump of what it saw: its own
# maps, the build-ids of its objects from their notes in memory, and real
# pcs and return addresses (each function records where it was called
# from). The oracles are the cross binutils' addr2line, llvm-symbolizer,
# objdump's PLT labels and readelf's FDEs, asked about the same addresses:
# the call instruction (return address - 4) where zt looks at return
# address - 1.

load helper

A64=aarch64-linux-gnu-
CROSS_ROOT=/usr/aarch64-linux-gnu

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > work.c <<'C'
/* libwork.so: the hot functions; zt_mark(k) records the pc it returns to. */
#include <stdint.h>
uintptr_t zt_ra[16];
#define RA() ((uintptr_t)__builtin_return_address(0))
__attribute__((noipa)) void zt_mark(int k) { zt_ra[k] = RA(); }
static inline __attribute__((always_inline)) long mix(long s, long i)
{
	if (i == 1)
		zt_mark(2);
	return s * 7 + (i ^ (s >> 3));
}
__attribute__((noipa)) long hot_a(long n, int k)
{
	long s = 0;
	zt_ra[k] = RA();
	zt_mark(1);
	for (long i = 0; i < n; i++)
		s = mix(s, i);
	return s;
}
static __attribute__((noipa)) long hidden(long n)
{
	zt_ra[3] = RA();
	zt_mark(4);
	return n * 3 + 1;
}
__attribute__((noipa)) long hot_b(long n)
{
	zt_ra[5] = RA();
	return hidden(n) + hot_a(n / 2, 6);
}
C
	cat > prog.c <<'C'
/* prog PLT: runs the functions once, then writes a raw dump of the stacks
 * it recorded (PLT: the link-time address of a PLT entry to sample too). */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern uintptr_t zt_ra[16];
void zt_mark(int k);
long hot_a(long n, int k);
long hot_b(long n);
#define RA() ((uintptr_t)__builtin_return_address(0))
static uintptr_t base;
static __attribute__((noipa)) int cmp(const void *a, const void *b)
{
	zt_ra[7] = RA();
	zt_mark(8);
	return *(const int *)a - *(const int *)b;
}
static __attribute__((noipa)) long work(long n)
{
	zt_ra[9] = RA();
	return hot_a(n, 10) + hot_b(n);
}
/* An object's build-id from its notes in memory, as zt's collector reads it. */
static int buildid(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t first = 0;
	int seen = 0;
	(void)size, (void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && !seen++)
			first = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	if (!info->dlpi_name[0])
		base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		const unsigned char *n = (const unsigned char *)(info->dlpi_addr + p->p_vaddr);
		const unsigned char *end = n + p->p_memsz;
		if (p->p_type != PT_NOTE)
			continue;
		while (n + 12 <= end) {
			ElfW(Nhdr) h;
			memcpy(&h, n, sizeof h);
			const unsigned char *desc = n + 12 + ((h.n_namesz + 3) & ~3u);
			if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && !memcmp(n + 12, "GNU", 4)) {
				printf("%lx @0 ", (unsigned long)first);
				for (unsigned j = 0; j < h.n_descsz; j++)
					printf("%02x", desc[j]);
				printf(" %s\n", info->dlpi_name[0] ? info->dlpi_name : "-");
			}
			n = desc + ((h.n_descsz + 3) & ~3u);
		}
	}
	return 0;
}
int main(int argc, char **argv)
{
	int v[4] = { 3, 1, 2, 0 }, tid = getpid();
	char b[4096];
	FILE *f;
	long r;
	ssize_t n;
	zt_ra[11] = RA();
	qsort(v, 4, sizeof *v, cmp);
	r = work(1000);
	n = readlink("/proc/self/exe", b, sizeof b - 1);
	b[n > 0 ? n : 0] = '\0';
	printf("zt-prof 4\npid %d\nexe %s\nhz 997\ntimer posix-cpu\nrate-cap kernel-tick\n"
	       "max-depth 128\nunwind auto\narch aarch64\nclock monotonic\nstart-ns 1000\n",
	       tid, b);
	printf("maps @0\n");
	fflush(stdout);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(b, sizeof b, f))
		fputs(b, stdout);
	printf("buildids\n");
	dl_iterate_phdr(buildid, NULL);
	/* Leaf first; the first address is an exact pc, the rest return addresses. */
	printf("samples\n");
	printf("%d 3 @10 %lx %lx %lx %lx\n", tid, zt_ra[1], zt_ra[10], zt_ra[9], zt_ra[11]);
	printf("%d 2 @20 %lx %lx %lx %lx %lx\n", tid, zt_ra[1], zt_ra[6], zt_ra[5], zt_ra[9],
	       zt_ra[11]);
	printf("%d 1 @30 %lx %lx %lx %lx\n", tid, zt_ra[2], zt_ra[10], zt_ra[9], zt_ra[11]);
	printf("%d 1 @40 %lx %lx %lx %lx %lx\n", tid, zt_ra[4], zt_ra[3], zt_ra[5], zt_ra[9],
	       zt_ra[11]);
	printf("%d 1 @50 %lx %lx -\n", tid, zt_ra[8], zt_ra[7]);
	printf("%d 1 @60 %lx -\n", tid, (unsigned long)(uintptr_t)qsort + 4);
	if (argc > 1)
		printf("%d 1 @70 %lx %lx %lx -\n", tid, base + strtoul(argv[1], NULL, 16) + 4,
		       zt_ra[5], zt_ra[9]);
	printf("threads\n%d prog\nsummary\nsamples 10\nlost 0\ntruncated 0\npartial 3\nend\n", tid);
	return r == 42;
}
C
	${A64}gcc -O2 -g -fPIC -shared -o libwork.so work.c
	${A64}gcc -O2 -g -o prog prog.c -L. -lwork -Wl,-rpath,'$ORIGIN'
	mkdir nog
	# Return addresses signed with the B key: its CIEs say "zRB".
	${A64}gcc -O2 -fPIC -shared -mbranch-protection=pac-ret+b-key -o libwork-pac.so work.c
	${A64}strip -o nog/libwork.so libwork-pac.so
	${A64}gcc -O2 -o nog/prog prog.c -Lnog -lwork -Wl,-rpath,'$ORIGIN'
	# The dumps, written by the programs themselves under qemu.
	qemu-aarch64 -L "$CROSS_ROOT" ./prog "$(plt_of prog hot_b)" > g.raw
	qemu-aarch64 -L "$CROSS_ROOT" nog/prog "$(plt_of nog/prog hot_b)" > nog.raw
	grep -q '^arch aarch64$' g.raw
	# The same library for this machine.
	mkdir x86
	gcc -O2 -fPIC -shared -o x86/libwork.so work.c
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# absent PATTERN [FILE]: no line of FILE (or stdin) matches PATTERN (bats
# does not fail a test on a negated command that is not its last).
absent() {
	! grep -q -- "$@"
}

# plt_of FILE FUNC: the link-time address of FUNC@plt, as objdump labels it.
plt_of() {
	${A64}objdump -d "$1" | sed -n "s/^0*\([0-9a-f]*\) <$2@plt>:\$/\1/p"
}

# plt_at FILE VADDR: objdump's label of the PLT entry that holds VADDR.
plt_at() {
	local at label best=
	while read -r at label; do
		((0x$at <= 0x$2)) && best=$label
	done < <(${A64}objdump -d -j .plt "$1" | sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p')
	echo "$best"
}

# vaddr_of FILE OFF: the link-time address (hex) of file offset OFF through
# FILE's PT_LOADs.
vaddr_of() {
	local off=$(($2)) o v fs
	while read -r o v fs; do
		if ((off >= o && off < o + fs)); then
			printf '%x\n' $((v + off - o))
			return
		fi
	done < <(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }')
	return 1
}

# places DUMP: "ADDR FILE VADDR" for every distinct address of DUMP's
# samples in a file: VADDR is where the oracles look (the address for an
# exact pc, the call instruction, 4 bytes before, for a return address).
places() {
	local a x s e off path look
	awk '/^maps/ { m = 1; next } /^[a-z]/ { m = 0 }
	     m && $6 ~ /^\// { split($1, r, "-"); print r[1], r[2], $3, $6 }' "$1" > maps.txt
	awk '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 }
	     s { for (i = 4; i <= NF; i++) if ($i != "-") print $i, (i == 4) }' "$1" |
		sort -u > addrs.txt
	while read -r a x; do
		look=$((0x$a - (x ? 0 : 4)))
		while read -r s e off path; do
			if ((look >= 0x$s && look < 0x$e)); then
				echo "$a $path $(vaddr_of "$path" $((look - 0x$s + 0x$off)))"
				break
			fi
		done < maps.txt
	done < addrs.txt
}

# zt_frames SYM: "ADDR NAME@FILE:LINE;..." per address of zt-symbolize's
# output, inlined frames first, names without their offset; a frame without
# line information (perf's stand-in, "name+OFFSET" or "module[ADDRESS]") none.
zt_frames() {
	awk 'function flush() { if (a != "" && a != "0") print a, f; a = ""; f = "" }
	     /^\t/ { if ($1 != a) flush(); n = $2; sub(/\+0x[0-9a-f]+$/, "", n)
		     f = f (a == "" ? "" : ";") n; a = $1; next }
	     /^  / { sub(/^  */, ""); if ($0 ~ /:[0-9]+$/) f = f "@" $0; next }
	     /^$/ { flush() }
	     END { flush() }' "$1" | sort -u
}

# oracle TOOL PLACES: the same for the addresses of PLACES, from TOOL
# (addr2line or llvm) in addr2line's layout: name and file:line per frame,
# inlined first; "??:0", "FILE:?" and "FILE:0" (a file from the symbol
# table, no DWARF) are no line, where zt prints none.
oracle() {
	local tool=$1 a path v
	while read -r a path v; do
		if [[ $tool == addr2line ]]; then
			${A64}addr2line -f -i -C -e "$path" "0x$v"
		else
			llvm-symbolizer --output-style=GNU -f -i -C --obj="$path" "0x$v"
		fi | sed 's/ (discriminator [0-9]*)$//' |
			awk -v a="$a" 'NR % 2 { n = $0; next }
				{ f = f (f == "" ? "" : ";") n ($0 ~ /^\?\?:/ || $0 ~ /:[?0]$/ ? "" : "@" $0) }
				END { print a, f }'
	done < "$2" | sort -u
}

# fde_check FILE VADDR NAME: NAME is [base+0xSTART] of an FDE of FILE
# (readelf) that holds VADDR.
fde_check() {
	local s e
	[[ $3 =~ ^\[[^+]*\+0x([0-9a-f]+)\]$ ]] || { echo "not an FDE name: $3"; return 1; }
	while read -r s e; do
		[[ $((0x$s)) -eq $((0x${BASH_REMATCH[1]})) ]] || continue
		(( 0x$2 >= 0x$s && 0x$2 < 0x$e )) && return 0
	done < <(readelf --debug-dump=frames "$1" |
		 sed -n 's/.* FDE .* pc=0*\([0-9a-f][0-9a-f]*\)\.\.0*\([0-9a-f][0-9a-f]*\)$/\1 \2/p')
	echo "no FDE of $1 at $3 holds 0x$2"
	return 1
}

# compare DUMP SYM: every frame zt names with a symbol is named (with its
# inlined frames and lines) as addr2line and llvm-symbolizer name it, a
# func@plt frame is objdump's label there, and a frame named by its FDE is
# one that llvm-symbolizer cannot name either; prints how many of each.
compare() {
	local a path v names nsym=0 nplt=0 nfde=0
	places "$1" > places.txt
	zt_frames "$2" > zt.txt
	oracle addr2line places.txt > a2l.txt
	oracle llvm places.txt > llvm.txt
	[[ $(wc -l < places.txt) -eq $(wc -l < zt.txt) ]] || { diff places.txt zt.txt; return 1; }
	while read -r a path v; do
		names=$(grep "^$a " zt.txt | cut -d' ' -f2-)
		case $names in
		*@plt)
			[[ $names == "$(plt_at "$path" "$v")" ]] ||
				{ echo "$a: zt $names, objdump $(plt_at "$path" "$v")"; return 1; }
			nplt=$((nplt + 1)) ;;
		\[*)
			fde_check "$path" "$v" "$names" || return 1
			grep -qx "$a ??" llvm.txt || { echo "$a: llvm-symbolizer names it"; return 1; }
			nfde=$((nfde + 1)) ;;
		*)
			grep -qxF "$a $names" a2l.txt ||
				{ echo "$a: zt '$names', addr2line '$(grep "^$a " a2l.txt)'"; return 1; }
			grep -qxF "$a $names" llvm.txt ||
				{ echo "$a: zt '$names', llvm '$(grep "^$a " llvm.txt)'"; return 1; }
			nsym=$((nsym + 1)) ;;
		esac
	done < places.txt
	echo "$nsym $nplt $nfde"
}

@test "aarch64 -O2 -g: every frame's function, inlined frame and source line is addr2line's and llvm-symbolizer's" {
	run --separate-stderr zt-symbolize --lines g.raw
	[ "$status" -eq 0 ]
	echo "$output" > g.sym
	run compare g.raw g.sym
	echo "$output"
	[ "$status" -eq 0 ]
	# 9 named by symbols (one with mix inlined), hot_b@plt, 2 libc internals by FDE.
	[ "$output" = "10 1 2" ]
	grep -q '^	 *[0-9a-f]* mix (inlined)$' g.sym
	grep -q '^	 *[0-9a-f]* hot_b@plt+0x4 (.*/prog)$' g.sym
}

@test "aarch64 -O2 without -g, library stripped and signed (pac-ret+b-key): names are the oracles'; its static function is named by its FDE (CIE 'zRB'), which no oracle names" {
	readelf --debug-dump=frames nog/libwork.so | grep -q 'Augmentation: *"zRB"'
	run --separate-stderr zt-symbolize nog.raw
	[ "$status" -eq 0 ]
	echo "$output" > nog.sym
	run compare nog.raw nog.sym
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "9 1 3" ]
	grep -q "^	 *[0-9a-f]* \[libwork.so+0x$(${A64}nm libwork-pac.so | sed -n 's/^0*\([0-9a-f]*\) t hidden$/\1/p')\]+0x[0-9a-f]* (.*/nog/libwork.so)\$" nog.sym
}

@test "a BTI program's PLT entries (bti c before adrp, 24 bytes) are named as objdump labels them" {
	local at label v off fs n=0
	mkdir -p bti
	# Not run: the cross crt1.o has no BTI landing pad, so the loader's jump
	# to _start faults under force-bti. The dump places it where it links.
	${A64}gcc -O2 -no-pie -mbranch-protection=standard -Wl,-z,force-bti -o bti/prog prog.c \
		-L. -lwork 2>/dev/null
	${A64}objdump -d -j .plt bti/prog | grep -q 'bti	c'
	read -r off v fs < <(readelf -lW bti/prog | awk '$1 == "LOAD" { print $2, $3, $5; exit }')
	{
		printf 'zt-prof 4\npid 7\narch aarch64\nmaps\n'
		printf '%x-%x r-xp %08x fe:00 9 %s\n' $((v)) $((v + (fs + 4095) / 4096 * 4096)) $((off)) "$PWD/bti/prog"
		printf 'samples\n'
		while read -r at label; do
			printf '7 1 @0 %x\n7 1 @0 %x\n' $((0x$at + 4)) $((0x$at + 20))
			n=$((n + 1))
		done < <(${A64}objdump -d -j .plt bti/prog | sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p')
		printf 'end\n'
	} > bti.raw
	[ "$n" -ge 5 ]
	run --separate-stderr zt-symbolize bti.raw
	[ "$status" -eq 0 ]
	echo "$output" > bti.sym
	grep -q '^	 *[0-9a-f]* hot_b@plt+0x4 (.*/bti/prog)$' bti.sym
	grep -q '^	 *[0-9a-f]* hot_b@plt+0x14 (.*/bti/prog)$' bti.sym
	run compare bti.raw bti.sym
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "0 $((2 * n)) 0" ]
}

@test "an x86-64 library where an aarch64 dump maps libwork.so is refused by name and its frames stay unnamed, with or without build-ids" {
	local lib=$BATS_FILE_TMPDIR/libwork.so
	mkdir -p swap
	sed "s|$lib|$PWD/swap/libwork.so|" g.raw > swap.raw
	cp x86/libwork.so swap/
	run --separate-stderr zt-symbolize swap.raw
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "zt-symbolize: '$PWD/swap/libwork.so': architecture mismatch: the dump is of an aarch64 run, the file is x86_64; its frames are named [libwork.so]" ]
	[ "$(grep -c "^	 *[0-9a-f]* \[libwork.so\] ($PWD/swap/libwork.so)\$" <<< "$output")" -eq 6 ]
	absent ' [a-z_]*+0x[0-9a-f]* (.*/swap/libwork.so)$' <<< "$output"
	# Without build-ids (a dump that lost them), nothing else stops it.
	sed '/^buildids$/,/^samples$/{/^samples$/!d}' swap.raw > noid.raw
	absent '^buildids' noid.raw
	run --separate-stderr zt-symbolize noid.raw
	[ "$status" -eq 0 ]
	[ "${stderr_lines[0]}" = "zt-symbolize: '$PWD/swap/libwork.so': architecture mismatch: the dump is of an aarch64 run, the file is x86_64; its frames are named [libwork.so]" ]
	absent ' [a-z_]*+0x[0-9a-f]* (.*/swap/libwork.so)$' <<< "$output"
	[ "$(grep -c "^	 *[0-9a-f]* \[libwork.so\] ($PWD/swap/libwork.so)\$" <<< "$output")" -eq 6 ]
}

@test "a stripped aarch64 library is named, with lines and inlined frames, from its debug file under --debug-dir" {
	local id
	mkdir -p strip
	${A64}objcopy --only-keep-debug libwork.so libwork.debug
	${A64}strip -o strip/libwork.so libwork.so
	id=$(readelf -n strip/libwork.so | sed -n 's/.*Build ID: //p')
	mkdir -p "dbg/.build-id/${id:0:2}"
	mv libwork.debug "dbg/.build-id/${id:0:2}/${id:2}.debug"
	sed "s|$BATS_FILE_TMPDIR/libwork.so|$PWD/strip/libwork.so|" g.raw > strip.raw
	zt-symbolize -l g.raw 2>/dev/null | grep -v '^# zt warning ' |
		sed "s|$BATS_FILE_TMPDIR/libwork.so|$PWD/strip/libwork.so|" > expect.sym
	run --separate-stderr zt-symbolize -l -d dbg strip.raw
	[ "$status" -eq 0 ]
	[ "$(grep -v '^# zt warning ' <<< "$output")" = "$(cat expect.sym)" ]
	grep -q ' hidden+0x[0-9a-f]* (.*/strip/libwork.so)$' <<< "$output"
	grep -q ' mix (inlined)$' <<< "$output"
	# Every frame named: the program's PLT entry too.
	absent ' \[[a-z.]*\] (/' <<< "$output"
	grep -q ' hot_b@plt+0x4 (' <<< "$output"
	# Without it, hidden is only its FDE.
	run --separate-stderr zt-symbolize strip.raw
	grep -q ' \[libwork.so+0x[0-9a-f]*\]+0x[0-9a-f]* (.*/strip/libwork.so)$' <<< "$output"
}

# nowarn: zt-symbolize's stream without its warnings, which name the files
# where they were found.
nowarn() {
	grep -v '^# zt warning ' "$@"
}

# The dump as the aarch64 machine would write it, its libc at /lib/libc.so.6
# and the program in /opt/zt, into remote.raw; its files in the root tree.
remote_dump() {
	sed "s|$CROSS_ROOT/lib/|/lib/|; s|$BATS_FILE_TMPDIR/|/opt/zt/|" g.raw > remote.raw
	mkdir -p root/opt/zt root/lib
	cp prog libwork.so root/opt/zt/
	cp "$CROSS_ROOT"/lib/libc.so.6 "$CROSS_ROOT"/lib/ld-linux-aarch64.so.1 root/lib/
}

@test "--sysroot $CROSS_ROOT finds the cross libc of a dump whose maps say /lib/libc.so.6, and names the aarch64 PLT" {
	remote_dump
	zt-symbolize g.raw 2>/dev/null | nowarn |
		sed "s|$CROSS_ROOT/lib/|/lib/|; s|$BATS_FILE_TMPDIR/|/opt/zt/|" > expect.sym
	run --separate-stderr zt-symbolize --sysroot root remote.raw
	[ "$status" -eq 0 ]
	[ "$(nowarn <<< "$output")" = "$(cat expect.sym)" ]
	# The cross libc itself, the program found by build-id in an archive.
	zt-archive -d progs g.raw > /dev/null
	run --separate-stderr zt-symbolize --sysroot "$CROSS_ROOT" -d progs remote.raw
	[ "$status" -eq 0 ]
	[ "$(nowarn <<< "$output")" = "$(cat expect.sym)" ]
	grep -q '\[libc.so.6+0x[0-9a-f]*\]+0x[0-9a-f]* (/lib/libc.so.6)$' <<< "$output"
	grep -q ' qsort+0x4 (/lib/libc.so.6)$' <<< "$output"
	grep -q ' hot_b@plt+0x4 (/opt/zt/prog)$' <<< "$output"
	absent 'mismatch' <<< "$stderr"
	# Without it, the dump's /lib/libc.so.6 is not on this machine.
	run --separate-stderr zt-symbolize remote.raw
	[ "$status" -eq 0 ]
	[[ $stderr == *"zt-symbolize: '/lib/libc.so.6': cannot open: No such file or directory; its frames are named [libc.so.6]"* ]]
}

@test "zt-archive --sysroot carries an aarch64 run's files; on this x86-64 machine zt-symbolize -d names every frame as the files do" {
	remote_dump
	run --separate-stderr zt-archive --sysroot root -d arch remote.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c '^stored ' <<< "$output")" -eq 4 ]
	grep -q "^stored arch/.build-id/[0-9a-f][0-9a-f]/[0-9a-f]* root/lib/libc.so.6\$" <<< "$output"
	run zt-archive --sysroot root -d arch remote.raw
	[ "$(grep -c '^present ' <<< "$output")" -eq 4 ]
	zt-symbolize --sysroot root --lines remote.raw 2>/dev/null | nowarn > expect.sym
	rm -r root
	run --separate-stderr zt-symbolize -d arch --lines remote.raw
	[ "$status" -eq 0 ]
	[ "$(nowarn <<< "$output")" = "$(cat expect.sym)" ]
	absent ' \[libc.so.6\] \| \[prog\] \| \[libwork.so\] ' <<< "$output"
	grep -q ' mix (inlined)$' <<< "$output"
	grep -q ' hot_b@plt+0x4 (/opt/zt/prog)$' <<< "$output"
}

@test "zt-archive skips an x86-64 file where the dump says aarch64, by name" {
	mkdir -p skip
	cp x86/libwork.so skip/
	sed "s|$BATS_FILE_TMPDIR/libwork.so|$PWD/skip/libwork.so|" g.raw > skip.raw
	run --separate-stderr zt-archive -d skiparch skip.raw
	[ "$status" -eq 1 ]
	[[ $stderr == "zt-archive: '$PWD/skip/libwork.so': architecture mismatch: the dump is of an aarch64 run, the file is x86_64; not archived" ]]
	absent "skip/libwork.so" <<< "$output"
}

@test "a raw dump's arch that zt does not know names its line, in zt-symbolize and in the tools that read raw dumps" {
	sed 's/^arch aarch64$/arch sparc64/' g.raw > bad.raw
	local n
	n=$(grep -n '^arch ' bad.raw | cut -d: -f1)
	for tool in zt-symbolize zt-fold zt-stat; do
		run --separate-stderr $tool bad.raw
		[ "$status" -eq 1 ]
		[ "$stderr" = "$tool: 'bad.raw': line $n: arch 'sparc64' is not one zt reads (x86_64, aarch64)" ]
	done
	sed 's/^arch aarch64$/arch x86-64/' g.raw > bad2.raw
	run --separate-stderr zt-symbolize < bad2.raw
	[ "$status" -eq 1 ]
	[ "$stderr" = "zt-symbolize: line $n: arch 'x86-64' is not one zt reads (x86_64, aarch64)" ]
}

@test "a dump without arch is an x86-64 run's: an old x86-64 dump reads as before, and aarch64 files in one are refused" {
	zt-collect -o x.raw "$SAMPLES/spin" 2>/dev/null
	sed '/^arch /d' x.raw > old.raw
	sed 's/^max-depth \(.*\)$/max-depth \1\narch x86_64/' old.raw > new.raw
	grep -q '^arch x86_64$' new.raw
	zt-symbolize old.raw > old.sym 2>old.err
	zt-symbolize new.raw > new.sym 2>new.err
	cmp old.sym new.sym
	cmp old.err new.err
	grep -q ' hot_a+0x' old.sym
	sed '/^arch /d' g.raw > noarch.raw
	run --separate-stderr zt-symbolize noarch.raw
	[ "$status" -eq 0 ]
	[[ $stderr == *"zt-symbolize: '$BATS_FILE_TMPDIR/libwork.so': architecture mismatch: the dump is of an x86_64 run, the file is aarch64; its frames are named [libwork.so]"* ]]
	absent 'hot_a' <<< "$output"
}

@test "zt-fold and zt-stat read the aarch64 dump with --sysroot as zt-symbolize's stream" {
	remote_dump
	zt-archive -d progs g.raw > /dev/null
	zt-symbolize --sysroot "$CROSS_ROOT" -d progs remote.raw 2>/dev/null | zt-fold > expect.folded
	run --separate-stderr zt-fold --sysroot "$CROSS_ROOT" -d progs remote.raw
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat expect.folded)" ]
	grep -q 'main;work;hot_b;hot_a 2$' <<< "$output"
	grep -q '^prog;\[truncated\];main;work;hot_b@plt 1$' <<< "$output"
	run --separate-stderr zt-stat --sysroot "$CROSS_ROOT" -d progs remote.raw
	[ "$status" -eq 0 ]
	grep -q 'hot_a' <<< "$output"
}
