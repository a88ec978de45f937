#!/usr/bin/env bats
# zt's samples never meet another owner of SIGPROF (issue 26, item 2). zt
# samples on a real-time signal that has no handler when it starts (the
# highest free one, SIGRTMAX on a fresh process: the dump's "signal");
# SIGPROF and ITIMER_PROF are left wholly to the program. Before, zt took
# SIGPROF: a library constructor that ran before zt's and installed a
# SIGPROF handler with ITIMER_PROF (gperftools' libprofiler, CPUPROFILE)
# lost it, and the program died of SIGPROF (exit 155) with no output. A
# program that installs a handler on zt's signal later gets its own
# signals, and zt moves to another free one, or, when none is left (Go's
# runtime installs a handler on every signal), shares it; the dump and
# zt-collect say which.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > gp.c <<'C'
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	work(600000000UL);
	puts("worked");
	return 3;
}
C
	cat > ownprof.c <<'C'
/* A library whose constructor (run before zt's, as a dependency's is)
 * installs a SIGPROF handler and ITIMER_PROF at 100 Hz. */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

static volatile long ticks;

static void on_prof(int sig)
{
	(void)sig;
	ticks++;
}

__attribute__((constructor)) static void start(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

long own_ticks(void)
{
	return ticks;
}
C
	cat > ownmain.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <time.h>

long own_ticks(void);
static volatile unsigned long sink;

int main(void)
{
	struct sigaction sa;
	struct timespec ts;

	for (unsigned long i = 0; i < 1000000000UL; i++)
		sink += i;
	sigaction(SIGPROF, NULL, &sa);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("SIGPROF handler: %s\n", sa.sa_handler == SIG_DFL ? "SIG_DFL" : "its own");
	printf("ticks %ld cpu-ms %ld\n", own_ticks(), ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	return 0;
}
C
	cat > take.c <<'C'
/* take SIG: burns 0.4 CPU-s, then installs a handler of its own on SIG
 * (SA_SIGINFO), queues itself 100 signals with values 0..99 and counts
 * those its handler got, in order, prints the monotonic time, burns 0.4
 * CPU-s more. take all: the same on every real-time signal from SIGRTMIN
 * up (as Go's runtime installs its handlers), one signal each. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int got[65], inorder = 1;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code != SI_QUEUE || si->si_value.sival_int != got[sig])
		inorder = 0;
	got[sig]++;
}

static long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void burn(long long d)
{
	long long end = ns(CLOCK_PROCESS_CPUTIME_ID) + d;

	while (ns(CLOCK_PROCESS_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static void take(int sig)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
	sigaction(sig, NULL, &old);
	if (old.sa_sigaction != on_sig)
		printf("signal %d: its handler does not read back\n", sig);
}

int main(int argc, char **argv)
{
	int lo, hi, n, want, total = 0;

	if (argc < 2)
		return 2;
	lo = hi = atoi(argv[1]);
	n = 100;
	if (strcmp(argv[1], "all") == 0) {
		lo = SIGRTMIN;
		hi = SIGRTMAX;
		n = 1;
	}
	burn(400000000LL);
	for (int s = lo; s <= hi; s++)
		take(s);
	for (int s = lo; s <= hi; s++)
		for (int i = 0; i < n; i++)
			sigqueue(getpid(), s, (union sigval){ .sival_int = i });
	want = (hi - lo + 1) * n;
	for (int s = lo; s <= hi; s++)
		total += got[s];
	printf("got %d of %d signals, %s\n", total, want, inorder ? "in order" : "NOT in order");
	printf("taken %lld\n", ns(CLOCK_MONOTONIC));
	fflush(stdout);
	burn(400000000LL);
	return 0;
}
C
	cc -O1 -o take take.c
	cc -O1 -shared -fPIC -o libownprof.so ownprof.c
	cc -O1 -o ownmain ownmain.c -L. -lownprof -Wl,-rpath,'$ORIGIN'
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# samples_after FILE NS: samples in dump FILE taken after CLOCK_MONOTONIC NS.
samples_after() {
	local start
	start=$(sed -n 's/^start-ns //p' "$1")
	awk -v f="$2" -v s="$start" '
		/^samples$/ { on = 1; next }
		on && $3 ~ /^@/ { if (s + substr($3, 2) > f) n += $2 }
		END { print n + 0 }' "$1"
}

@test "gperftools' CPU profiler (CPUPROFILE) runs as bare under zt, writes its profile, and zt samples" {
	[ -e /usr/lib/x86_64-linux-gnu/libprofiler.so ] ||
		skip "libgoogle-perftools-dev is not installed (make deps installs it)"
	cc -O1 -o gp gp.c -Wl,--no-as-needed -lprofiler
	local rc=0 bare=0
	CPUPROFILE=bare.prof ./gp > bare.out 2> /dev/null || bare=$?
	CPUPROFILE=zt.prof zt-collect -o gp.raw ./gp > zt.out 2> err || rc=$?
	cat zt.out err
	echo "status $rc, bare $bare"
	[ "$rc" -eq "$bare" ] && [ "$rc" -eq 3 ]
	cmp bare.out zt.out
	echo "its profile: $(wc -c < zt.prof) bytes"
	[ -s zt.prof ]
	grep -qx 'signal [0-9]*' gp.raw
	run ! grep -q '^signal 27$' gp.raw
	# zt's samples against the user time the kernel gave the program once
	# sampling began (gperftools' start-up, before zt's, is not sampled).
	local n user
	n=$(sed -n 's/^samples \([0-9]*\)$/\1/p' gp.raw)
	user=$(sampled_user_of err gp.raw)
	echo "samples $n, user $user s since sampling began (about $user x 997)"
	awk -v n="$n" -v u="$user" 'BEGIN { exit !(n >= u * 997 * 0.85) }'
}

@test "a library constructor's SIGPROF handler and ITIMER_PROF, set before zt's start, keep working" {
	run ./ownmain
	assert_success
	assert_line 'SIGPROF handler: its own'
	local rc=0 ticks ms
	zt-collect -o own.raw ./ownmain > out 2> err || rc=$?
	cat out err
	echo "status $rc"
	[ "$rc" -eq 0 ]
	grep -qx 'SIGPROF handler: its own' out
	# Its own ticks at 100 Hz of its CPU time (the kernel's tick may cut
	# some: half is the bound; a lost handler gives 0 or exit 155).
	read -r ticks ms <<< "$(sed -n 's/^ticks \([0-9]*\) cpu-ms \([0-9]*\)$/\1 \2/p' out)"
	echo "ticks $ticks over $ms ms of CPU time (about $((ms / 10)))"
	[ "$ticks" -ge $((ms / 20)) ]
	[ "$(sed -n 's/^samples \([0-9]*\)$/\1/p' own.raw)" -ge 100 ]
}

@test "a program that installs a handler on zt's signal gets its own signals; zt moves to another and says so" {
	zt-collect -o first.raw ./take all > /dev/null 2>&1
	local sig rc=0 taken late
	sig=$(sed -n 's/^signal \([0-9]*\)$/\1/p' first.raw)
	echo "zt's signal: $sig"
	[ -n "$sig" ] && [ "$sig" -ge 34 ]
	run ./take "$sig"
	assert_line 'got 100 of 100 signals, in order'
	zt-collect -o t.raw ./take "$sig" > out 2> err || rc=$?
	cat out err
	[ "$rc" -eq 0 ]
	grep -qx 'got 100 of 100 signals, in order' out
	grep -qx "signal-taken $sig moved [0-9]*" t.raw
	grep -q "note: the program installed a handler of its own on zt's sampling signal (signal $sig moved [0-9]*)" err
	# Sampling went on, on the new signal: the last 0.4 CPU-s is about 400 periods.
	taken=$(sed -n 's/^taken //p' out)
	late=$(samples_after t.raw "$taken")
	echo "samples after the move: $late (want at least 100)"
	[ "$late" -ge 100 ]
}

@test "a program that takes every real-time signal (as Go's runtime does) gets its own; zt shares its signal and goes on" {
	local rc=0 taken late
	zt-collect -o all.raw ./take all > out 2> err || rc=$?
	cat out err
	[ "$rc" -eq 0 ]
	grep -Eqx 'got (29|30|31|32) of (29|30|31|32) signals, in order' out
	run ! grep -q 'does not read back' out
	grep -qx 'signal-taken [0-9]* shared' all.raw
	grep -q "note: the program installed a handler of its own on zt's sampling signal (signal [0-9]* shared)" err
	taken=$(sed -n 's/^taken //p' out)
	late=$(samples_after all.raw "$taken")
	echo "samples after every signal was taken: $late (want at least 100)"
	[ "$late" -ge 100 ]
}

@test "Go (cgo): its own runtime/pprof CPU profile works under zt, and zt samples Go and C code alike" {
	command -v go > /dev/null || skip "golang-go is not installed (make deps installs it)"
	mkdir -p gosrc
	cat > gosrc/main.go <<'GO'
package main

/*
#include <stdlib.h>
static volatile unsigned long sink;
static void cwork(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
static void cexit(int s) { exit(s); }
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/pprof"
)

var gsink uint64

//go:noinline
func gowork(n uint64) {
	for i := uint64(0); i < n; i++ {
		gsink += i * i
	}
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	gowork(600000000)
	C.cwork(600000000)
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println("done")
	os.Stdout.Sync()
	// Through libc's exit: the Go runtime's own endings are raw exit_group
	// calls, which the collector's exit path never sees (issue 26, item 1).
	C.cexit(0)
}
GO
	(cd gosrc && GO111MODULE=off GOPROXY=off GOFLAGS= GOCACHE="$BATS_FILE_TMPDIR/gocache" \
		GOPATH="$BATS_FILE_TMPDIR/gopath" CGO_ENABLED=1 go build -o ../goprog main.go)
	local rc=0 total gosamples csamples
	zt-collect -o go.raw ./goprog go.pprof > out 2> err || rc=$?
	cat out err
	[ "$rc" -eq 0 ]
	grep -qx done out
	# zt sampled on a real-time signal of its own, which Go's runtime took
	# too (it installs a handler on every signal): moved or shared, said.
	grep -qx 'signal [0-9]*' go.raw
	grep -Eqx 'signal-taken [0-9]+ (moved [0-9]+|shared)' go.raw
	run ! grep -q 'uses SIGPROF itself' err
	# Go's profile: read back by go tool pprof, with the Go function in it.
	go tool pprof -top goprog go.pprof > top 2>&1 || { cat top; return 1; }
	grep -q 'main.gowork' top
	# zt's samples: Go code and C code, each about half of the run (their
	# CPU time is alike); a third is the bound.
	zt-symbolize go.raw | zt-fold > go.folded
	total=$(awk '{ s += $NF } END { print s + 0 }' go.folded)
	gosamples=$(awk '/;main\.gowork / { s += $NF } END { print s + 0 }' go.folded)
	csamples=$(awk '/Cfunc_cwork / { s += $NF } END { print s + 0 }' go.folded)
	echo "samples $total: Go $gosamples, C $csamples"
	[ "$gosamples" -ge $((total / 3)) ] && [ "$csamples" -ge $((total / 3)) ]
}
