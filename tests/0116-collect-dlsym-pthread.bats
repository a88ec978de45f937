#!/usr/bin/env bats
# A thread started through dlsym(RTLD_NEXT, "pthread_create"), as jemalloc
# starts its background threads (redis): zt's dlsym hands back its own
# wrapper for that name, so the thread is sampled and named like any other.
# Every other lookup goes on to the loader as a tail call, so RTLD_NEXT
# still means "after the caller", not "after zt".

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > bg.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>
volatile unsigned long bg_sink;
double bg_cpu;
__attribute__((noinline)) void bg_spin(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	bg_sink = x;
}
static void *bg_main(void *arg)
{
	struct timespec t;
	pthread_setname_np(pthread_self(), "bg_worker");
	bg_spin((unsigned long)arg);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	bg_cpu = t.tv_sec + t.tv_nsec / 1e9;
	return NULL;
}
/* As jemalloc's background_thread.c finds it. */
int bg_start(pthread_t *th, unsigned long n)
{
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	*(void **)&create = dlsym(RTLD_NEXT, "pthread_create");
	return create ? create(th, NULL, bg_main, (void *)n) : -1;
}
const char *which(void) { return "bg"; }
const char *next_which(void)
{
	const char *(*w)(void);
	*(void **)&w = dlsym(RTLD_NEXT, "which");
	return w ? w() : "none";
}
C
	echo 'const char *which(void) { return "other"; }' > other.c
	cat > main.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
int bg_start(pthread_t *th, unsigned long n);
const char *next_which(void);
extern double bg_cpu;
int main(int argc, char **argv)
{
	pthread_t th;
	if (bg_start(&th, strtoul(argv[1], 0, 10)) != 0)
		return 1;
	pthread_join(th, NULL);
	printf("next which: %s\n%.3f\n", next_which(), bg_cpu);
	return 0;
}
C
	gcc -O1 -fno-omit-frame-pointer -shared -fPIC -o libbg.so bg.c
	gcc -O1 -shared -fPIC -o libother.so other.c
	gcc -O1 -fno-omit-frame-pointer -o main main.c -L. -lbg -Wl,--no-as-needed -lother \
		-Wl,--as-needed -Wl,-rpath,'$ORIGIN' -lpthread
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "dlsym(RTLD_NEXT) from a library still finds the definition after that library" {
	run ./main 1000
	assert_line "next which: other"
	run zt-collect -o n.raw ./main 1000
	assert_line "next which: other"
}

@test "a thread made through dlsym(RTLD_NEXT, \"pthread_create\") is sampled and named" {
	zt-collect -o t.raw ./main 300000000 > t.out 2> t.err
	cat t.out t.err
	cpu=$(sed -n 2p t.out)
	run --separate-stderr zt-symbolize t.raw
	[ "$status" -eq 0 ]
	# Samples of the thread, by its name, in bg_spin.
	n=$(printf '%s\n' "$output" | awk '/^[^ \t#]/ { name = $1; cnt = $(NF - 1) }
		/ bg_spin\+/ && name == "bg_worker" { n += cnt } END { print n + 0 }')
	want=$(awk -v c="$cpu" 'BEGIN { printf "%d", c * 997 * 0.7 }')
	echo "bg_worker's samples in bg_spin: $n; its CPU time $cpu s; at least $want wanted (70% of 997 Hz)"
	[ "$n" -ge "$want" ]
	[ "$want" -ge 100 ]
}
