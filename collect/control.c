/*
 * control.c — sampling windows for programs that do not end: sampling
 * turned on and off while the program runs, and snapshots, each a whole
 * dump of what was sampled since the one before (FILE.1, FILE.2, ...;
 * the end's dump FILE holds what came after the last).
 *
 * Sampling held ("paused") keeps every thread's timer running and makes
 * the handler record nothing (prof.c checks zt_state.paused, then sets
 * busy, then checks again: whoever holds sampling sets the flag and then
 * waits for busy, as the end does). A snapshot holds sampling, flushes
 * every thread's buffer into the dump in progress, finishes it as the end
 * would (dump.c) under the name FILE.N, and opens the next dump on the
 * same time origin; sampling then goes on as it was. The samples of the
 * time this takes are not taken (9 to 50 ms of wall-clock time between
 * two snapshots' samples, measured on a loaded machine).
 *
 * The channel, made only when asked for (--paused sets ZT_PAUSED=1,
 * --control or the user ZT_CONTROL=1): a unix stream socket PID.sock in
 * a directory of the user's own, mode 0700 ($XDG_RUNTIME_DIR/zt, else
 * /tmp/zt-UID), bound through a descriptor of the directory once it was
 * checked, and served by one thread of zt's that blocks every signal the
 * program could send (never chosen for a process-wide signal, never
 * interrupting the program's threads), takes one connection at a time and
 * answers a peer of another user (SO_PEERCRED) with a refusal. Its
 * descriptors are zt's (files.c): moved high, close-on-exec, checked before
 * use; a listening socket the program closed (closefrom) is made again. A
 * forked child's copies are closed; with -f (a dump of its own) it gets a
 * socket and a thread of its own, CHILDPID.sock, its windows starting as
 * the command line said. A seccomp filter ends the channel before it goes in.
 *
 * The protocol: one line, "start", "stop" or "snapshot", and one line
 * back, "ok TEXT" or "error TEXT" (zt-ctl prints TEXT).
 */
#include "control.h"
#include "arch.h"
#include "dump.h"
#include "files.h"
#include "fmt.h"
#include "snapshot.h"
#include "store.h"
#include "offcpu.h"
#include "ctl.h"
#include "launch.h"
#include "rawfmt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* One action at a time: the channel's thread and the program's API calls. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile pid_t lock_owner;	/* the thread holding it, for the end */
static volatile int ending;	/* zt_control_end ran: no action starts */
static int parsed;		/* ZT_PAUSED and ZT_CONTROL were read */
static int want_channel;
static struct zt_owned dir = { -1, 0, 0, 0 };	/* the socket's directory */
static char sock_name[32];	/* PID.sock */
static pthread_t server;
static volatile int server_running;
static volatile int channel_closed;	/* a seccomp filter, or the end, closed it */
static pid_t channel_pid;	/* the process that made the channel */

static void channel_start(void);

static void take(void)
{
	pthread_mutex_lock(&lock);
	lock_owner = zt_sys_gettid();
}

static void give(void)
{
	lock_owner = 0;
	pthread_mutex_unlock(&lock);
}

/* Whether an action may run now: zt samples this process and is not ending. */
static int usable(void)
{
	return !ending && zt_state_owner() && __atomic_load_n(&zt_state.active, __ATOMIC_ACQUIRE);
}

/* The process's user and system time now. */
static void times_now(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		*user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
			(uint64_t)ru.ru_utime.tv_usec * 1000u;
		*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
		       (uint64_t)ru.ru_stime.tv_usec * 1000u;
	}
}

/* Open a window (the lock is held). */
static void window_open(void)
{
	if (!zt_state.paused)
		return;
	zt_state.window_cpu0 = zt_sys_cpu_ns();
	zt_state.window_wall0 = zt_sys_clock_ns(CLOCK_MONOTONIC);
	times_now(&zt_state.window_user0, &zt_state.window_sys0);
	zt_state.windows++;
	__atomic_store_n(&zt_state.paused, 0, __ATOMIC_SEQ_CST);
}

/* Close the open window (the lock is held); handlers in flight may finish. */
static void window_close(void)
{
	int64_t cpu;
	uint64_t user, sys;

	if (zt_state.paused)
		return;
	__atomic_store_n(&zt_state.paused, 1, __ATOMIC_SEQ_CST);
	cpu = zt_sys_cpu_ns();
	if (cpu > zt_state.window_cpu0)
		zt_state.window_cpu_ns += (uint64_t)(cpu - zt_state.window_cpu0);
	times_now(&user, &sys);
	zt_state.window_user_ns += user > zt_state.window_user0 ? user - zt_state.window_user0 : 0;
	zt_state.window_sys_ns += sys > zt_state.window_sys0 ? sys - zt_state.window_sys0 : 0;
	zt_state.window_wall_ns += zt_sys_clock_ns(CLOCK_MONOTONIC) - zt_state.window_wall0;
}

void zt_control_begin(void)
{
	if (!parsed) {
		const char *p = getenv(ZT_ENV_PAUSED), *c = getenv(ZT_ENV_CONTROL);

		parsed = 1;
		zt_state.start_paused = p && strcmp(p, ZT_ENV_ON) == 0;
		want_channel = zt_state.start_paused || (c && strcmp(c, ZT_ENV_ON) == 0);
		if (want_channel)
			zt_state.control = 1;
	}
	zt_state.windows = zt_state.start_paused ? 0 : 1;
	zt_state.window_cpu_ns = zt_state.window_wall_ns = 0;
	zt_state.window_user_ns = zt_state.window_sys_ns = 0;
	zt_state.window_cpu0 = zt_state.cpu_start_ns ? zt_state.cpu_start_ns : zt_sys_cpu_ns();
	zt_state.window_wall0 = zt_sys_clock_ns(CLOCK_MONOTONIC);
	zt_state.window_user0 = zt_state.user_start_ns;
	zt_state.window_sys0 = zt_state.sys_start_ns;
	zt_state.snapshot = 0;
	zt_state.snapshots = 0;
	__atomic_store_n(&zt_state.paused, zt_state.start_paused, __ATOMIC_SEQ_CST);
	/* An exec that failed ended the channel with the dump: this image goes on. */
	if (ending && channel_pid == getpid()) {
		ending = 0;
		channel_closed = 0;
		if (!__atomic_load_n(&server_running, __ATOMIC_ACQUIRE))
			channel_start();
	}
}

/*
 * Take every thread's buffer from it while sampling is held, and write it
 * to the dump in progress. A thread is claimed as the end claims it (its
 * "closed" flag) so that its own exit does not flush the same buffer at
 * the same time; one that exits meanwhile finds it claimed and leaves its
 * buffer to this.
 */
static void flush_all(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (!zt_store_claim(t))
			continue;
		zt_store_flush(t);
		if (__atomic_load_n(&t->live, __ATOMIC_ACQUIRE))
			__atomic_store_n(&t->closed, 0, __ATOMIC_SEQ_CST);
	}
}

/* The counts that are each dump's own start again for the next one. */
static void next_dump_counts(void)
{
	struct rusage ru;

	zt_state.samples = 0;
	memset((void *)zt_state.lost, 0, sizeof zt_state.lost);
	zt_state.truncated = 0;
	zt_state.partial = 0;
	zt_state.write_errno = 0;
	zt_state.windows = 0;
	zt_state.window_cpu_ns = zt_state.window_wall_ns = 0;
	zt_state.window_user_ns = zt_state.window_sys_ns = 0;
	zt_state.cpu_start_ns = zt_sys_cpu_ns();
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		zt_state.user_start_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
					 (uint64_t)ru.ru_utime.tv_usec * 1000u;
		zt_state.sys_start_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
					(uint64_t)ru.ru_stime.tv_usec * 1000u;
	}
}

/*
 * Write snapshot N (the lock is held). Its path into path; its samples
 * into *samples. 0, or an errno.
 */
static int snapshot_locked(char *path, size_t cap, uint64_t *samples)
{
	int was_on = !zt_state.paused, err;
	size_t len = strlen(zt_state.out);
	unsigned n = zt_state.snapshots + 1;
	char *p;

	if (len + 16 > cap)
		return ENAMETOOLONG;
	memcpy(path, zt_state.out, len);
	p = path + len;
	*p++ = '.';
	*zt_fmt_u64(p, n, 10) = '\0';
	window_close();
	flush_all();
	zt_offcpu_flush();
	*samples = zt_state.samples;
	zt_state.snapshot = n;
	err = zt_dump_snapshot(path);
	zt_state.snapshot = 0;
	if (!err)
		zt_state.snapshots = n;
	next_dump_counts();
	zt_offcpu_next_dump();
	if (zt_dump_reopen() < 0 && !err)
		err = errno ? errno : EIO;
	zt_snap_take();
	if (was_on)
		window_open();
	return err;
}

int zt_control_start(void)
{
	int rc = -1;

	take();
	if (usable()) {
		zt_state.control = 1;
		window_open();
		rc = 0;
	}
	give();
	return rc;
}

int zt_control_stop(void)
{
	int rc = -1;

	take();
	if (usable()) {
		zt_state.control = 1;
		window_close();
		rc = 0;
	}
	give();
	return rc;
}

int zt_control_snapshot(void)
{
	char path[sizeof zt_state.out + 16];
	uint64_t samples;
	int rc = -1;

	take();
	if (usable()) {
		zt_state.control = 1;
		if (snapshot_locked(path, sizeof path, &samples) == 0)
			rc = (int)zt_state.snapshots;
	}
	give();
	return rc;
}

/* The channel. */

static void reply(struct zt_owned *c, const char *s)
{
	size_t n = strlen(s);

	if (zt_files_ok(c))
		send(c->fd, s, n, MSG_NOSIGNAL);
}

/* "N" into buf, for replies. */
static const char *num(char *buf, uint64_t v)
{
	*zt_fmt_u64(buf, v, 10) = '\0';
	return buf;
}

/* One client: check who it is, read its line, act, answer. */
static void serve_one(int fd)
{
	struct zt_owned c;
	struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
	socklen_t len = sizeof cred;
	struct timeval tv = { 2, 0 };
	char line[64], msg[sizeof zt_state.out + 160], n1[24], n2[24];
	size_t got = 0;

	if (zt_files_own(&c, fd) < 0)
		return;
	setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (getsockopt(c.fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.uid != geteuid()) {
		snprintf(msg, sizeof msg, "error refused: uid %u may not control this "
			 "process (only its own user, uid %u, may)\n",
			 (unsigned)cred.uid, (unsigned)geteuid());
		reply(&c, msg);
		zt_files_close(&c);
		return;
	}
	while (got < sizeof line - 1) {
		ssize_t r = zt_files_ok(&c) ? recv(c.fd, line + got, sizeof line - 1 - got, 0) : -1;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (memchr(line, '\n', got))
			break;
	}
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strcmp(line, "start") == 0 || strcmp(line, "stop") == 0) {
		int on = line[2] == 'a', was;

		take();
		was = !zt_state.paused;
		if (!usable()) {
			snprintf(msg, sizeof msg, "error sampling has ended in this process\n");
		} else {
			zt_state.control = 1;
			if (on)
				window_open();
			else
				window_close();
			snprintf(msg, sizeof msg, "ok sampling %s%s\n", on ? "on" : "off",
				 was == on ? " (it was already)" : "");
		}
		give();
	} else if (strcmp(line, "snapshot") == 0) {
		char path[sizeof zt_state.out + 16];
		uint64_t samples = 0;
		int err;

		take();
		if (!usable()) {
			snprintf(msg, sizeof msg, "error sampling has ended in this process\n");
		} else {
			zt_state.control = 1;
			err = snapshot_locked(path, sizeof path, &samples);
			if (err)
				snprintf(msg, sizeof msg, "error cannot write the snapshot '%s': %s\n",
					 path, strerror(err));
			else
				snprintf(msg, sizeof msg, "ok wrote '%s' (snapshot %s, %s samples; "
					 "sampling is %s)\n", path, num(n1, zt_state.snapshots),
					 num(n2, samples), zt_state.paused ? "off" : "on");
		}
		give();
	} else {
		snprintf(msg, sizeof msg, "error unknown request '%.40s'\n", line);
	}
	reply(&c, msg);
	zt_files_close(&c);
}

/*
 * The socket's directory at path, checked: a directory (not a link) of
 * this user's, mode 0700, made when missing. Its descriptor, kept in dir.
 */
static int open_dir_at(const char *path)
{
	struct stat st;
	int fd;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		zt_sys_close(fd);	/* another user's, or open to others: not used */
		errno = EPERM;
		return -1;
	}
	return zt_files_own(&dir, fd);
}

/* $XDG_RUNTIME_DIR/zt, else (or when that cannot be had) /tmp/zt-UID. */
static int open_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char path[4096];

	if (zt_files_ok(&dir))
		return dir.fd;
	if (xdg && xdg[0] == '/' && strlen(xdg) + 4 < sizeof path) {
		snprintf(path, sizeof path, "%s/" ZT_CTL_XDG_DIR, xdg);
		if (open_dir_at(path) >= 0)
			return dir.fd;
	}
	snprintf(path, sizeof path, ZT_CTL_TMP_DIR "%u", (unsigned)geteuid());
	return open_dir_at(path);
}

/* The listening socket, made (again) and bound as PID.sock in the directory. */
static int listen_socket(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int d = open_dir(), s;
	char *p;

	if (d < 0)
		return -1;
	p = zt_fmt_u64(sock_name, (uint64_t)getpid(), 10);
	memcpy(p, ZT_CTL_SUFFIX, sizeof ZT_CTL_SUFFIX);
	/* A socket left by an earlier image of this pid (exec), or by one that died. */
	if (fstatat(d, sock_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode))
		unlinkat(d, sock_name, 0);
	snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/%s", d, sock_name);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 8) < 0) {
		zt_sys_close(s);
		return -1;
	}
	return zt_files_own(&zt_state.control_fd, s);
}

static void *serve(void *arg)
{
	int failures = 0;

	(void)arg;
	__atomic_store_n(&zt_state.control_tid, zt_sys_gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&channel_closed, __ATOMIC_ACQUIRE)) {
		int fd;

		if (!zt_files_ok(&zt_state.control_fd)) {
			int made;

			/*
			 * The program closed it (closefrom): made again, under
			 * the lock that fork_prepare takes, so that a fork in
			 * the middle cannot give the child a socket (or
			 * directory) its fork handler does not know to close.
			 */
			take();
			zt_state.control_fd.fd = -1;
			made = !__atomic_load_n(&channel_closed, __ATOMIC_ACQUIRE) &&
			       listen_socket() >= 0;
			give();
			if (!made)
				break;
		}
		fd = accept4(zt_state.control_fd.fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			struct timespec pause = { 0, 100000000 };

			/* Shut down by the end: the loop ends. Closed by the
			 * program: made again. Out of descriptors: later. */
			if (errno != EINTR && errno != ECONNABORTED &&
			    zt_files_ok(&zt_state.control_fd) && ++failures > 100)
				break;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				nanosleep(&pause, NULL);
			continue;
		}
		failures = 0;
		if (__atomic_load_n(&channel_closed, __ATOMIC_ACQUIRE)) {
			zt_sys_close(fd);
			break;
		}
		serve_one(fd);
	}
	__atomic_store_n(&server_running, 0, __ATOMIC_RELEASE);
	return NULL;
}

/* The child has its parent's lock as it was, and a copy of its socket. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	memcpy(&lock, &fresh, sizeof lock);
	lock_owner = 0;
	zt_files_close(&zt_state.control_fd);	/* the child's copy only */
	zt_files_close(&dir);
	server_running = 0;
	zt_state.control_tid = 0;
	channel_closed = 1;
	/*
	 * A child with a dump of its own (-f: thread.c's fork handler, which
	 * runs before this one, began it) gets a channel of its own, at its
	 * own pid, as the parent has at its: a prefork server's workers are
	 * each started, stopped and snapshotted by their pid. A child without
	 * a dump (not followed) has nothing to serve.
	 */
	if (want_channel && zt_state_owner() && zt_state.seccomp == ZT_SECCOMP_NONE) {
		ending = 0;
		channel_closed = 0;
		channel_start();
	}
}

/* Start the channel: its socket and its thread. */
static void channel_start(void)
{
	static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	sigset_t all, old;

	if (!real_create)
		*(void **)&real_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!real_create || listen_socket() < 0) {
		zt_files_status(ZT_STATUS_CONTROL_FAILED, errno, 0);
		return;
	}
	/*
	 * Every signal blocked in the thread, so that none the program sends
	 * to the process lands there; but glibc's own two (cancellation, and
	 * the set*id broadcast every thread must take part in).
	 */
	sigfillset(&all);
	sigdelset(&all, 32);
	sigdelset(&all, 33);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, sizeof(uint64_t));
	__atomic_store_n(&server_running, 1, __ATOMIC_RELEASE);
	channel_pid = getpid();
	if (real_create(&server, NULL, serve, NULL) != 0) {
		server_running = 0;
		zt_files_close(&zt_state.control_fd);
		if (zt_files_ok(&dir))
			unlinkat(dir.fd, sock_name, 0);
		zt_files_status(ZT_STATUS_CONTROL_FAILED, EAGAIN, 0);
	} else {
		pthread_setname_np(server, "zt-control");
		pthread_detach(server);
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(uint64_t));
}

/* The summary's windows and snapshots, with a control channel or the API. */
static void put_summary(int fd)
{
	if (zt_state.control) {
		uint64_t wall = zt_state.window_wall_ns;

		if (!zt_state.paused)
			wall += zt_sys_clock_ns(CLOCK_MONOTONIC) - zt_state.window_wall0;
		zt_dump_put_key(fd, ZT_RAW_WINDOWS, zt_state.windows);
		zt_dump_put_key(fd, ZT_RAW_WINDOW_NS, wall);
		if (zt_state.snapshot)
			zt_dump_put_key(fd, ZT_RAW_SNAPSHOT, zt_state.snapshot);
		else
			zt_dump_put_key(fd, ZT_RAW_SNAPSHOTS, zt_state.snapshots);
	}
}

void zt_control_init(void)
{
	static const struct zt_dump_part part = { .put_summary = put_summary };

	zt_dump_register(&part);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (want_channel && zt_state_owner() && zt_state.seccomp == ZT_SECCOMP_NONE)
		channel_start();
}

/* Wait until the channel's thread is gone, at most about a second (its
 * client may be slow to speak: it has two seconds). */
static void channel_wait(void)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 2500 && __atomic_load_n(&server_running, __ATOMIC_ACQUIRE); i++)
		nanosleep(&ms, NULL);
}

void zt_control_close_channel(int join)
{
	__atomic_store_n(&channel_closed, 1, __ATOMIC_SEQ_CST);
	if (zt_files_ok(&zt_state.control_fd)) {
		shutdown(zt_state.control_fd.fd, SHUT_RDWR);
		if (zt_files_ok(&dir))
			unlinkat(dir.fd, sock_name, 0);
	}
	if (join)
		channel_wait();
	zt_files_close(&zt_state.control_fd);
	zt_files_close(&dir);
}

void zt_control_end(int join)
{
	struct timespec ms = { 0, 1000000 };
	int locked = 0;

	if (__atomic_exchange_n(&ending, 1, __ATOMIC_SEQ_CST))
		return;
	/* An action in progress (a snapshot) finishes first, for up to ten
	 * seconds; not when this thread is the one doing it (a fatal signal
	 * in the middle of it). */
	if (lock_owner != zt_sys_gettid())
		for (int i = 0; i < 10000; i++) {
			if (pthread_mutex_trylock(&lock) == 0) {
				locked = 1;
				break;
			}
			nanosleep(&ms, NULL);
		}
	zt_control_close_channel(join);
	if (locked)
		pthread_mutex_unlock(&lock);
}
