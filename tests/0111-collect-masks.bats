#!/usr/bin/env bats
# Threads that start with every signal blocked are sampled (issue 18, item
# 1): liblzma creates its workers under a full mask, as thread pools and
# glib do. While the program does not use SIGPROF itself, zt keeps SIGPROF
# out of each thread's real mask and the program keeps seeing the mask it
# set. Per-thread shares are checked against perf's (`perf record -F 997 -e
# cpu-clock --all-user`, one line per sample in `perf script -F
# comm,pid,tid`), within 3 points. A thread zt truly cannot sample (a mask
# set with a raw system call, SIGPROF blocked around the program's own
# handler) is counted with its CPU time.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > masks.c <<'C'
/* Two workers created under a full mask (CPU time 1:2, main 1, each
 * measured by the thread's own CPU clock, so the shares do not depend on
 * the machine's load): each checks that it sees the mask its creator set,
 * through both calls. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 300000000L		/* ns of CPU time */
static volatile unsigned long sink;

static void burn(long units)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000L + ts.tv_nsec < units * UNIT);
}

static int all_blocked(void)
{
	sigset_t a, b;

	pthread_sigmask(SIG_BLOCK, NULL, &a);
	sigprocmask(SIG_BLOCK, NULL, &b);
	return sigismember(&a, SIGPROF) == 1 && sigismember(&a, SIGTERM) == 1 &&
	       sigismember(&b, SIGPROF) == 1 && sigismember(&b, SIGUSR1) == 1;
}

static void *worker(void *p)
{
	long units = (long)p;
	char name[16];

	snprintf(name, sizeof name, "worker-%ld", units);
	pthread_setname_np(pthread_self(), name);
	if (!all_blocked()) {
		printf("%s: the mask it inherited is not full\n", name);
		exit(1);
	}
	burn(units);
	return NULL;
}

int main(void)
{
	sigset_t all, old, back, prof, cur;
	pthread_t a, b;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&a, NULL, worker, (void *)1L);
	pthread_create(&b, NULL, worker, (void *)2L);
	pthread_sigmask(SIG_SETMASK, &old, &back);
	if (sigismember(&back, SIGPROF) != 1 || sigismember(&back, SIGINT) != 1) {
		puts("main: the old mask is not the full one it set");
		return 1;
	}
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	sigprocmask(SIG_UNBLOCK, &prof, &cur);
	if (sigismember(&cur, SIGPROF) != 1) {
		puts("main: SIGPROF blocked by sigprocmask is not reported");
		return 1;
	}
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	if (sigismember(&cur, SIGPROF) != 0) {
		puts("main: SIGPROF unblocked is reported blocked");
		return 1;
	}
	burn(1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("masks as set");
	return 0;
}
C
	cc -O1 -pthread -o masks masks.c
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Share of samples per thread, "ROLE PERCENT" sorted: the main thread (tid
# = pid) is "main", the others go by name (all of xz's are "xz").
zt_shares() {
	zt-symbolize "$1" | awk '/zt-samples:$/ { split($2, id, "/"); r = id[1] == id[2] ? "main" : $1
		n[r] += $(NF-1); t += $(NF-1) }
		END { for (k in n) printf "%s %.2f\n", k, n[k] / t * 100 }' | sort
}
perf_shares() {
	perf script -i "$1" -F comm,pid,tid 2> /dev/null | awk '{ split($2, id, "/")
		r = id[1] == id[2] ? "main" : $1; n[r]++; t++ }
		END { for (k in n) printf "%s %.2f\n", k, n[k] / t * 100 }' | sort
}

# same_shares NAME COMMAND...: COMMAND under zt and under perf, with the same
# output and status, and each thread's share within 3 points of perf's.
same_shares() {
	local name=$1
	shift
	command -v perf > /dev/null || skip "perf is not installed (make deps installs linux-perf)"
	"$@" > "$name.bare" 2>&1 || { cat "$name.bare"; return 1; }
	zt-collect -o "$name.raw" "$@" > "$name.out" 2> "$name.err" || { cat "$name.out" "$name.err"; return 1; }
	cmp "$name.bare" "$name.out"
	perf record -q -F 997 -e cpu-clock --all-user -o "$name.data" "$@" > /dev/null
	zt_shares "$name.raw" > "$name.zt"
	perf_shares "$name.data" > "$name.perf"
	printf '# %s: role zt perf\n' "$name" >&3
	join -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$name.zt" "$name.perf" | tee "$name.both" |
		sed 's/^/# /' >&3
	awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 3) bad = 1 } END { exit bad }' "$name.both"
}

@test "workers created under a full mask are sampled, within 3 points of perf's per-thread shares, and see the mask that was set" {
	same_shares masks "$BATS_FILE_TMPDIR/masks"
	# Main and its workers each have a row.
	[ "$(wc -l < masks.both)" -ge 2 ]
	grep -qx 'masks as set' masks.out
	! grep -q '^sigprof-blocked' masks.raw
}

@test "xz -6 -T2: liblzma's worker, created with every signal blocked, is sampled within 3 points of perf's share" {
	/usr/bin/python3 "$SAMPLES/text.py" part
	cat part part > input
	same_shares xz xz -6 -T2 -k -c input
	# The worker has nearly all the work: it was sampled. (xz's main thread
	# has about 0.02% of it, so neither tool may have a row for it.)
	awk '$1 == "xz" && $2 > 50 { ok = 1 } END { exit !ok }' xz.both
}

# Burns CPU time (ns, by the thread's own clock); shared by the programs below.
burn_c() {
	cat <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void burn(long ns)
{
	struct timespec ts, t0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((ts.tv_sec - t0.tv_sec) * 1000000000L + ts.tv_nsec - t0.tv_nsec < ns);
}
C
}

@test "a thread that blocks every signal with a raw system call is counted with its CPU time: in the dump, on zt-collect's line, in zt-stat's header" {
	{ burn_c; cat <<'C'
int main(void)
{
	unsigned long all = ~0UL;	/* zt's signal among them, whichever it is */

	burn(300000000);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
	burn(600000000);
	return 0;
}
C
	} > raw.c
	cc -O1 -o raw raw.c
	run --separate-stderr zt-collect -o r.raw ./raw
	assert_success
	echo "$stderr"
	grep -qx 'sigprof-blocked 1' r.raw
	ns=$(sed -n 's/^unsampled-cpu-ns \([0-9]*\)$/\1/p' r.raw)
	echo "unsampled $ns ns of 600000000"
	[ "$ns" -ge 450000000 ] && [ "$ns" -le 750000000 ]
	# The one cause that happened: zt's signal blocked (a timer it had).
	[[ $stderr == *" lost, 0."[4-7]*" CPU-s in threads zt could not sample (zt's signal blocked)"* ]]
	zt-symbolize r.raw > r.sym
	run zt-stat r.sym
	assert_line --regexp '^not sampled: 0\.[4-7][0-9]* s of CPU time that no sample covers'
}

# own ORDER: a program with its own SIGPROF handler and ITIMER_PROF, and a
# worker created under a full mask that burns 0.5 s; the handler is
# installed before the worker is created, or after. SIGPROF is the
# program's alone (zt samples on a real-time signal of its own): the
# program's SIGPROF must never run on the worker, its main thread must get
# them, and the worker is sampled all the same.
own_program() {
	{ burn_c; cat <<'C'
static volatile pid_t worker_tid;
static volatile sig_atomic_t on_worker, ticks;

static void on_prof(int sig)
{
	(void)sig;
	if (syscall(SYS_gettid) == worker_tid)
		on_worker = 1;
	ticks++;
}

static void *worker(void *p)
{
	(void)p;
	worker_tid = (pid_t)syscall(SYS_gettid);
	burn(500000000);
	return NULL;
}

static void own_timer(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

int main(int argc, char **argv)
{
	sigset_t all, old;
	pthread_t t;
	int before = argc > 1 && strcmp(argv[1], "before") == 0;

	if (before)
		own_timer();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&t, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!before)
		own_timer();
	burn(500000000);
	pthread_join(t, NULL);
	printf("own handler on the worker: %s, on main: %s\n", on_worker ? "yes" : "no",
	       ticks ? "yes" : "no");
	return on_worker;
}
C
	} > own.c
	cc -O1 -pthread -o own own.c
}

@test "a program that blocks SIGPROF for its own handler keeps that behaviour; the worker it blocks it in is sampled all the same" {
	own_program
	run ./own before
	assert_success
	assert_output 'own handler on the worker: no, on main: yes'
	run --separate-stderr zt-collect -o o.raw ./own before
	assert_success
	assert_output 'own handler on the worker: no, on main: yes'
	run ! grep -q '^program-sigprof\|^sigprof-blocked\|^signal-taken' o.raw
	ns=$(sed -n 's/^unsampled-cpu-ns \([0-9]*\)$/\1/p' o.raw)
	echo "unsampled ${ns:-0} ns of the worker's 500000000"
	[ "${ns:-0}" -le 100000000 ]
	# The worker's samples: its 0.5 CPU-s at 997 Hz is about 500.
	worker=$(awk '/^pid /{ pid = $2 } /^samples$/ { on = 1; next }
		on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $1 != pid { n += $2 } END { print n + 0 }' o.raw)
	echo "worker samples: $worker (about 500)"
	[ "$worker" -ge 300 ]
}

@test "a program that sets its own SIGPROF handler after its worker started with zt hiding SIGPROF still never gets it on the worker" {
	own_program
	for i in 1 2 3; do
		run --separate-stderr zt-collect -o a.raw ./own after
		assert_success
		assert_output 'own handler on the worker: no, on main: yes'
	done
}
