/*
 * ctl.c — one request to a sampled process's control channel, the
 * processes zt-ctl's pid stands for, and zt-collect's alias (ctl.h).
 */
#include "ctl.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/*
 * The places pid's file NAME (pid, then suffix) may be, in order: under our
 * $XDG_RUNTIME_DIR (the process is ours and shares our session), then
 * /tmp/zt-UID for the owner of /proc/PID, then for our own uid (a process
 * that is not dumpable shows root as its owner). Returns how many were
 * written.
 */
static int candidates(pid_t pid, uid_t owner, const char *suffix, char out[][108])
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (xdg && xdg[0] == '/' && owner == geteuid() &&
	    (size_t)snprintf(out[n], 108, "%s/" ZT_CTL_XDG_DIR "/%d%s", xdg, (int)pid,
			     suffix) < 108)
		n++;
	snprintf(out[n++], 108, ZT_CTL_TMP_DIR "%u/%d%s", (unsigned)owner, (int)pid, suffix);
	if (owner != geteuid())
		snprintf(out[n++], 108, ZT_CTL_TMP_DIR "%u/%d%s", (unsigned)geteuid(), (int)pid,
			 suffix);
	return n;
}

/*
 * Process pid's parent, state letter and start time (clock ticks after
 * boot), from /proc/PID/stat. 0, or -1 when there is no such process.
 */
static int proc_stat(pid_t pid, pid_t *ppid, char *state, unsigned long long *start)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd, ppid_i;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* After the name, which may hold anything: "S PPID" ... field 22. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &ppid_i) != 2)
		return -1;
	*ppid = (pid_t)ppid_i;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", start) != 1)
		return -1;
	return 0;
}

/* Whether a process in state s runs (it is neither a zombie nor dead). */
static int runs(char s)
{
	return s != 'Z' && s != 'X' && s != 'x';
}

/*
 * Whether pid's file of that suffix is at one of its places: a socket, or
 * (an alias) a regular file of our own, not a link. Its path into path.
 */
static int find_file(pid_t pid, const char *suffix, int sock, char path[108])
{
	char proc[64], cand[3][108];
	struct stat st;
	int n;

	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0)
		return 0;
	n = candidates(pid, st.st_uid, suffix, cand);
	for (int i = 0; i < n; i++) {
		if (lstat(cand[i], &st) < 0)
			continue;
		if (sock ? S_ISSOCK(st.st_mode) :
			   S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
			memcpy(path, cand[i], 108);
			return 1;
		}
	}
	return 0;
}

int zt_ctl_serves(pid_t pid)
{
	char path[108], state;
	pid_t ppid;
	unsigned long long start;

	return proc_stat(pid, &ppid, &state, &start) == 0 && runs(state) &&
	       find_file(pid, ZT_CTL_SUFFIX, 1, path);
}

/*
 * The program zt-collect pid runs, by its alias (ctl.h), when the alias is
 * there and believed: start is pid's start time. 0 when there is none, or
 * it is stale (another process has the pid now) or names a process that
 * is not pid's child; path is where it was found (untouched if nowhere).
 */
static pid_t alias_program(pid_t pid, unsigned long long start, char path[108])
{
	char buf[64], state;
	unsigned long long astart;
	struct stat st;
	pid_t ppid;
	ssize_t n;
	int fd, program;

	if (!find_file(pid, ZT_CTL_ALIAS_SUFFIX, 0, path))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() ?
	    read(fd, buf, sizeof buf - 1) : -1;
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%d %llu", &program, &astart) != 2 || program < 1 || astart != start)
		return 0;
	if (proc_stat((pid_t)program, &ppid, &state, &astart) < 0 || ppid != pid)
		return 0;
	return (pid_t)program;
}

/* A process of /proc: its pid, its parent and its state. */
struct proc {
	pid_t pid, ppid;
	char state;
};

static int by_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process /proc shows now, in pid order, into *procs; how many. */
static size_t scan_procs(struct proc **procs)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0, cap = 0;

	*procs = NULL;
	while (d && (e = readdir(d))) {
		struct proc p;
		unsigned long long start;

		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    strspn(e->d_name, "0123456789") != strlen(e->d_name))
			continue;
		p.pid = (pid_t)atoi(e->d_name);
		if (proc_stat(p.pid, &p.ppid, &p.state, &start) < 0)
			continue;
		zt_grow(procs, &cap, n + 1, sizeof **procs);
		(*procs)[n++] = p;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(*procs, n, sizeof **procs, by_pid);
	return n;
}

/* Add parent's descendants that serve a channel to *t, depth first. */
static void add_descendants(const struct proc *procs, size_t n, pid_t parent, pid_t collect,
			    size_t depth, struct zt_ctl_target **t, size_t *nt, size_t *cap)
{
	char path[108];

	if (depth > n)		/* a loop of reused pids read at different times */
		return;
	for (size_t i = 0; i < n; i++) {
		if (procs[i].ppid != parent || procs[i].pid == parent)
			continue;
		if (runs(procs[i].state) && find_file(procs[i].pid, ZT_CTL_SUFFIX, 1, path)) {
			zt_grow(t, cap, *nt + 1, sizeof **t);
			(*t)[*nt].pid = procs[i].pid;
			snprintf((*t)[*nt].who, sizeof (*t)[*nt].who, "pid %d (a descendant of "
				 "zt-collect %d's program)", (int)procs[i].pid, (int)collect);
			(*nt)++;
		}
		add_descendants(procs, n, procs[i].pid, collect, depth + 1, t, nt, cap);
	}
}

/* Whether process pid is named zt-collect (only for a message: names are the process's to choose). */
static int named_collect(pid_t pid)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, comm, sizeof comm - 1);
	close(fd);
	if (n <= 0)
		return 0;
	comm[n] = '\0';
	return strcmp(comm, "zt-collect\n") == 0;
}

int zt_ctl_targets(pid_t pid, struct zt_ctl_target **targets, char *err, size_t errlen)
{
	struct zt_ctl_target *t = NULL;
	struct proc *procs;
	size_t n, nt = 0, cap = 0;
	unsigned long long start;
	char sock[108], alias[108], state;
	pid_t ppid, program = 0;
	int served;

	*targets = NULL;
	alias[0] = '\0';
	if (proc_stat(pid, &ppid, &state, &start) < 0) {
		zt_errf(err, errlen, "pid %d: no such process", (int)pid);
		return -1;
	}
	served = find_file(pid, ZT_CTL_SUFFIX, 1, sock);
	if (!served)
		program = alias_program(pid, start, alias);
	if (!program) {
		if (!served && named_collect(pid)) {
			/* zt-collect without a channel: name its program, its child. */
			char child[48] = "";

			n = scan_procs(&procs);
			for (size_t i = 0; i < n && !child[0]; i++)
				if (procs[i].ppid == pid)
					snprintf(child, sizeof child, " (pid %d)", (int)procs[i].pid);
			free(procs);
			if (alias[0])
				zt_errf(err, errlen, "pid %d: zt-collect whose alias '%s' is not "
					"believed (stale, or it names no child of it): give zt-ctl "
					"its program's pid%s", (int)pid, alias, child);
			else
				zt_errf(err, errlen, "pid %d: zt-collect without a control channel: "
					"it was run without --paused or --control (it left no alias "
					"at its pid), so its program%s has none", (int)pid, child);
			return -1;
		}
		t = zt_malloc(sizeof *t);
		t->pid = pid;
		snprintf(t->who, sizeof t->who, "pid %d", (int)pid);
		*targets = t;
		return 1;
	}
	zt_grow(&t, &cap, 1, sizeof *t);
	t[0].pid = program;
	snprintf(t[0].who, sizeof t[0].who, "pid %d (the program of zt-collect %d)",
		 (int)program, (int)pid);
	nt = 1;
	n = scan_procs(&procs);
	add_descendants(procs, n, program, pid, 0, &t, &nt, &cap);
	free(procs);
	*targets = t;
	return (int)nt;
}

int zt_ctl_alias_write(pid_t program, char *path, size_t cap, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char dir[4096], name[64], tmp[80], line[64], state;
	unsigned long long start;
	struct stat st;
	pid_t ppid;
	int d = -1, fd, len, ok;

	if (proc_stat(getpid(), &ppid, &state, &start) < 0) {
		zt_errf(err, errlen, "cannot read '/proc/self/stat': %s", strerror(errno));
		return -1;
	}
	/* The collector's choice (collect/control.c): the first that is usable. */
	for (int i = 0; i < 2 && d < 0; i++) {
		if (i == 0 && !(xdg && xdg[0] == '/' && strlen(xdg) + 4 < sizeof dir))
			continue;
		if (i == 0)
			snprintf(dir, sizeof dir, "%s/" ZT_CTL_XDG_DIR, xdg);
		else
			snprintf(dir, sizeof dir, ZT_CTL_TMP_DIR "%u", (unsigned)geteuid());
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			continue;
		d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d >= 0 && (fstat(d, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
			close(d);
			d = -1;
			errno = EPERM;
		}
	}
	if (d < 0) {
		zt_errf(err, errlen, "cannot write zt-collect's alias in '%s': %s", dir,
			strerror(errno));
		return -1;
	}
	snprintf(name, sizeof name, "%d" ZT_CTL_ALIAS_SUFFIX, (int)getpid());
	snprintf(tmp, sizeof tmp, "%s.tmp", name);
	len = snprintf(line, sizeof line, "%d %llu\n", (int)program, start);
	unlinkat(d, tmp, 0);
	fd = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, line, (size_t)len) == len;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	if (!ok || renameat(d, tmp, d, name) < 0) {
		int e = errno;

		unlinkat(d, tmp, 0);
		close(d);
		zt_errf(err, errlen, "cannot write zt-collect's alias '%s/%s': %s", dir, name,
			strerror(e));
		return -1;
	}
	close(d);
	snprintf(path, cap, "%s/%s", dir, name);
	return 0;
}

/*
 * Connect to the first of t's sockets that answers and is served by t
 * itself (SO_PEERCRED: the process that listens); -1 with err.
 */
static int connect_to(const struct zt_ctl_target *t, char *err, size_t errlen)
{
	char proc[64], path[3][108], state;
	struct stat st;
	int n, denied = -1, refused = -1;
	pid_t pid = t->pid, ppid;
	unsigned long long start;

	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0 || proc_stat(pid, &ppid, &state, &start) < 0) {
		zt_errf(err, errlen, "%s: no such process", t->who);
		return -1;
	}
	if (!runs(state)) {
		zt_errf(err, errlen, "%s: the process has ended (its parent has not reaped it "
			"yet)", t->who);
		return -1;
	}
	n = candidates(pid, st.st_uid, ZT_CTL_SUFFIX, path);
	for (int i = 0; i < n; i++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
		socklen_t len = sizeof cred;
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			zt_errf(err, errlen, "socket: %s", strerror(errno));
			return -1;
		}
		memcpy(a.sun_path, path[i], strlen(path[i]) + 1);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
			/* 0: a listener in another pid namespace, whose pid we cannot see. */
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
			    cred.pid != 0 && cred.pid != pid) {
				zt_errf(err, errlen, "%s: its control socket '%s' is served by "
					"pid %d, not by it (a socket moved or left behind)", t->who,
					path[i], (int)cred.pid);
				close(fd);
				return -1;
			}
			return fd;
		}
		if (errno == EACCES || errno == EPERM)
			denied = i;
		else if (errno == ECONNREFUSED)
			refused = i;
		close(fd);
	}
	if (denied >= 0)
		zt_errf(err, errlen, "%s: cannot reach its control socket '%s': Permission "
			"denied (only the process's own user may control it)", t->who,
			path[denied]);
	else if (refused >= 0)
		zt_errf(err, errlen, "%s: its control socket '%s' is not served any more "
			"(the process ended its sampling, or the socket is stale)", t->who,
			path[refused]);
	else if (strchr(t->who, '('))
		zt_errf(err, errlen, "%s: no zt control channel yet (its collector makes it as "
			"the program starts; zt-collect says at the end why when it could not): "
			"no '%s'", t->who, path[n - 1]);
	else
		zt_errf(err, errlen, "%s: no zt control channel (the process is not "
			"sampled by zt, or was started without 'zt-collect --paused' or "
			"--control): no '%s'", t->who, path[n - 1]);
	return -1;
}

int zt_ctl_request(const struct zt_ctl_target *t, const char *request, char *reply, size_t cap,
		   char *err, size_t errlen)
{
	char buf[8192];
	size_t got = 0, len = strlen(request);
	int fd = connect_to(t, err, errlen), send_errno = 0;
	struct timespec t0, now;

	if (fd < 0)
		return -1;
	/* A refusal may come, and the socket close, before the request is
	 * sent: the answer is read either way. */
	if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) != 1)
		send_errno = errno;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < sizeof buf - 1 && !memchr(buf, '\n', got)) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;
		int pr;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= 60)
			break;
		pr = poll(&p, 1, 1000);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue;
		r = read(fd, buf + got, sizeof buf - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	if (!memchr(buf, '\n', got)) {
		if (send_errno)
			zt_errf(err, errlen, "%s: cannot send the request: %s", t->who,
				strerror(send_errno));
		else
			zt_errf(err, errlen, "%s: no answer from its control channel", t->who);
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, "ok ", 3) == 0 || strncmp(buf, "error ", 6) == 0) {
		int ok = buf[0] == 'o';

		snprintf(reply, cap, "%s", buf + (ok ? 3 : 6));
		return ok ? 0 : 1;
	}
	zt_errf(err, errlen, "%s: an answer zt-ctl does not know: '%.100s'", t->who, buf);
	return -1;
}
