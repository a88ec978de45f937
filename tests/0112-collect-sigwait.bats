#!/usr/bin/env bats
# A daemon's signal thread blocks every signal and takes them with sigwait,
# sigwaitinfo, sigtimedwait or a signalfd (issue 17, item 5): it must get
# its own signals, never zt's signal (a real-time one), whether it blocked them with
# pthread_sigmask (zt keeps its signal out of the real mask, so the thread is
# also sampled) or with a raw system call (zt's signal then waits, pending:
# the waits never return it and the signalfd never reads it). Each program
# checks what it received; its output and exit status are the same as
# without zt.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > sigd.c <<'C'
/* sigd CALL MASK: the signal thread burns 0.3 s of CPU with every signal
 * blocked (MASK: "pthread" or "raw"), then takes SIGUSR1, SIGUSR2 and
 * SIGTERM, which main sent to the process, in that order, with CALL. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *call, *how;
static volatile unsigned long sink;

static void burn(long ns)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000L + ts.tv_nsec < ns);
}

static void block_all(void)
{
	sigset_t all;
	unsigned long raw = ~0UL;

	sigfillset(&all);
	if (strcmp(how, "raw") == 0)
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &raw, NULL, 8);
	else
		pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* The next signal by CALL; its sender must be this process, by kill. */
static int take(int sfd)
{
	sigset_t all;
	siginfo_t si;
	struct signalfd_siginfo fi;
	struct timespec ts = { 10, 0 };
	int sig = -1;

	sigfillset(&all);
	memset(&si, 0, sizeof si);
	if (strcmp(call, "sigwait") == 0) {
		if (sigwait(&all, &sig) != 0)
			return -1;
		return sig;
	}
	if (strcmp(call, "sigwaitinfo") == 0) {
		sig = sigwaitinfo(&all, &si);
	} else if (strcmp(call, "sigtimedwait") == 0) {
		sig = sigtimedwait(&all, &si, &ts);
	} else {
		if (read(sfd, &fi, sizeof fi) != sizeof fi)
			return -1;
		sig = (int)fi.ssi_signo;
		si.si_code = fi.ssi_code;
		si.si_pid = (pid_t)fi.ssi_pid;
	}
	if (sig > 0 && (si.si_code != SI_USER || si.si_pid != getpid())) {
		printf("signal %d: code %d from pid %d, not kill from this process\n", sig,
		       si.si_code, (int)si.si_pid);
		exit(1);
	}
	return sig;
}

static void *sigthread(void *p)
{
	static const int want[] = { SIGUSR1, SIGUSR2, SIGTERM };
	sigset_t all;
	int sfd = -1;

	(void)p;
	pthread_setname_np(pthread_self(), "sigthread");
	block_all();
	sigfillset(&all);
	if (strcmp(call, "signalfd") == 0 && (sfd = signalfd(-1, &all, SFD_CLOEXEC)) < 0) {
		perror("signalfd");
		exit(1);
	}
	burn(300000000);
	for (int i = 0; i < 3; i++) {
		int sig = take(sfd);

		if (sig != want[i]) {
			printf("%s took signal %d, wanted %d\n", call, sig, want[i]);
			exit(1);
		}
	}
	printf("%s took SIGUSR1, SIGUSR2, SIGTERM\n", call);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3)
		return 2;
	call = argv[1];
	how = argv[2];
	block_all();
	pthread_create(&t, NULL, sigthread, NULL);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	kill(getpid(), SIGTERM);
	pthread_join(t, NULL);
	return 0;
}
C
	cc -O1 -pthread -o sigd sigd.c
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# daemon CALL: both masks, as without zt; with pthread_sigmask the signal
# thread is sampled too.
daemon() {
	local call=$1 how
	for how in pthread raw; do
		run "$BATS_FILE_TMPDIR/sigd" "$call" "$how"
		assert_success
		assert_output "$call took SIGUSR1, SIGUSR2, SIGTERM"
		run --separate-stderr zt-collect -o "$how.raw" "$BATS_FILE_TMPDIR/sigd" "$call" "$how"
		echo "$how: $stderr"
		assert_success
		assert_output "$call took SIGUSR1, SIGUSR2, SIGTERM"
		grep -qx end "$how.raw"
	done
	n=$(zt-symbolize pthread.raw | awk '/zt-samples:$/ && $1 == "sigthread" { n += $(NF-1) }
		END { print n + 0 }')
	echo "signal thread: $n samples"
	[ "$n" -ge 150 ]
}

@test "a signal thread that blocks everything gets its own signals from sigwait, never zt's, and is sampled" {
	daemon sigwait
}

@test "a signal thread that blocks everything gets its own signals from sigwaitinfo, never zt's, and is sampled" {
	daemon sigwaitinfo
}

@test "a signal thread that blocks everything gets its own signals from sigtimedwait, never zt's, and is sampled" {
	daemon sigtimedwait
}

@test "a signal thread that blocks everything gets its own signals from a signalfd, never zt's, and is sampled" {
	daemon signalfd
}

# A thread that blocked every signal with a raw system call has zt's signal
# pending; the temporary mask of each waiting call keeps it blocked, so the
# wait ends as the program asked (its timeout, or its own SIGALRM), never
# early with EINTR.
@test "sigsuspend, pselect, ppoll and epoll_pwait are not ended by zt's pending signal" {
	cat > waits.c <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

int main(int argc, char **argv)
{
	unsigned long all = ~0UL;
	struct timespec ts = { 0, 200000000 }, t0, t1;
	struct sigaction sa;
	sigset_t none;
	int rc = 0, ep;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8);
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i;
	sigemptyset(&none);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (strcmp(argv[1], "sigsuspend") == 0) {
		alarm(1);
		sigsuspend(&none);
		rc = alarmed ? 0 : -1;
	} else if (strcmp(argv[1], "pselect") == 0) {
		rc = pselect(0, NULL, NULL, NULL, &ts, &none);
	} else if (strcmp(argv[1], "ppoll") == 0) {
		rc = ppoll(NULL, 0, &ts, &none);
	} else {
		struct epoll_event ev;

		ep = epoll_create1(0);
		rc = epoll_pwait(ep, &ev, 1, 200, &none);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc != 0) {
		printf("%s ended early: %s\n", argv[1], rc < 0 ? strerror(errno) : "?");
		return 1;
	}
	printf("%s waited as asked\n", argv[1]);
	return 0;
}
C
	cc -O1 -o waits waits.c
	for call in sigsuspend pselect ppoll epoll_pwait; do
		run ./waits "$call"
		assert_success
		assert_output "$call waited as asked"
		run --separate-stderr zt-collect -o w.raw ./waits "$call"
		echo "$stderr"
		assert_success
		assert_output "$call waited as asked"
	done
}
