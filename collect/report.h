/*
 * report.h — what zt-collect says once the program has ended (report.c):
 * the program's dump read back and said in one line with its notes, and
 * with -f one line for the whole tree. Everything goes to stderr; the
 * wording is a contract the tests read, byte for byte.
 */
#ifndef ZT_REPORT_H
#define ZT_REPORT_H

#include "finish.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

/* One run, as zt-collect knows it when the program has ended. The caller owns all of it. */
struct zt_report {
	const char *out;	/* the dump's path (FILE) */
	const char *shown;	/* how messages name it when it is no file (a sink), or NULL */
	pid_t child;		/* the program's pid */
	const struct rusage *ru;	/* the program's, from wait4: its descendants' too */
	double wall;		/* the run's wall-clock time, in seconds */
	const char *status;	/* what the status pipe said (status.h) */
	/* Why the loader will not preload the collector into the program at path, or NULL. */
	const char *(*unreachable)(const char *path);
};

/*
 * The one-line summary of the program's dump (prog as the command line
 * named it, path as it was run) and its notes; -1, with the reason, when
 * there is no usable dump.
 */
int zt_report_program(const struct zt_report *r, const char *prog, const char *path);

/*
 * With -f: one line for the whole tree, last: the program's dump and every
 * descendant's (FILE.PID newer than start) totalled, and the tree's CPU
 * time accounted for.
 */
void zt_report_tree(const struct zt_report *r, const struct timespec *start);

/*
 * The line on a dump zt-collect finished for a process (who) that ended
 * without zt's exit path, into note: what is in it (u's samples of its
 * threads, from the file and the buffers the process left) and what
 * cannot be.
 */
void zt_report_finished(const char *who, const char *out, const struct zt_finish *u,
			char *note, size_t cap);

#endif
