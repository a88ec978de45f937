#!/usr/bin/env bats
# A program that sandboxes itself with seccomp (issue 17, item 5) is never
# killed by zt's own system calls: a filter that kills or traps on
# perf_event_open leaves the threads created after it unsampled (counted,
# with their CPU time); an allowlist as OpenSSH's sandbox has makes zt stop
# sampling and finish the dump before the filter goes in; a filter inherited
# through exec that kills perf_event_open makes zt use the POSIX timer. The
# filters are written by hand with linux/filter.h. Each program checks its
# own results, and its output and exit status are the same as without zt.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > sc.c <<'C'
/* sc KIND HOW [PROGRAM...]: install a seccomp filter, then work.
 * KIND kill|trap: perf_event_open kills (or traps); then two threads burn.
 *      allow: an allowlist as OpenSSH's sandbox has; everything else kills.
 *      exec: the kill filter, then exec PROGRAM.
 * HOW prctl|seccomp: prctl(PR_SET_SECCOMP) or syscall(SYS_seccomp). */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(SECCOMP_RET_ALLOW)

static struct sock_filter deny_perf[] = {
	LOAD(arch),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	RET(SECCOMP_RET_KILL_PROCESS),
	LOAD(nr),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
	RET(SECCOMP_RET_KILL_PROCESS),	/* [5]: or SECCOMP_RET_TRAP */
	RET(SECCOMP_RET_ALLOW),
};

static struct sock_filter allowlist[] = {
	LOAD(arch),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	RET(SECCOMP_RET_KILL_PROCESS),
	LOAD(nr),
	ALLOW(__NR_read), ALLOW(__NR_write), ALLOW(__NR_exit), ALLOW(__NR_exit_group),
	ALLOW(__NR_rt_sigreturn), ALLOW(__NR_brk), ALLOW(__NR_mmap), ALLOW(__NR_munmap),
	ALLOW(__NR_futex), ALLOW(__NR_clock_gettime), ALLOW(__NR_newfstatat),
	ALLOW(__NR_getpid), ALLOW(__NR_gettid), ALLOW(__NR_rt_sigprocmask),
	RET(SECCOMP_RET_KILL_PROCESS),
};

static void install(struct sock_filter *f, unsigned short n, const char *how)
{
	struct sock_fprog prog = { n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("PR_SET_NO_NEW_PRIVS");
		exit(1);
	}
	if (strcmp(how, "seccomp") == 0 ?
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 :
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
		perror("seccomp");
		exit(1);
	}
}

static void *worker(void *p)
{
	(void)p;
	burn(200000000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc < 3)
		return 2;
	burn(200000000);
	if (strcmp(argv[1], "allow") == 0) {
		install(allowlist, sizeof allowlist / sizeof allowlist[0], argv[2]);
		burn(200000000);
		/* Only write and exit_group from here. */
		if (write(1, "sandboxed\n", 10) != 10)
			return 1;
		return 3;
	}
	if (strcmp(argv[1], "trap") == 0)
		deny_perf[5].k = SECCOMP_RET_TRAP;
	install(deny_perf, sizeof deny_perf / sizeof deny_perf[0], argv[2]);
	if (strcmp(argv[1], "exec") == 0) {
		execvp(argv[3], argv + 3);
		perror("exec");
		return 127;
	}
	if (pthread_create(&a, NULL, worker, NULL) || pthread_create(&b, NULL, worker, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("threads ran under the filter\n");
	return 0;
}
C
	cc -O1 -pthread -o sc sc.c
	cat > threads.c <<'C'
#include <pthread.h>
#include <stdio.h>
static volatile unsigned long sink;
static void *worker(void *p)
{
	for (unsigned long i = 0; i < 600000000; i++)
		sink += i;
	return p;
}
int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("exec'd threads ran");
	return 0;
}
C
	cc -O1 -pthread -o threads threads.c
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# same STATUS OUTPUT ARGS...: sc ARGS exits STATUS with OUTPUT, bare and
# under zt-collect (whose stderr is then in $stderr, the dump in s.raw).
same() {
	local want=$1 out=$2
	shift 2
	run "$BATS_FILE_TMPDIR/sc" "$@"
	[ "$status" -eq "$want" ]
	assert_output "$out"
	run --separate-stderr zt-collect -o s.raw "$BATS_FILE_TMPDIR/sc" "$@"
	echo "$stderr"
	[ "$status" -eq "$want" ]
	assert_output "$out"
	grep -qx end s.raw
}

summary_samples() { sed -n 's/^samples \([0-9][0-9]*\)$/\1/p' "$1"; }

@test "a filter that kills perf_event_open (prctl) does not kill the program; later threads are counted with their CPU time" {
	same 0 'threads ran under the filter' kill prctl
	grep -qx 'seccomp no-new-threads perf_event_open' s.raw
	grep -qx 'unsampled-threads 2' s.raw
	ns=$(sed -n 's/^unsampled-cpu-ns \([0-9]*\)$/\1/p' s.raw)
	[ "$ns" -ge 300000000 ]
	[[ $stderr == *"seccomp filter that would kill zt's perf_event_open system call: threads it created after that were not sampled"* ]]
	[ "$(summary_samples s.raw)" -ge 100 ]
}

@test "a filter that traps perf_event_open (seccomp(2) through syscall) does not kill the program" {
	same 0 'threads ran under the filter' trap seccomp
	grep -qx 'seccomp no-new-threads perf_event_open' s.raw
}

@test "an allowlist sandbox (read, write, exit...) stops sampling before it goes in; the dump is written and says why" {
	for how in prctl seccomp; do
		same 3 sandboxed allow "$how"
		grep -q '^seccomp stopped ' s.raw
		[[ $stderr == *"seccomp filter that would kill zt's "*" system call: sampling stopped there"* ]]
		[ "$(summary_samples s.raw)" -ge 100 ]
	done
}

@test "a filter inherited through exec that kills perf_event_open: zt samples with the POSIX timer" {
	run "$BATS_FILE_TMPDIR/sc" exec prctl "$BATS_FILE_TMPDIR/threads"
	assert_success
	assert_output "exec'd threads ran"
	run --separate-stderr zt-collect -o s.raw "$BATS_FILE_TMPDIR/sc" exec prctl "$BATS_FILE_TMPDIR/threads"
	echo "$stderr"
	assert_success
	assert_output "exec'd threads ran"
	grep -qx 'seccomp posix-timer perf_event_open' s.raw
	grep -qx 'timer posix-cpu' s.raw
	[ "$(summary_samples s.raw)" -ge 50 ]
}
