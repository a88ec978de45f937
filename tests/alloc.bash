# alloc.bash — loaded by tests/077N (the filters on allocation profiles,
# raw dump version 6): a version 6 dump made by hand, with allocation
# samples of known weights, whatever zt-collect --alloc writes, and no run
# of the collector: the filters' tests depend on the format alone.
#
# alloc_setup, in $BATS_FILE_TMPDIR: prog (main calls site_a, site_b, then
# computes in hot; built without PIE, so its functions are where nm says),
# c.raw (a CPU dump of it, version 4, made by hand: one mapping of the
# whole file, 5 samples in hot under main), and, made from it by alloc_of:
#   a.raw   c.raw's CPU samples and these allocation samples, at rate 524288:
#           site_a: 3 x "$a64 ^524320"       1572960 bytes, 24578 objects
#                                            (8192.5 each: 8193, 8192, 8193)
#           site_b: 1 x "$a1048576 ^2097152" 2097152 bytes, 2 objects
#           in use at the end: site_b's block (2097152 bytes, 2 objects)
#           at the peak: one of site_a's (524320, 8193) and site_b's
#   ao.raw  the same allocation samples and no CPU sample ("samples 0")
# ADDR_A, ADDR_B: site_a's and site_b's first addresses ("return address
# - 1" into them), RET_A, RET_B: main's return addresses after each call.

alloc_setup() {
	cd "$BATS_FILE_TMPDIR"
	cat > a.c <<'C'
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) void *site_a(long n) { return malloc(n); }
__attribute__((noinline)) void *site_b(long n) { return malloc(n); }
__attribute__((noinline)) void hot(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(int argc, char **argv)
{
	free(site_a(64));
	free(site_b(1 << 20));
	hot(argc > 1 ? atol(argv[1]) : 30000000);
	return 0;
}
C
	gcc -O1 -g -fno-omit-frame-pointer -no-pie -o prog a.c
	alloc_addrs
	printf 'zt-prof 4\npid 4242\nexe %s/prog\nhz 997\ntimer perf-task-clock\nunwind auto\nstart-ns 1000000000\nmaps @0\n00400000-00406000 r-xp 00000000 00:00 0 %s/prog\nthreads\n4242 prog\nsamples\n4242 3 @1000 %s %s\n4242 2 @2000 %s %s\nsummary\nsamples 5\nlost 0\npartial 0\nend\n' \
		"$PWD" "$PWD" "$HOT" "$RET_H" "$HOT" "$RET_H" > c.raw
	alloc_of c.raw 3 1 > a.raw
	alloc_of c.raw 3 1 | awk '/^samples$/ { s = 1; print; next } /^[a-z]/ { s = 0 }
		s && !/\$/ { next } { print }' | sed 's/^samples [0-9]*$/samples 0/' > ao.raw
}

# The addresses of the allocation stacks, from prog's symbols.
alloc_addrs() {
	sym() { printf '%x' $((0x$(nm prog | awk -v n="$1" '$3 == n { print $1 }') + $2)); }
	ADDR_A=$(sym site_a 3)
	ADDR_B=$(sym site_b 3)
	RET_A=$(sym main 16)
	RET_B=$(sym main 32)
	HOT=$(sym hot 17)
	RET_H=$(sym main 64)
	export ADDR_A ADDR_B RET_A RET_B HOT RET_H
}

# alloc_of DUMP NA NB [RATE]: version 4 dump DUMP as version 6 with NA
# allocations of 64 bytes at site_a, NB of 1 MiB at site_b, site_b's
# block live at the end, one of each at the peak (see alloc_setup), and
# the summary's alloc-* keys.
alloc_of() {
	awk -v na="$2" -v nb="$3" -v rate="${4:-524288}" '
	NR == 1 { print "zt-prof 6"; print "alloc-rate " rate; next }
	/^pid / { t = $2 }
	/^samples$/ && !done { print; done = 1
		a = " " ENVIRON["ADDR_A"] " " ENVIRON["RET_A"]
		b = " " ENVIRON["ADDR_B"] " " ENVIRON["RET_B"]
		for (i = 0; i < na; i++) print t " 1 @" 1000 + i " ^524320 $a64" a
		for (i = 0; i < nb; i++) print t " 1 @" 2000 + i " ^2097152 $a1048576" b
		print t " 1 @2000 ^2097152 $i1048576" b
		print t " 1 @1000 ^524320 $p64" a
		print t " 1 @2000 ^2097152 $p1048576" b
		next }
	/^summary$/ { print; print "alloc-calls 1000"; print "alloc-bytes 1100000"
		print "alloc-samples " na + nb; print "alloc-peak-bytes 2621472"
		print "alloc-peak-ns 2400000000"; print "alloc-inuse-bytes 2097152"; next }
	{ print }' "$1"
}
