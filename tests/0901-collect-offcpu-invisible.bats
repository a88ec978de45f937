#!/usr/bin/env bats
# The off-CPU sampler thread of --clock=wall is invisible to the program
# (issue 20, item 1): not in the dump's threads, never handed one of the
# program's signals, restarted in a followed child, gone at the end without
# keeping the process alive or changing its status.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "the sampler is not in the dump's threads, and the program's status is its own" {
	cat > st.c <<'EOF'
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) { usleep(200000); if (argc > 1) abort(); return 3; }
EOF
	gcc -O2 -o st st.c
	run -3 zt-collect --clock=wall -o st.raw ./st
	grep -q ' !clock_nanosleep ' st.raw
	sed -n '/^threads$/,/^summary$/p' st.raw
	! sed -n '/^threads$/,/^summary$/p' st.raw | grep -q zt-offcpu
	run -134 zt-collect --clock=wall -o ab.raw ./st abort
	grep -qx end ab.raw
}

@test "a main thread that ends with pthread_exit: the process ends when its last thread does" {
	cat > pexit.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *w(void *a) { (void)a; usleep(300000); puts("worker done"); return NULL; }
int main(void) { pthread_t t; if (pthread_create(&t, NULL, w, NULL)) return 1; pthread_exit(NULL); }
EOF
	gcc -O2 -pthread -o pexit pexit.c
	run timeout 20 zt-collect --clock=wall -o p.raw ./pexit
	echo "$output"
	assert_success
	assert_line "worker done"
	grep -qx end p.raw
	grep -q ' !clock_nanosleep ' p.raw
}

@test "the program's process-directed signals go to its own threads, never the sampler" {
	cat > sig.c <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile pid_t worker, got;
static volatile int n, wrong;
static void on_usr1(int s) { (void)s; if (syscall(SYS_gettid) != worker) wrong++; n++; }
static void *w(void *a) { (void)a; worker = syscall(SYS_gettid); for (;;) pause(); }
int main(void)
{
	struct sigaction sa; sigset_t set; pthread_t t;
	memset(&sa, 0, sizeof sa); sa.sa_handler = on_usr1; sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL)) return 1;
	if (pthread_create(&t, NULL, w, NULL)) return 1;
	sigemptyset(&set); sigaddset(&set, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL)) return 1;
	while (!worker) usleep(1000);
	usleep(50000);
	for (int i = 0; i < 200; i++) { kill(getpid(), SIGUSR1); usleep(2000); }
	usleep(20000);
	printf("%d signals, %d in another thread\n", n, wrong);
	return 0;
}
EOF
	gcc -O2 -pthread -o sig sig.c
	run zt-collect --clock=wall --off-cpu-hz=997 -o sig.raw ./sig
	echo "$output"
	assert_success
	assert_line --regexp '^[0-9]+ signals, 0 in another thread$'
	grep -q ' !pause ' sig.raw
}

@test "-f: a forked child gets a sampler of its own, the parent keeps its" {
	cat > fk.c <<'EOF'
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	int st; pid_t p = fork();
	if (p < 0) return 1;
	if (p == 0) { usleep(300000); _exit(0); }
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st)) return 1;
	return 0;
}
EOF
	gcc -O2 -o fk fk.c
	run zt-collect -f --clock=wall -o fk.raw ./fk
	echo "$output"
	assert_success
	grep -q ' !wait4 ' fk.raw
	child=$(ls fk.raw.*)
	[ "$(head -1 "$child")" = "zt-prof 5" ]
	grep -q ' !clock_nanosleep ' "$child"
	n=$(awk '/ !clock_nanosleep / { n += $2 } END { print n + 0 }' "$child")
	[ "$n" -ge 15 ]
}

@test "a seccomp filter for every thread, killing a call only the sampler makes, stops it first" {
	cat > sc.c <<'EOF2'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <poll.h>
static void *w(void *a) { (void)a; poll(NULL, 0, 300); return NULL; }
int main(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_nanosleep, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	pthread_t t;
	usleep(200000);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog))
		return 1;
	if (pthread_create(&t, NULL, w, NULL) || pthread_join(t, NULL))
		return 1;
	puts("done");
	return 0;
}
EOF2
	gcc -O2 -pthread -o sc sc.c
	run zt-collect --clock=wall -o sc.raw ./sc
	echo "$output"
	assert_success
	assert_line done
	grep -qx end sc.raw
	# Sampled before the filter.
	grep -q ' !clock_nanosleep ' sc.raw
}
