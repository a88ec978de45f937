/*
 * ctl.h — the control channel of a process sampled by zt (zt-ctl's side;
 * the collector's is collect/control.c): where its socket is, and one
 * request over it.
 *
 * The socket is PID.sock in a directory of the process's user, mode 0700:
 * $XDG_RUNTIME_DIR/zt when the process had XDG_RUNTIME_DIR, else
 * /tmp/zt-UID. A request is one line ("start", "stop", "snapshot"), the
 * answer one line, "ok TEXT" or "error TEXT".
 */
#ifndef ZT_CTL_H
#define ZT_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define ZT_CTL_XDG_DIR "zt"		/* under $XDG_RUNTIME_DIR */
#define ZT_CTL_TMP_DIR "/tmp/zt-"	/* followed by the uid */
#define ZT_CTL_SUFFIX ".sock"		/* after the pid */

/*
 * Send request to process pid and wait for its answer (at most a minute:
 * a snapshot of a large dump takes a while). Returns 0 with the answer's
 * TEXT in reply for "ok", 1 with it for "error" (the process refused), or
 * -1 with the whole message, place first, in err (no such process, no
 * channel, permission denied, no answer).
 */
int zt_ctl_request(pid_t pid, const char *request, char *reply, size_t cap, char *err,
		   size_t errlen);

#endif
