# wall.bash — loaded by tests/074N-075N (the filters on wall-clock
# profiles, raw dump version 5): a wall-clock dump made by hand from a real
# run's addresses, until zt-collect --clock=wall writes one.
#
# wall_setup, in $BATS_FILE_TMPDIR: prog (main computes in hot_a, a thread
# named "waiter" in hot_b), c.raw (its CPU dump, version 4) and w.raw, the
# same samples as version 5: the waiter's samples are off-CPU in
# "futex" (10309278 ns each, a 97 Hz tick), every fifth of main's is
# "waiting for a CPU" (the same tick), the rest of main's are on-CPU
# (1003009 ns each, a 997 Hz period). W_TID and M_TID are the threads' ids.

wall_setup() {
	cd "$BATS_FILE_TMPDIR"
	cat > w.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
static volatile long sink;
static __attribute__((noinline)) void hot_a(long n) { for (long i = 0; i < n; i++) sink += i * 3; }
static __attribute__((noinline)) void hot_b(long n) { for (long i = 0; i < n; i++) sink ^= i; }
static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "waiter");
	hot_b((long)arg);
	return NULL;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000;
	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)(n / 2));
	hot_a(n);
	pthread_join(t, NULL);
	return 0;
}
C
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread -o prog w.c
	zt-collect -o c.raw ./prog 2> /dev/null
	wall_of c.raw > w.raw
}

# The version 5 dump made from version 4 dump $1 (see wall_setup).
wall_of() {
	awk '
	NR == 1 { print "zt-prof 5"; print "profile-clock wall"; print "off-cpu-hz 97"; next }
	/^threads$/ { th = 1; sec = 0; print; next }
	/^samples$/ { sec = 1; print; next }
	/^[a-z]/ && !/^[0-9]/ { if ($0 != "samples") sec = 0 }
	sec && /^[0-9]/ {
		out = $1 " " $2 " " $3
		if ($1 == wtid) {
			out = out " ^10309278 !futex"; off += $2
		} else if (++m % 5 == 0) {
			out = out " ^10309278 !waiting\\040for\\040a\\040CPU"; off += $2
		} else {
			out = out " ^1003009"
		}
		for (i = 4; i <= NF; i++) out = out " " $i
		print out; next
	}
	/^summary$/ { print; print "off-cpu-samples " off; print "off-cpu-repeated 0";
		print "off-cpu-torn 0"; print "sampler-cpu-ns 1000000"; print "wall-ns 900000000"; next }
	{ print }' wtid="$(sed -n 's/^\([0-9]*\) waiter$/\1/p' "$1" | head -1)" "$1"
}
