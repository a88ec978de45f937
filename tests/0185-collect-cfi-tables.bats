#!/usr/bin/env bats
# The unwind rows collect/cfi.c compiles from .eh_frame (printed by
# tests/cfidump) agree with readelf's own interpretation of the same CFI
# (--debug-dump=frames-interp) at every row readelf prints: the CFA rule,
# and whether rbp is saved and where. Rows whose rule zt does not follow (an
# expression other than the PLT's or a signal frame's, another register)
# are counted apart; there must be none that disagree.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# compare FILE: prints "rows N matched N unmodelled N mismatches N" and the
# first mismatches; fails unless none disagree and 99% match.
compare() {
	readelf --debug-dump=frames-interp "$1" > readelf.out 2>/dev/null
	"$ZT_TOP/tests/cfidump" "$1" > ours.out
	python3 - readelf.out ours.out <<'PY'
import bisect, re, sys
ours_pc, ours = [], []
for line in open(sys.argv[2]):
    if not line.startswith('#'):
        f = line.split()
        ours_pc.append(int(f[0], 16))
        ours.append(f[1:])
rows = matched = unmodelled = 0
bad = []
cols, in_fde = None, False
for line in open(sys.argv[1]):
    f = re.sub(r' \(', '(', line).split()	# "r10 (r10)" is one column
    if len(f) > 3 and f[3] in ('FDE', 'CIE'):
        cols, in_fde = None, f[3] == 'FDE'	# a CIE's initial rows are not pcs
        continue
    if f and f[0] == 'LOC' and in_fde:
        cols = f
        continue
    if cols is None or len(f) < 3 or not re.fullmatch(r'[0-9a-f]{16}', f[0]):
        continue
    pc = int(f[0], 16)
    rule = dict(zip(cols[1:], f[1:]))
    cfa, ra, rbp = rule['CFA'], rule.get('ra', 'u'), rule.get('rbp', 'u')
    rows += 1
    i = bisect.bisect_right(ours_pc, pc) - 1
    o = ours[i] if i >= 0 else ['none']
    kind = re.match(r'[a-z]+', o[0]).group()
    orbp = o[-1][4:] if o[-1].startswith('rbp=') else None
    if ra == 'u':
        ok = kind == 'end'
    elif kind in ('signal', 'plt'):
        ok = cfa == 'exp'
    elif kind == 'bad':	# fine only where the rule is one zt does not follow
        ok = None if cfa == 'exp' or ra != 'c-8' or \
            not re.fullmatch(r'r[sb]p[+-]\d+', cfa) else False
    elif ra != 'c-8':
        ok = False
    else:
        want = 'same' if rbp in ('u', 's') else \
            rbp if re.fullmatch(r'c[+-]\d+', rbp) else 'lost'
        ok = o[0] == cfa and orbp == want
    if ok is None:
        unmodelled += 1
    elif ok:
        matched += 1
    else:
        bad.append('%x readelf %s ra %s rbp %s, ours %s' % (pc, cfa, ra, rbp, ' '.join(o)))
print('rows %d matched %d unmodelled %d mismatches %d' % (rows, matched, unmodelled, len(bad)))
for b in bad[:10]:
    print('mismatch at', b)
sys.exit(0 if rows > 0 and not bad and matched * 100 >= rows * 99 else 1)
PY
}

@test "cfidump's rows for libc agree with readelf's" {
	run compare /lib/x86_64-linux-gnu/libc.so.6
	echo "$output"
	assert_success
	assert_output --regexp '^rows [0-9]{5,} matched'
	# __restore_rt, from an 'S' CIE
	run grep -c ' signal$' ours.out
	assert_output 1
}

@test "cfidump's rows for ld.so agree with readelf's, the CFA kept in rbx too" {
	run compare /lib64/ld-linux-x86-64.so.2
	echo "$output"
	assert_success
	assert_output --regexp '^rows [0-9]{4,} matched'
	# _dl_runtime_resolve realigns rsp and keeps its CFA in rbx
	run grep -c ' rbx+[0-9]* ' ours.out
	[ "$output" -ge 1 ]
}

@test "cfidump's rows for python3.11 agree with readelf's" {
	run compare /usr/bin/python3.11
	echo "$output"
	assert_success
	assert_output --regexp '^rows [0-9]{5,} matched'
}

@test "cfidump's rows for a program built here agree with readelf's" {
	cat > p.c <<'EOF'
#include <stdio.h>
#include <string.h>
static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int n)
{
	char buf[256];
	int s = 0;

	memset(buf, n, sizeof buf);
	for (int i = 0; i < n; i++)
		s += leaf(buf[i % 256]);
	return s;
}
__attribute__((noinline)) int with_alloca(int n)
{
	char *p = __builtin_alloca(n);

	memset(p, 1, n);
	return p[n / 2] + mid(n);
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", with_alloca(argc * 100));
	return 0;
}
EOF
	gcc -O2 -o p p.c
	run compare ./p
	echo "$output"
	assert_success
	assert_output --partial 'unmodelled 0 mismatches 0'
	# The PLT's expression, an rbp-based CFA (alloca), _start's end.
	grep -q ' plt+8 plt>=11 ' ours.out
	grep -q ' rbp+16 rbp=c-16$' ours.out
	grep -q ' end$' ours.out
}

@test "cfidump refuses what is not an ELF file with eh_frame" {
	printf 'not elf' > x
	run "$ZT_TOP/tests/cfidump" x
	assert_failure 1
	run "$ZT_TOP/tests/cfidump"
	assert_failure 2
}
