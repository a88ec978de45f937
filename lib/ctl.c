/*
 * ctl.c — one request to a sampled process's control channel (ctl.h).
 */
#include "ctl.h"
#include "util.h"

#include <errno.h>
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
 * The places pid's socket may be, in order: under our $XDG_RUNTIME_DIR
 * (the process is ours and shares our session), then /tmp/zt-UID for the
 * owner of /proc/PID, then for our own uid (a process that is not
 * dumpable shows root as its owner). Returns how many were written.
 */
static int candidates(pid_t pid, uid_t owner, char out[][108])
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (xdg && xdg[0] == '/' && owner == geteuid() &&
	    (size_t)snprintf(out[n], 108, "%s/" ZT_CTL_XDG_DIR "/%d" ZT_CTL_SUFFIX, xdg,
			     (int)pid) < 108)
		n++;
	snprintf(out[n++], 108, ZT_CTL_TMP_DIR "%u/%d" ZT_CTL_SUFFIX, (unsigned)owner, (int)pid);
	if (owner != geteuid())
		snprintf(out[n++], 108, ZT_CTL_TMP_DIR "%u/%d" ZT_CTL_SUFFIX,
			 (unsigned)geteuid(), (int)pid);
	return n;
}

/* Connect to the first socket of the candidates that answers; -1 with err. */
static int connect_to(pid_t pid, char *err, size_t errlen)
{
	char proc[64], path[3][108];
	struct stat st;
	int n, denied = -1, refused = -1;

	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	if (stat(proc, &st) < 0) {
		zt_errf(err, errlen, "pid %d: no such process", (int)pid);
		return -1;
	}
	n = candidates(pid, st.st_uid, path);
	for (int i = 0; i < n; i++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			zt_errf(err, errlen, "socket: %s", strerror(errno));
			return -1;
		}
		memcpy(a.sun_path, path[i], strlen(path[i]) + 1);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			return fd;
		if (errno == EACCES || errno == EPERM)
			denied = i;
		else if (errno == ECONNREFUSED)
			refused = i;
		close(fd);
	}
	if (denied >= 0)
		zt_errf(err, errlen, "pid %d: cannot reach its control socket '%s': Permission "
			"denied (only the process's own user may control it)", (int)pid,
			path[denied]);
	else if (refused >= 0)
		zt_errf(err, errlen, "pid %d: its control socket '%s' is not served any more "
			"(the process ended its sampling, or the socket is stale)", (int)pid,
			path[refused]);
	else
		zt_errf(err, errlen, "pid %d: no zt control channel (the process is not "
			"sampled by zt, or was started without 'zt-collect --paused' or "
			"--control): no '%s'", (int)pid, path[n - 1]);
	return -1;
}

int zt_ctl_request(pid_t pid, const char *request, char *reply, size_t cap, char *err,
		   size_t errlen)
{
	char buf[8192];
	size_t got = 0, len = strlen(request);
	int fd = connect_to(pid, err, errlen), send_errno = 0;
	struct timespec t0, t;

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

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 60)
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
			zt_errf(err, errlen, "pid %d: cannot send the request: %s", (int)pid,
				strerror(send_errno));
		else
			zt_errf(err, errlen, "pid %d: no answer from its control channel",
				(int)pid);
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, "ok ", 3) == 0 || strncmp(buf, "error ", 6) == 0) {
		int ok = buf[0] == 'o';

		snprintf(reply, cap, "%s", buf + (ok ? 3 : 6));
		return ok ? 0 : 1;
	}
	zt_errf(err, errlen, "pid %d: an answer zt-ctl does not know: '%.100s'", (int)pid, buf);
	return -1;
}
