/*
 * ctl.h — the control channel of a process sampled by zt (zt-ctl's side;
 * the collector's is collect/control.c): where its socket is, and one
 * request over it.
 *
 * The socket is PID.sock in a directory of the process's user, mode 0700:
 * $XDG_RUNTIME_DIR/zt when the process had XDG_RUNTIME_DIR, else
 * /tmp/zt-UID. A request is one line ("start", "stop", "snapshot"), the
 * answer one line, "ok TEXT" or "error TEXT".
 *
 * zt-collect --paused or --control leaves an alias of its own beside the
 * sockets, ZTPID.collect, so that zt-ctl takes zt-collect's pid (the one a
 * shell's $! gives) for the program's: it holds "PROGRAMPID START\n",
 * START being zt-collect's start time (field 22 of /proc/PID/stat), which
 * tells an alias that a killed zt-collect left from a live process that
 * got the same pid since. It is believed only when it is a regular file of
 * the user's own, its START is that of the process at its pid, and the
 * program it names is that process's child by the kernel's account.
 */
#ifndef ZT_CTL_H
#define ZT_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define ZT_CTL_XDG_DIR "zt"		/* under $XDG_RUNTIME_DIR */
#define ZT_CTL_TMP_DIR "/tmp/zt-"	/* followed by the uid */
#define ZT_CTL_SUFFIX ".sock"		/* after the pid */
#define ZT_CTL_ALIAS_SUFFIX ".collect"	/* zt-collect's alias, after its pid */

/* A process a request goes to, and how messages name it. */
struct zt_ctl_target {
	pid_t pid;
	char who[96];	/* "pid 12" or "pid 12 (the program of zt-collect 11)" */
};

/*
 * The processes a request given pid goes to, into *targets (the caller
 * frees it). pid itself, when it serves a channel or is no zt-collect with
 * a live alias; when it is one, the program it runs (its child), then each
 * descendant of the program that serves a channel of its own (-f), depth
 * first, children in pid order, as kill(1) of the job would reach them.
 * Returns how many (at least 1), or -1 with the message in err (no such
 * process; a zt-collect without --paused or --control).
 */
int zt_ctl_targets(pid_t pid, struct zt_ctl_target **targets, char *err, size_t errlen);

/*
 * Whether process pid still runs and serves a channel (its socket is
 * there): a descendant that ended between zt_ctl_targets and its request
 * is no failure.
 */
int zt_ctl_serves(pid_t pid);

/*
 * zt-collect's side: write the alias of this process (zt-collect) for its
 * child program, in the directory the program's collector puts its socket
 * in, chosen and checked as it does ($XDG_RUNTIME_DIR/zt, else
 * /tmp/zt-UID; made mode 0700 when missing; not used when another user's
 * or open to others). Written under a temporary name and renamed, so a
 * reader sees it whole. Its path into path. 0, or -1 with err.
 */
int zt_ctl_alias_write(pid_t program, char *path, size_t cap, char *err, size_t errlen);

/*
 * Send request to the process t and wait for its answer (at most a minute:
 * a snapshot of a large dump takes a while). Returns 0 with the answer's
 * TEXT in reply for "ok", 1 with it for "error" (the process refused), or
 * -1 with the whole message, place first, in err (no such process, no
 * channel, permission denied, a socket another process serves, no answer).
 */
int zt_ctl_request(const struct zt_ctl_target *t, const char *request, char *reply, size_t cap, char *err,
		   size_t errlen);

#endif
