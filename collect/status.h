/*
 * status.h — zt-collect's reading of the status pipe (status.c; the
 * collector's writing side is collect/files.c). Each collector in the
 * program's tree says what became of its dump as lines "PID WHAT ERRNO
 * COUNT [NAME]"; zt-collect gathers them into one NUL-ended text, and these
 * functions read that text. None of them keeps a pointer into it.
 */
#ifndef ZT_STATUS_H
#define ZT_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The word of the last line process pid's collector wrote, into what; NULL if none. */
const char *zt_status_last(const char *status, pid_t pid, char *what, size_t cap);

/*
 * What follows "PID " on process pid's last line ("started 0 0 NAME",
 * "ok 0 N", ...), pointing into status; NULL if it wrote none.
 */
const char *zt_status_last_line(const char *status, pid_t pid);

/* Whether process pid wrote a line whose word is what. */
int zt_status_said(const char *status, pid_t pid, const char *what);

/*
 * The processes other than except that said "started", each once, in the
 * order they first did, into *pids (the caller frees it); returns how many.
 */
size_t zt_status_started(const char *status, pid_t except, pid_t **pids);

/*
 * The command a "started" line names (its fifth field; line is what follows
 * "PID "), into name with what is not a plain printable character as '?';
 * "?" when it names none.
 */
const char *zt_status_started_name(const char *line, char *name, size_t cap);

/*
 * The "PID exit-cpu-ns 0 NS" lines: the CPU time of each process's exit
 * work after its dump's summary (the sync, the rename). The last of each
 * pid is its last image's (an image before an exec is in the next one's
 * start values). Returns how many, in *out (the caller frees it).
 */
struct zt_exit_cpu {
	pid_t pid;
	uint64_t ns;
};

size_t zt_status_exit_cpu(const char *status, struct zt_exit_cpu **out);

/*
 * Whether process pid's collector said its dump (out) could not be written:
 * 1, with the reason printed, when it could not; 0 otherwise (notes of
 * failures that cost no dump are printed too). A whole dump the program
 * could not rename ("rename-failed") is published here, with zt-collect's
 * rights, or kept and named: this is the one function here that touches a
 * file.
 */
int zt_status_failure(const char *status, pid_t pid, const char *out);

/*
 * With -f: every process but child whose collector said its dump could not
 * be written or published, named with the cause (zt_status_failure; its
 * dump is out.PID). Returns how many.
 */
int zt_status_descendants_failed(const char *status, pid_t child, const char *out);

/*
 * Every process (child, whose dump is shown, or a descendant under -f,
 * whose dump is out.PID)
 * whose collector said its dump has no host name or labels
 * (ZT_STATUS_LABELS_LOST: zt-collect's descriptor was gone), named once
 * each. Returns how many.
 */
int zt_status_labels_lost(const char *status, pid_t child, const char *shown, const char *out);

#endif
