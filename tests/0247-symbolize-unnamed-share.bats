# 0247-symbolize-unnamed-share.bats — the warning about a file without
# symbols gives the share of samples whose innermost frame in it no symbol
# names (where the time in it went), not of samples with any unnamed frame
# in it: a stripped binary whose hot function is named from .dynsym, under
# an unnamed static caller, is named where it matters. Said once per file
# for all inputs.
load helper
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > u.c <<'C'
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) void hot(long n) { for (long i = 0; i < n; i++) sink += i * 3; }
static __attribute__((noinline)) void quiet(long n) { for (long i = 0; i < n; i++) sink ^= i; }
static __attribute__((noinline)) void outer(long n) { hot(n); quiet(n / 3); }
int main(int argc, char **argv) { outer(argc > 1 ? atol(argv[1]) : 300000000); return 0; }
C
	# -rdynamic: hot and main are in .dynsym, which strip keeps; outer and
	# quiet are static, unnamed once stripped.
	gcc -O1 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -rdynamic -o prog u.c
	strip prog
	zt-collect -o a.raw ./prog 2> /dev/null
	zt-collect -o b.raw ./prog 2> /dev/null
}
setup() { cd "$BATS_FILE_TMPDIR"; }

@test "the share is of samples whose innermost frame in the file is unnamed" {
	run --separate-stderr zt-fold a.raw
	assert_success
	# From the folded stacks: samples whose leaf is an unnamed frame of prog.
	want=$(printf '%s\n' "$output" | awk '{ n = $NF; t += n; k = split($1, f, ";")
		if (f[k] ~ /^\[prog\+0x/) u += n } END { printf "%.1f", t ? 100 * u / t : 0 }')
	echo "stderr: $stderr; unnamed leaves: $want%"
	[[ "$stderr" =~ "zt-fold: '$PWD/prog': no symbol for its innermost frame in "([0-9.]+)"% of the samples: those frames are named [prog+0xSTART] by the .eh_frame function that holds them" ]]
	[ "${BASH_REMATCH[1]}" = "$want" ]
	# hot's samples are named: the share is quiet's (a quarter of the
	# work), far from all of them.
	awk -v w="$want" 'BEGIN { exit !(w > 5 && w < 60) }'
}

@test "the warning is said once for a file, whatever the number of dumps" {
	run --separate-stderr zt-stat a.raw b.raw
	assert_success
	echo "$stderr"
	[ "$(grep -c "'$PWD/prog': no symbol for" <<< "$stderr")" -eq 1 ]
	run --separate-stderr zt-flame a.raw b.raw
	[ "$(grep -c "'$PWD/prog': no symbol for" <<< "$stderr")" -eq 1 ]
}
