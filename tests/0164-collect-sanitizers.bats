#!/usr/bin/env bats
# Sanitizer builds run (issue 26, item 4). An ASan build checks at start
# that its runtime comes first in the initial library list and aborts
# otherwise; zt-collect reads the program's DT_NEEDED and puts a libasan,
# libubsan, liblsan or libhwasan it names before the collector in
# LD_PRELOAD. A TSan build runs with the collector first (TSan has no such
# check, and its runtime first would run its allocator in a thread before
# TSan set the thread up); TSan wraps zt's handler and defers its signals,
# dropping repeats, so the periods its threads ran without a sample are
# counted lost ("deferred") and the summary says why, never "0 lost".

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > san.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void *work(void *p)
{
	unsigned long n = (unsigned long)p;
	volatile unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i;
	return NULL;
}
int main(void)
{
	pthread_t t;
	char *b = malloc(16);

	pthread_create(&t, NULL, work, (void *)300000000UL);
	work((void *)300000000UL);
	pthread_join(t, NULL);
	b[0] = 1;
	free(b);
	puts("sanitized");
	return 4;
}
C
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# run_san SANITIZER: build san.c with -fsanitize=SANITIZER, run it bare and
# under zt-collect; same output, status 4. Leaves zt's stderr in err.
run_san() {
	gcc -O1 -g -fsanitize="$1" -pthread -o "san-$1" san.c ||
		skip "gcc cannot build with -fsanitize=$1 here"
	local rc=0 bare=0
	"./san-$1" > bare.out 2>&1 || bare=$?
	zt-collect -o "$1.raw" "./san-$1" > out 2> err || rc=$?
	cat out err
	echo "status $rc, bare $bare"
	[ "$bare" -eq 4 ] && [ "$rc" -eq 4 ]
	cmp bare.out out
}

@test "an ASan build runs under zt-collect with its runtime first, as bare, and is sampled" {
	run_san address
	local n user sys
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' address.raw)
	read -r user sys <<< "$(rusage_of err)"
	echo "samples $n, user $user s (about $user x 997; ASan's start is not sampled)"
	awk -v n="$n" -v u="$user" 'BEGIN { exit !(n >= u * 997 * 0.6) }'
}

@test "a TSan build runs under zt-collect; the samples TSan's deferral cost are counted lost, and said" {
	run_san thread
	local n lost user sys
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' thread.raw)
	lost=$(sed -n 's/^lost [0-9]* .*deferred=\([0-9]*\).*$/\1/p' thread.raw)
	read -r user sys <<< "$(rusage_of err)"
	echo "samples $n, lost to deferral ${lost:-none}, user $user s"
	[ -n "$lost" ]
	run ! grep -q ', 0 lost' err
	grep -q "note: the program's ThreadSanitizer runtime defers asynchronous signals" err
	# Samples and lost periods together are the periods the threads ran:
	# about the user time at 997 Hz (TSan's start-up is before sampling).
	awk -v n="$n" -v l="$lost" -v u="$user" \
		'BEGIN { t = n + l; exit !(t >= u * 997 * 0.6 && t <= u * 997 * 1.1) }'
}
