/*
 * finish.h — zt-collect's finishing of a dump whose process ended without
 * the collector's end (finish.c).
 */
#ifndef ZT_FINISH_H
#define ZT_FINISH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/*
 * The dump of a process that ended without the collector's end: SIGKILL, a
 * raw exit_group (Go's runtime), glibc's internal _exit (daemon()), a
 * crash handler that re-raised its signal at SIG_DFL (SA_RESETHAND), a
 * stack overflow with no stack left for a handler. Its collector wrote the
 * header and the samples to FILE.tmp.PID as it ran (each thread's buffer
 * at least once a second), and the maps snapshots and build-ids to
 * FILE.tmp.PID.maps as it found them. zt-collect finishes the dump from
 * what reached the files (formats/raw.md, "Finished by zt-collect"): the
 * whole lines of the samples, the side file's whole lines, a summary that
 * says "finished zt-collect" (with the process's CPU time from wait4 when
 * ru is given), "end"; then publishes it as out. The lines each thread
 * left in its buffer are taken from FILE.tmp.PID.bufs (spill.h), when the
 * collector could keep its buffers there; else each thread's last buffer
 * is lost, at most one a thread.
 */
struct zt_finish {
	uint64_t samples;	/* the samples in the file (counts summed) */
	size_t threads;		/* the threads those came from */
	int gzip;		/* publish it compressed */
	const struct rusage *ru;	/* the process's own, or NULL */
	/*
	 * The buffers the process left (spill.h): known (its side file was
	 * there), taken, and unknown (their write was under way, or they were
	 * not sample lines).
	 */
	int buffers_known;
	size_t buffers, buffers_unknown;
};

/*
 * Finish and publish the dump process pid left at out.tmp.PID, as above,
 * filling u's counts. 0 when published; -1 (and a warning) when nothing
 * usable was there (the process died before its header was whole) or it
 * could not be written; 1 when there was no such file.
 */
int zt_finish_dump(const char *out, pid_t pid, struct zt_finish *u);

/*
 * A process killed by SIGKILL leaves its unfinished dump, out.tmp.PID,
 * with samples but no maps: useless, so it is removed (said when say),
 * with its side file; but never a whole dump the process could not rename
 * (its status line "rename-failed": zt_status_failure named it).
 */
void zt_finish_remove(const char *out, pid_t pid, const char *status, int say);

#endif
