/*
 * launch.h — the names zt-collect and the collector it preloads share: the
 * environment variables zt-collect sets in the program's environment and
 * the collector reads (collect/prof.c, files.c, thread.c, control.c,
 * labels.c), and the words of the status pipe, the lines "PID WHAT ERRNO COUNT [NAME]"
 * the collector writes (collect/files.c, dump.c, control.c, seccomp.c) and
 * zt-collect reads (collect/status.c). Each side spells them only through
 * these, so that neither can rename one alone.
 *
 * Only macros, as in rawfmt.h: the sampler links no libc beyond system
 * calls, and literals join others at compile time.
 */
#ifndef ZT_LAUNCH_H
#define ZT_LAUNCH_H

/* What zt-collect's options become in the program's environment. */
#define ZT_ENV_OUT "ZT_OUT"		/* the dump's absolute path (-o) */
#define ZT_ENV_HZ "ZT_HZ"		/* samples per CPU-second (-F) */
#define ZT_ENV_PID "ZT_PID"		/* the program's pid: without -f only it is sampled */
#define ZT_ENV_TIMER "ZT_TIMER"		/* auto, perf or posix (--timer) */
#define ZT_ENV_TIMER_PERF "perf"
#define ZT_ENV_TIMER_POSIX "posix"
#define ZT_ENV_UNWIND "ZT_UNWIND"	/* auto, cfi or fp (--unwind) */
#define ZT_ENV_MAX_DEPTH "ZT_MAX_DEPTH"	/* frames kept per sample (--max-depth) */
#define ZT_ENV_CLOCK "ZT_CLOCK"		/* ZT_RAW_PROFILE_WALL, or unset for cpu (--clock) */
#define ZT_ENV_OFF_CPU_HZ "ZT_OFF_CPU_HZ"	/* off-CPU ticks per second (--off-cpu-hz) */
#define ZT_ENV_ALLOC "ZT_ALLOC"		/* mean bytes between allocation samples (--alloc) */
/* A switch is on when its value is ZT_ENV_ON, and off when unset. */
#define ZT_ENV_ON "1"
#define ZT_ENV_GZIP "ZT_GZIP"		/* "1": compress the dump (-z) */
#define ZT_ENV_FOLLOW "ZT_FOLLOW"	/* "1": descendants too, into FILE.PID (-f) */
#define ZT_ENV_PAUSED "ZT_PAUSED"	/* "1": sampling off until started (--paused) */
#define ZT_ENV_CONTROL "ZT_CONTROL"	/* "1": serve zt-ctl (--control; a user may set it) */
/* zt-collect's descriptors, each at 512 or above with the inode that proves it is still its. */
#define ZT_ENV_STATUS_FD "ZT_STATUS_FD"	/* the status pipe's write end */
#define ZT_ENV_STATUS_INO "ZT_STATUS_INO"
#define ZT_ENV_NAMER_FD "ZT_NAMER_FD"	/* with -f: the socket that names a pid (zt-collect.c) */
#define ZT_ENV_NAMER_INO "ZT_NAMER_INO"
#define ZT_ENV_PIDNS "ZT_PIDNS"		/* with -f: zt-collect's PID namespace, "DEV:INO" */
/*
 * The host name and the run's labels (--label): a memfd sealed against any
 * write, shrink or growth, holding the dump's "host VALUE" line and a
 * "label KEY VALUE" line per label (formats/raw.md), passed as the
 * descriptors above but not close-on-exec: what the program cannot write.
 */
#define ZT_ENV_LABELS_FD "ZT_LABELS_FD"
#define ZT_ENV_LABELS_INO "ZT_LABELS_INO"

/*
 * The status pipe's words, each the WHAT of "PID WHAT ERRNO COUNT [NAME]";
 * at most ZT_STATUS_WORD_MAX bytes, one line shorter than PIPE_BUF.
 */
#define ZT_STATUS_WORD_MAX 64
#define ZT_STATUS_STARTED "started"		/* a dump begun; NAME is the command */
#define ZT_STATUS_OK "ok"			/* published; COUNT samples */
#define ZT_STATUS_EXIT_CPU_NS "exit-cpu-ns"	/* COUNT: ns of exit work after the summary */
#define ZT_STATUS_OPEN_FAILED "open-failed"	/* FILE.tmp.PID could not be made: unsampled */
#define ZT_STATUS_WRITE_FAILED "write-failed"	/* no dump; COUNT samples lost */
#define ZT_STATUS_DESCRIPTOR_LOST "descriptor-lost"	/* the program closed it; no dump */
#define ZT_STATUS_RENAME_FAILED "rename-failed"	/* a whole dump left at FILE.tmp.PID */
#define ZT_STATUS_GZIP_FAILED "gzip-failed"	/* kept uncompressed */
#define ZT_STATUS_CONTROL_FAILED "control-failed"	/* no zt-ctl channel */
#define ZT_STATUS_SECCOMP_REFUSES "seccomp-refuses-"	/* + the call a filter would kill */
#define ZT_STATUS_LABELS_LOST "labels-lost"	/* the dump has no host or labels: their descriptor was gone */

#endif
