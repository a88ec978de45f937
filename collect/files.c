/*
 * files.c — the collector's own descriptors, and nothing else.
 *
 * The profiled program owns its descriptor table: a daemon closes every
 * descriptor at start and opens its own files, which then get the numbers
 * zt's were using. So each descriptor zt opens is kept with the identity of
 * what it opened (device and inode), moved to 512 or above out of the way of
 * the program's low numbers, and checked before every use. One that is no
 * longer zt's is never written to, read from or closed: the dump is reopened
 * through the output directory's descriptor (or its path) when it can be,
 * and the loss is counted and reported when it cannot.
 *
 * The status pipe is zt-collect's: it passes its write end in ZT_STATUS_FD
 * (with ZT_STATUS_INO) so that the collector can say what became of the dump
 * (published, or why not) even when the dump itself could not be written.
 *
 * Everything here is async-signal-safe (system calls only).
 */
#include "files.h"
#include "fmt.h"
#include "spill.h"
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
	HIGH_FD = 512,
	MARK_BITS = 1 << 20,	/* marked descriptors are below this (a bitmap) */
};

/*
 * The descriptors that modules above this one hold without a zt_owned
 * record (the off-CPU sampler's /proc files: many, opened and closed as
 * threads come and go), registered with zt_files_mark.
 */
static uint64_t marked[MARK_BITS / 64];

void zt_files_mark(int fd, int on)
{
	if (fd < 0 || fd >= MARK_BITS)
		return;
	if (on)
		__atomic_or_fetch(&marked[fd / 64], (uint64_t)1 << fd % 64, __ATOMIC_RELEASE);
	else
		__atomic_and_fetch(&marked[fd / 64], ~((uint64_t)1 << fd % 64), __ATOMIC_RELEASE);
}

static int is_marked(int fd)
{
	return fd >= 0 && fd < MARK_BITS &&
	       (__atomic_load_n(&marked[fd / 64], __ATOMIC_ACQUIRE) >> fd % 64 & 1);
}

static int list_marked(int *out, int max)
{
	int n = 0;

	for (int i = 0; i < MARK_BITS / 64 && n < max; i++)
		for (uint64_t w = __atomic_load_n(&marked[i], __ATOMIC_ACQUIRE); w && n < max;
		     w &= w - 1)
			out[n++] = i * 64 + __builtin_ctzll(w);
	return n;
}

/* Take fd as zt's: moved high, close-on-exec, identity recorded. */
int zt_files_own(struct zt_owned *o, int fd)
{
	struct stat st;
	int high;

	o->fd = -1;
	if (fd < 0)
		return -1;
	high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (high >= 0) {
		zt_sys_close(fd);
		fd = high;
	}
	if (fstat(fd, &st) < 0 || (o->fl = fcntl(fd, F_GETFL)) < 0) {
		zt_sys_close(fd);
		return -1;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->fd = fd;
	return fd;
}

/*
 * Whether o's descriptor still refers to what zt opened: the same file
 * (device and inode), opened the same way (status flags), and still
 * close-on-exec as zt leaves all its own. (The program would have to open
 * the very file zt opened, with the same flags, and move it onto zt's
 * number to pass for it.)
 */
int zt_files_ok(const struct zt_owned *o)
{
	struct stat st;
	int fd = __atomic_load_n(&o->fd, __ATOMIC_ACQUIRE);

	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino &&
	       fcntl(fd, F_GETFL) == o->fl && fcntl(fd, F_GETFD) == FD_CLOEXEC;
}

/*
 * Whether t's counter descriptor is still t's counter. Every perf, eventfd,
 * epoll, timerfd and signalfd descriptor shares one anonymous inode, so
 * the inode says nothing; the event's id (unique on the system) does.
 */
int zt_files_perf_ok(const struct zt_thread *t)
{
	uint64_t id;
	int fd = t->perf_fd;

	return fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && id == t->perf_id &&
	       fcntl(fd, F_GETFD) == FD_CLOEXEC;
}

/* Close o's descriptor if it is still zt's; forget it either way. */
void zt_files_close(struct zt_owned *o)
{
	if (zt_files_ok(o))
		zt_sys_close(o->fd);
	o->fd = -1;
}

/* The last part of path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * Open name (a file zt made in the output directory) through the directory's
 * descriptor, which stays valid after chdir, chroot or a new mount namespace,
 * or through its path when that descriptor is gone.
 */
int zt_files_open_in_dir(const char *path, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	if (zt_files_ok(&zt_state.dir))
		return openat(zt_state.dir.fd, base_name(path), flags, mode);
	return open(path, flags, mode);
}

int zt_files_unlink_in_dir(const char *path)
{
	if (zt_files_ok(&zt_state.dir))
		return unlinkat(zt_state.dir.fd, base_name(path), 0);
	return unlink(path);
}

int zt_files_rename_in_dir(const char *from, const char *to)
{
	if (zt_files_ok(&zt_state.dir))
		return renameat(zt_state.dir.fd, base_name(from), zt_state.dir.fd, base_name(to));
	return rename(from, to);
}

/* Open the directory of path for the *_in_dir calls. */
void zt_files_dir_open(const char *path)
{
	char dir[sizeof zt_state.out];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	zt_files_close(&zt_state.dir);
	if (!slash) {
		dir[0] = '.', dir[1] = '\0';
	} else if (n == 0) {
		dir[0] = '/', dir[1] = '\0';
	} else {
		if (n >= sizeof dir)
			return;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	zt_files_own(&zt_state.dir, open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC));
}

/*
 * The dump's descriptor, checked; reopened by name when the program closed
 * it (or reused its number). -1 when the dump cannot be written any more.
 */
int zt_files_dump_fd(void)
{
	struct zt_owned n;
	int old = __atomic_load_n(&zt_state.dump.fd, __ATOMIC_ACQUIRE);

	if (old < 0 || __atomic_load_n(&zt_state.fd_lost, __ATOMIC_ACQUIRE))
		return -1;
	if (zt_files_ok(&zt_state.dump))
		return old;
	/* Not ours any more: the file is, if it is still the same file. */
	if (zt_files_own(&n, zt_files_open_in_dir(zt_state.tmp, O_WRONLY | O_APPEND, 0)) < 0 ||
	    n.dev != zt_state.dump.dev || n.ino != zt_state.dump.ino) {
		if (n.fd >= 0)
			zt_sys_close(n.fd);
		__atomic_store_n(&zt_state.fd_lost, 1, __ATOMIC_RELEASE);
		return -1;
	}
	if (!__atomic_compare_exchange_n(&zt_state.dump.fd, &old, n.fd, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		zt_sys_close(n.fd);	/* another thread reopened it first */
		return zt_files_dump_fd();
	}
	__atomic_fetch_add(&zt_state.fd_reopened, 1, __ATOMIC_RELAXED);
	return n.fd;
}

/* Remember the first failed write to the dump. */
void zt_files_write_failed(int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&zt_state.write_errno, &zero, err ? err : EIO, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/*
 * The descriptors zt opened and still holds (the dump's, the sampling
 * counters...), into out[0..max); returns how many.
 */
int zt_files_fds_ours(int *out, int max)
{
	const struct zt_owned *mine[] = { &zt_state.dump, &zt_state.maps, &zt_state.dir,
					  &zt_state.status, &zt_state.maps_now,
					  &zt_state.control_fd, zt_spill_owned() };
	int nt = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;
	int n = 0;

	for (size_t i = 0; i < sizeof mine / sizeof mine[0] && n < max; i++)
		if (zt_files_ok(mine[i]))
			out[n++] = mine[i]->fd;
	for (int i = 0; i < nt && n < max; i++) {
		const struct zt_thread *t = zt_state.threads[i];

		if (t && t->live && zt_files_perf_ok(t))
			out[n++] = t->perf_fd;
	}
	return n + list_marked(out + n, max - n);
}

/* Whether fd is one of zt's. */
int zt_files_fd_is_ours(int fd)
{
	const struct zt_owned *mine[] = { &zt_state.dump, &zt_state.maps, &zt_state.dir,
					  &zt_state.status, &zt_state.maps_now,
					  &zt_state.control_fd, zt_spill_owned() };
	int nt = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	if (fd < 0)
		return 0;
	if (is_marked(fd))
		return 1;
	for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
		if (mine[i]->fd == fd)
			return zt_files_ok(mine[i]);
	for (int i = 0; i < nt; i++) {
		const struct zt_thread *t = zt_state.threads[i];

		if (t && t->live && t->perf_fd == fd && zt_files_perf_ok(t))
			return 1;
	}
	return 0;
}

/* Take a descriptor of zt-collect's from the environment, if it is really there. */
static void take_passed(struct zt_owned *o, const char *fd_name, const char *ino_name, int sock)
{
	const char *fds = getenv(fd_name), *inos = getenv(ino_name);
	struct stat st;
	long fd;

	o->fd = -1;
	if (!fds || !inos)
		return;
	fd = strtol(fds, NULL, 10);
	if (fd < 3 || fd > 1 << 20 || fstat((int)fd, &st) < 0 ||
	    !(sock ? S_ISSOCK(st.st_mode) : S_ISFIFO(st.st_mode)) ||
	    (unsigned long long)st.st_ino != strtoull(inos, NULL, 10))
		return;
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	o->fl = fcntl((int)fd, F_GETFL);
	o->fd = (int)fd;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
}

/*
 * Take zt-collect's status pipe and, with -f, its namer socket and the
 * identity of its PID namespace (ZT_PIDNS, "DEV:INO").
 */
void zt_files_status_init(void)
{
	const char *ns = getenv(ZT_ENV_PIDNS);
	unsigned long long dev, ino;

	take_passed(&zt_state.status, ZT_ENV_STATUS_FD, ZT_ENV_STATUS_INO, 0);
	take_passed(&zt_state.namer, ZT_ENV_NAMER_FD, ZT_ENV_NAMER_INO, 1);
	zt_state.pidns_dev = zt_state.pidns_ino = 0;
	if (ns && sscanf(ns, "%llu:%llu", &dev, &ino) == 2) {
		zt_state.pidns_dev = dev;
		zt_state.pidns_ino = ino;
	}
}

/*
 * Across an exec the new image takes zt-collect's descriptors again
 * (keep), as they were (not): with -f, so that its dump is reported on
 * too. Only descriptors that are still zt-collect's are touched.
 */
void zt_files_keep_on_exec(int keep)
{
	struct zt_owned *own[] = { &zt_state.status, &zt_state.namer };

	for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
		struct stat st;
		int fd = own[i]->fd;

		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == own[i]->dev &&
		    st.st_ino == own[i]->ino)
			fcntl(fd, F_SETFD, keep ? 0 : FD_CLOEXEC);
	}
}

/*
 * The pid zt-collect knows this process by (zt-collect.c, "namer"): its
 * own in zt-collect's PID namespace; in another (a container under -f),
 * the one zt-collect's namer answers, waited for at most two seconds. When
 * there is no answer (zt-collect has ended, or the socket is not zt's any
 * more), its own: its dump may then meet another's name, and is refused
 * as any existing file is. Not in a signal handler: at a process's start.
 */
pid_t zt_files_name_pid(void)
{
	pid_t self = getpid(), named = 0;
	struct stat st;
	int sv[2];
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof ctl };
	struct cmsghdr *c;
	int64_t until;

	if (!zt_state.pidns_ino ||
	    (stat("/proc/self/ns/pid", &st) == 0 && st.st_dev == zt_state.pidns_dev &&
	     st.st_ino == zt_state.pidns_ino))
		return self;
	if (!zt_files_ok(&zt_state.namer) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return self;
	memset(ctl, 0, sizeof ctl);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
	if (sendmsg(zt_state.namer.fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
		char ans[24];
		size_t got = 0;

		zt_sys_close(sv[1]);
		sv[1] = -1;
		until = zt_sys_clock_ns(CLOCK_MONOTONIC) + 2000000000;
		while (got < sizeof ans - 1) {
			int64_t left = (until - zt_sys_clock_ns(CLOCK_MONOTONIC)) / 1000000;
			struct pollfd p = { sv[0], POLLIN, 0 };
			ssize_t n;

			if (left <= 0 || poll(&p, 1, (int)left) == 0)
				break;
			n = read(sv[0], ans + got, sizeof ans - 1 - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
			if (memchr(ans, '\n', got))
				break;
		}
		ans[got] = '\0';
		named = (pid_t)strtol(ans, NULL, 10);
	}
	if (sv[1] >= 0)
		zt_sys_close(sv[1]);
	zt_sys_close(sv[0]);
	return named > 0 ? named : self;
}

/*
 * Write to the status pipe without a SIGPIPE for the program: zt-collect
 * ends with the program, and a descendant that outlives it (a daemon)
 * ends later, when no one reads the pipe. SIGPIPE is blocked for the call,
 * and the one the write raises is taken back, unless one of the program's
 * was already pending (standard signals do not queue: it stays, as it was).
 */
static void status_write(const char *buf, size_t n)
{
	uint64_t pipe_bit = (uint64_t)1 << (SIGPIPE - 1), old, pending = 0;
	struct timespec zero = { 0, 0 };
	long w;

	if (zt_sys_call(SYS_rt_sigprocmask, SIG_BLOCK, (long)&pipe_bit, (long)&old, 8, 0, 0) < 0) {
		(void)!write(zt_state.status.fd, buf, n);
		return;
	}
	zt_sys_call(SYS_rt_sigpending, (long)&pending, 8, 0, 0, 0, 0);
	w = zt_sys_call(SYS_write, zt_state.status.fd, (long)buf, (long)n, 0, 0, 0);
	if (w < 0 && errno == EPIPE && !(pending & pipe_bit))
		zt_sys_call(SYS_rt_sigtimedwait, (long)&pipe_bit, 0, (long)&zero, 8, 0, 0);
	zt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
}

/* The pid of status lines: the one zt-collect knows, once this process has it. */
static pid_t zt_files_status_pid(void)
{
	pid_t self = getpid();

	return self == zt_state.pid && zt_state.name_pid > 0 ? zt_state.name_pid : self;
}

/*
 * One status line for zt-collect: "PID WHAT ERRNO COUNT[ NAME]\n", written
 * at once (shorter than PIPE_BUF), and only if the pipe is still zt's.
 */
static void status_line(const char *what, int err, uint64_t count, const char *name)
{
	char buf[192], *p = buf;
	size_t n = strlen(what);

	if (!zt_files_ok(&zt_state.status) || n > ZT_STATUS_WORD_MAX)
		return;
	p = zt_fmt_u64(p, (uint64_t)zt_files_status_pid(), 10);
	*p++ = ' ';
	memcpy(p, what, n);
	p += n;
	*p++ = ' ';
	p = zt_fmt_u64(p, (uint64_t)(err > 0 ? err : 0), 10);
	*p++ = ' ';
	p = zt_fmt_u64(p, count, 10);
	if (name && *name) {
		*p++ = ' ';
		/* The program names its threads: one word of plain characters. */
		for (size_t i = 0; name[i] && i < 16; i++)
			*p++ = name[i] > ' ' && name[i] < 127 ? name[i] : '?';
	}
	*p++ = '\n';
	status_write(buf, (size_t)(p - buf));
}

void zt_files_status(const char *what, int err, uint64_t count)
{
	status_line(what, err, count, NULL);
}

/*
 * "PID started 0 0 NAME": this process's dump is begun; NAME (its command,
 * as ps shows it) lets zt-collect name it if it ends before the dump does.
 */
void zt_files_status_started(void)
{
	char name[17] = "";

	prctl(PR_GET_NAME, name, 0, 0, 0);
	status_line(ZT_STATUS_STARTED, 0, 0, name);
}

/* The dump's descriptor while its header or its end is written (dump.c). */
static int watched = -1;

void zt_files_watch(int fd)
{
	watched = fd;
}

int zt_files_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (fd == watched)
				zt_files_write_failed(w < 0 ? errno : ENOSPC);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * A text field the program controls (a path, a thread name): control
 * characters and the backslash are written as \ooo, as the kernel writes a
 * newline in /proc/self/maps, so that no name can end a line or start a
 * section.
 */
void zt_files_put_text(int fd, const char *s, size_t n)
{
	char buf[256];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (k + 4 > sizeof buf) {
			zt_files_write_all(fd, buf, k);
			k = 0;
		}
		if (c < 0x20 || c == 0x7f || c == '\\') {
			buf[k++] = '\\';
			buf[k++] = (char)('0' + (c >> 6));
			buf[k++] = (char)('0' + ((c >> 3) & 7));
			buf[k++] = (char)('0' + (c & 7));
		} else {
			buf[k++] = (char)c;
		}
	}
	zt_files_write_all(fd, buf, k);
}

void zt_files_puts(int fd, const char *s)
{
	zt_files_write_all(fd, s, strlen(s));
}
