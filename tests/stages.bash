# stages.bash — loaded by tests/0304-0309 (every analysis tool reads every
# stage): one program profiled once per file, and its dump at every stage.
#
# In $BATS_FILE_TMPDIR after stages_setup: prog (two hot functions, a
# second thread named "io worker 1", built with -g), p.raw (its dump),
# p.raw.gz, q.raw.gz, p.sym (zt-symbolize's stream), p.lsym (with --lines), p.folded,
# q.raw and q.folded (a second run, for comparisons), arch (zt-archive's
# copy of prog) and moved.raw (p.raw, its binary's path gone).

stages_setup() {
	cd "$BATS_FILE_TMPDIR"
	cat > p.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
static volatile long sink;
static __attribute__((noinline)) void hot_a(long n) { for (long i = 0; i < n; i++) sink += i * 3; }
static __attribute__((noinline)) void hot_b(long n) { for (long i = 0; i < n; i++) sink ^= i; }
static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "io worker 1");
	hot_b((long)arg);
	return NULL;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400000000;
	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)(n / 2));
	hot_a(n);
	pthread_join(t, NULL);
	return 0;
}
C
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread -o prog p.c
	zt-collect -o p.raw ./prog 2> /dev/null
	zt-collect -o q.raw ./prog 250000000 2> /dev/null
	gzip -c p.raw > p.raw.gz
	gzip -c q.raw > q.raw.gz
	zt-symbolize p.raw > p.sym 2> /dev/null
	zt-symbolize --lines p.raw > p.lsym 2> /dev/null
	zt-fold p.sym > p.folded
	zt-symbolize q.raw 2> /dev/null | zt-fold > q.folded
	# The binary's copy kept by build-id, and a dump whose binary is gone.
	zt-archive --dir=arch p.raw > /dev/null
	sed "s|$BATS_FILE_TMPDIR/prog|$BATS_FILE_TMPDIR/gone/prog|g" p.raw > moved.raw
}

# Run "$@" into $1 (a file), failing the test when the command fails.
into() {
	local out=$1
	shift
	"$@" > "$out"
}
