/*
 * report.c — zt-collect's closing lines: what the program's dump holds and
 * what the figures mean, and with -f what the whole tree's dumps add up to.
 * It owns the arithmetic of those lines (the sample rate per CPU-second
 * sampled, the time no sample stands for and why, the time before
 * sampling began, zt's own set-up and exit work, the kernel's exit of each
 * process, what the tree's rusage leaves over) and their wording, which
 * the tests match byte for byte. It reads the dumps' headers and summaries
 * (lib/raw.c) and the status pipe's lines (status.c). The launcher,
 * zt-collect.c, gives it the run (struct zt_report): nothing here starts,
 * waits for or ends a process.
 */
#include "report.h"
#include "status.h"

#include "raw.h"
#include "rawfmt.h"
#include "input.h"
#include "util.h"

#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

void zt_report_finished(const char *who, const char *out, const struct zt_finish *u,
			char *note, size_t cap)
{
	char unknown[96];

	if (!u->buffers_known)
		snprintf(unknown, sizeof unknown, "the samples of the last second or less of "
			 "each thread (at most one buffer a thread), ");
	else if (u->buffers_unknown)
		snprintf(unknown, sizeof unknown, "the samples of %zu buffer%s being written as "
			 "it ended, ", u->buffers_unknown, u->buffers_unknown == 1 ? "" : "s");
	else
		unknown[0] = '\0';
	snprintf(note, cap, "%s: note: %s ended without zt's exit path; zt-collect finished its dump '%s' "
		"from what reached the file%s: %" PRIu64 " samples of %zu thread%s; not counted: "
		"%sthe threads' names", zt_prog, who, out,
		u->buffers_known ? " and the buffers it left" : "", u->samples, u->threads,
		u->threads == 1 ? "" : "s", unknown);
}

/*
 * One dump's figures: the samples, and the CPU time they stand for. The
 * dump covers one process image, from the start of its sampling to its end
 * (or its exec): its user and system time are the dump's end values less
 * those at its start, which after an exec hold the images before it.
 */
struct figures {
	struct zt_raw d;
	double cpu;		/* what the rate is per: user time with perf-task-clock */
	double user, sys;	/* this image's */
	double user_before, sys_before;	/* the process's before this image sampled */
	double setup;		/* of those, zt's own set-up (its constructor's) */
	double exit;		/* of this image's, zt's own exit work up to the summary */
	int useronly;
};

static double ns_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* Read the summary of the dump at path into *f; -1 (and a warning) if none. */
static int read_figures(const char *path, struct figures *f)
{
	struct zt_input *in;
	char err[512];
	struct zt_raw *d = &f->d;

	memset(f, 0, sizeof *f);
	in = zt_input_open(path, err, sizeof err);
	if (!in) {
		zt_warn("%s", err);
		return -1;
	}
	if (zt_raw_read_summary(in, d, err, sizeof err) < 0) {
		zt_warn("%s", err);	/* the place is in it */
		zt_input_close(in);
		zt_raw_free(d);
		return -1;
	}
	zt_input_close(in);
	f->user_before = d->cpu_user_ns >= d->cpu_user_start_ns ? ns_s(d->cpu_user_start_ns) : 0;
	f->sys_before = d->cpu_sys_ns >= d->cpu_sys_start_ns ? ns_s(d->cpu_sys_start_ns) : 0;
	/* zt's own set-up, part of that time, said apart. */
	f->setup = ns_s(d->zt_setup_ns) < f->user_before + f->sys_before ? ns_s(d->zt_setup_ns) : 0;
	f->user = ns_s(d->cpu_user_ns) - f->user_before;
	f->sys = ns_s(d->cpu_sys_ns) - f->sys_before;
	/* zt's exit work (stopping, flushing, the end's sections), part of this image's. */
	f->exit = ns_s(d->zt_exit_ns) < f->user + f->sys ? ns_s(d->zt_exit_ns) : 0;
	/*
	 * CPU time while sampling ran, measured precisely by the process clock.
	 * perf-task-clock samples user space only, so its rate is per user
	 * CPU-second and system time is reported apart, as not sampled; the
	 * split is the dump's (the program's getrusage).
	 */
	f->cpu = d->have_cpu ? ns_s(d->cpu_ns) : f->user + f->sys;
	f->useronly = d->timer && strcmp(d->timer, ZT_RAW_TIMER_PERF) == 0 &&
		      f->user + f->sys > 0;
	if (f->useronly)
		f->cpu = f->user;
	/*
	 * Better, what the samples stand for: the sampled threads' own time
	 * while their timers ran (their CPU clocks, split by the kernel's
	 * account of each), without the time of threads zt could not sample,
	 * said apart, nor of its own threads (the off-CPU sampler). The
	 * process's figures above hold them, and lower the rate by them.
	 */
	if (d->have_sampled == 3 && !d->have_windows)
		f->cpu = ns_s(d->sampled_user_ns) + (f->useronly ? 0 : ns_s(d->sampled_sys_ns));
	return 0;
}

/*
 * A run with sampling windows, whose dump's CPU figures are the windows':
 * before the dump's line (after 0), the line that stands for it when the
 * end's dump had no window and no sample (returns 1); after it, which
 * windows and snapshots there were.
 */
static int report_windows(const struct figures *f, const char *out, const struct rusage *ru,
			  int after)
{
	const struct zt_raw *d = &f->d;
	char snaps[2 * PATH_MAX + 64];

	if (!d->have_windows)
		return 0;
	if (d->snapshots > 1)
		snprintf(snaps, sizeof snaps, "; snapshots '%s.1' to '%s.%" PRIu64 "' hold the "
			 "samples before", out, out, d->snapshots);
	else if (d->snapshots)
		snprintf(snaps, sizeof snaps, "; snapshot '%s.1' holds the samples before", out);
	else
		snaps[0] = '\0';
	if (!d->windows && !d->nsamples) {
		if (after)
			return 1;
		if (d->snapshots)
			fprintf(stderr, "%s: sampling was off after the last snapshot: wrote '%s', "
				"a whole dump with no samples%s; rusage: user %.3f s, system %.3f s\n",
				zt_prog, out, snaps, tv_s(ru->ru_utime), tv_s(ru->ru_stime));
		else
			fprintf(stderr, "%s: sampling was never started (--paused, and neither "
				"'zt-ctl %" PRIu64 " start' nor zt_start() came): wrote '%s', a "
				"whole dump with no samples; rusage: user %.3f s, system %.3f s\n",
				zt_prog, d->pid, out, tv_s(ru->ru_utime), tv_s(ru->ru_stime));
		return 1;
	}
	if (after)
		zt_warn("sampling windows: %" PRIu64 " in '%s', %.3f s of wall-clock time with "
			"sampling on (the CPU time above is theirs)%s", d->windows, out,
			ns_s(d->window_ns), snaps);
	return 0;
}

/* The program zt-collect started, as /proc/PID/exe will name it. */
static char *started_image(const char *prog)
{
	char head[256], *p = NULL;
	ssize_t n;
	int fd = open(prog, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, head, sizeof head - 1);
		close(fd);
		if (n > 2 && head[0] == '#' && head[1] == '!') {
			head[n] = '\0';
			p = head + 2;
			while (*p == ' ' || *p == '\t')
				p++;
			p[strcspn(p, " \t\n")] = '\0';
		}
	}
	return realpath(p && *p ? p : prog, NULL);
}

/*
 * A program that process pid exec'd and that left no dump of its own (by
 * the dump d, whose image exec'd it): say which, and why.
 */
static void report_unreached(const struct zt_report *r, const struct zt_raw *d, int top)
{
	const char *why = r->unreachable(d->exec);

	zt_warn("'%s' (pid %" PRIu64 ", exec'd by '%s') was not profiled: %s; %s", d->exec,
		d->pid, d->exe ? d->exe : "?", why ? why : "zt's collector did not start in it",
		top ? "the dump covers the time before the exec" : "its time is in no dump");
}

/*
 * The programs that the dump's process started in a way no dump of its
 * own follows (a vforked child's exec, posix_spawn) and that zt could not
 * reach, as the collector judged them ("PID WHY PATH").
 */
static void report_vforked(const struct zt_raw *d)
{
	for (size_t i = 0; i < d->nunreached; i++) {
		char why[32];
		unsigned long pid;
		int at = 0;
		const char *text;

		if (sscanf(d->unreached[i], "%lu %31s %n", &pid, why, &at) < 2 || !at)
			continue;
		if (strcmp(why, ZT_RAW_UNREACHED_STATIC) == 0)
			text = "it is statically linked: LD_PRELOAD cannot reach it";
		else if (strcmp(why, ZT_RAW_UNREACHED_SETUID) == 0)
			text = "it is set-user-ID to another user, and the loader ignores LD_PRELOAD there";
		else if (strcmp(why, ZT_RAW_UNREACHED_SETGID) == 0)
			text = "it is set-group-ID to another group, and the loader ignores LD_PRELOAD there";
		else
			text = why;
		zt_warn("'%s' (pid %lu, started by '%s') was not profiled: %s; its time is in "
			"no dump", d->unreached[i] + at, pid, d->exe ? d->exe : "?", text);
	}
}

/*
 * A wall-clock dump's second line: its off-CPU samples, the time they
 * stand for (blocked, or waiting for a CPU), and what the sampler thread
 * cost, from its own CPU clock.
 */
/* "12.3 MiB": bytes for a line of the report. */
static const char *mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.1f MiB", (double)bytes / 1048576.0);
	return buf;
}

/*
 * zt-collect --alloc (raw version 6): what the collector counted and
 * sampled, what was live at the end and at the peak; or why it saw no
 * allocation (the program's malloc is another object's).
 */
static void report_alloc(const struct zt_raw *d)
{
	char a[32], b[32], c[32];

	if (!d->alloc_rate)
		return;
	if (d->alloc_allocator) {
		fprintf(stderr, "%s: --alloc: the program's malloc is not zt's but that of '%s': "
			"its allocations are not seen (an ASan build, or an allocator linked into "
			"the executable)\n", zt_prog, d->alloc_allocator);
		return;
	}
	if (!(d->have_alloc_summary & 1)) {
		fprintf(stderr, "%s: allocations: %" PRIu64 " samples written before the end "
			"(the program ended without zt's end: no in-use or peak samples)\n",
			zt_prog, d->alloc_lines[0]);
		return;
	}
	fprintf(stderr, "%s: allocations: %" PRIu64 " calls, %s asked for; %" PRIu64
		" samples, one a mean %" PRIu64 " bytes; live at the end %s, at the peak %s "
		"(%.3f s)%s\n", zt_prog, d->alloc_calls, mib(a, sizeof a, d->alloc_bytes),
		d->alloc_samples, d->alloc_rate, mib(b, sizeof b, d->alloc_inuse_bytes),
		mib(c, sizeof c, d->alloc_peak_bytes), (double)d->alloc_peak_ns / 1e9,
		d->alloc_calls < 16 ? " (so few calls: an allocator linked statically into the "
		"program takes its calls before zt's interposers)" : "");
}

static void report_wall(const struct zt_raw *d, uint64_t cpu_samples, uint64_t off)
{
	double cpu_ns = d->hz ? (double)cpu_samples * 1e9 / d->hz : 0;
	double off_ns = (double)d->weight > cpu_ns ? (double)d->weight - cpu_ns : 0;
	double span = d->have_wall_ns ? ns_s(d->wall_ns) : 0;

	if (d->finished && !d->have_off_cpu) {
		/* The sampler's own counts are the collector's end's, which never ran. */
		fprintf(stderr, "%s: wall clock: %" PRIu64 " off-CPU samples at %u Hz, %.3f s "
			"off-CPU in all threads (the sampler's own counts died with the process)\n",
			zt_prog, off, d->off_cpu_hz, off_ns / 1e9);
		return;
	}
	fprintf(stderr, "%s: wall clock: %" PRIu64 " off-CPU samples at %u Hz (%" PRIu64
		" repeated without a walk, %" PRIu64 " dropped as torn), %.3f s off-CPU in all "
		"threads; the sampler thread used %.3f CPU-s (%.2f%% of one core over %.3f s)\n",
		zt_prog, d->off_cpu_samples, d->off_cpu_hz, d->off_cpu_repeated, d->off_cpu_torn,
		off_ns / 1e9, ns_s(d->sampler_cpu_ns),
		span > 0 ? 100 * ns_s(d->sampler_cpu_ns) / span : 0, span);
	if (d->off_cpu_foreign)
		zt_warn("%" PRIu64 " threads zt cannot sample by signal (made with a raw clone) "
			"were found in /proc/self/task and recorded off-CPU; their CPU time is in "
			"no sample (counted as not sampled)", d->off_cpu_foreign);
	if (d->off_cpu_blind)
		zt_warn("the off-CPU time of %" PRIu64 " threads is in no sample: the program "
			"made itself not dumpable (PR_SET_DUMPABLE 0, or new credentials) before "
			"they started, and the kernel refused zt their /proc/self/task/TID/syscall; "
			"their CPU time, system time and waits for a CPU are recorded",
			d->off_cpu_blind);
}

/*
 * Why CPU time went unsampled, naming only the causes the dump shows:
 * zt's signal blocked (time measured, or threads that ended so), threads
 * without a timer (unsampled-threads), and otherwise time no thread's
 * timer counted (a raw clone's thread, a thread before its timer
 * started). A dump of a collector without its own signal says less.
 */
static const char *unsampled_why(const struct zt_raw *d)
{
	static char why[160];
	int blocked = d->unsampled_blocked_ns || d->sigprof_blocked;
	uint64_t rest = d->unsampled_cpu_ns > d->unsampled_blocked_ns ?
			d->unsampled_cpu_ns - d->unsampled_blocked_ns : 0;

	/* A few milliseconds no timer counted are every run's noise (below). */
	if (rest < 10000000)
		rest = 0;

	if (!d->signo)
		return "SIGPROF blocked, no timer";
	snprintf(why, sizeof why, "%s%s%s", blocked ? "zt's signal blocked" : "",
		 blocked && (d->unsampled || rest) ? ", " : "",
		 d->unsampled ? "no timer" :
		 rest ? "not counted by any thread's timer: a raw clone, a thread before "
			"its timer started" : "");
	return why;
}

/* The notes a dump's summary carries, after its line. */
static void report_notes(const struct zt_raw *d)
{
	uint64_t cut;

	if (d->conflict)
		zt_warn("note: the program uses SIGPROF itself (%s): its own signals "
			"went to its handler, zt's were kept apart", d->conflict);
	if (d->lost_detail && strstr(d->lost_detail, ZT_RAW_LOST_DEFERRED "="))
		zt_warn("note: the program's ThreadSanitizer runtime defers asynchronous "
			"signals to its next intercepted call and keeps one of each pending: "
			"the sampling periods its threads ran without a sample are counted "
			"lost (%s)", d->lost_detail);
	if (d->signal_taken)
		zt_warn("note: the program installed a handler of its own on zt's sampling "
			"signal (signal %s): its own signals went to its handler; 'moved': zt "
			"went on with the other free real-time signal named; 'shared': none "
			"was free, zt stayed on it, and a thread that blocks it is not sampled",
			d->signal_taken);
	/* partial counts the cut stacks too (raw.md): the rest could not be unwound. */
	cut = d->truncated < d->partial ? d->truncated : d->partial;
	if (d->have_partial && d->partial > cut && d->nsamples)
		zt_warn("note: %" PRIu64 " of %" PRIu64 " stacks (%.1f%%) could not be unwound "
			"to the thread's entry (unwind %s); they show [truncated] at the root",
			d->partial - cut, d->nsamples,
			100.0 * (double)(d->partial - cut) / (double)d->nsamples,
			d->unwind ? d->unwind : "?");
	if (d->have_partial && cut && d->nsamples)
		zt_warn("note: %" PRIu64 " of %" PRIu64 " stacks (%.1f%%) were cut at the depth "
			"limit (%" PRIu64 " frames; --max-depth); they show [depth limit] at the root",
			cut, d->nsamples, 100.0 * (double)cut / (double)d->nsamples, d->max_depth);
	if (d->sigprof_blocked)
		zt_warn("%" PRIu64 " threads had zt's signal (%u) blocked when they ended: a "
			"thread that blocks it is not sampled while it does%s", d->sigprof_blocked,
			d->signo ? d->signo : SIGPROF, d->nsamples ? "" : " (no samples at all)");
	if (d->timers_lost)
		zt_warn("the program closed the sampling counters of %" PRIu64 " threads: "
			"those threads were not sampled after that", d->timers_lost);
	if (d->timer_fallback)
		zt_warn("%" PRIu64 " threads were sampled by the POSIX timer instead of perf "
			"(zt's budget of descriptors, a quarter of the soft limit, was spent, "
			"or perf_event_open failed): their samples are weighted by the "
			"periods each stands for", d->timer_fallback);
	if (d->seccomp) {
		const char *call = strchr(d->seccomp, ' ');

		call = call ? call + 1 : "";
		if (strncmp(d->seccomp, ZT_RAW_SECCOMP_STOPPED, strlen(ZT_RAW_SECCOMP_STOPPED)) == 0)
			zt_warn("note: the program installed a seccomp filter that would kill "
				"zt's %s system call: sampling stopped there, and the dump "
				"covers the run until then", call);
		else if (strncmp(d->seccomp, ZT_RAW_SECCOMP_NO_TIMERS,
				 strlen(ZT_RAW_SECCOMP_NO_TIMERS)) == 0)
			zt_warn("note: the program installed a seccomp filter that would kill "
				"zt's %s system call: threads it created after that were not "
				"sampled", call);
		else if (strncmp(d->seccomp, ZT_RAW_SECCOMP_FALLBACK,
				 strlen(ZT_RAW_SECCOMP_FALLBACK)) == 0)
			zt_warn("note: the program runs under a seccomp filter that would kill "
				"zt's %s system call: zt used the POSIX timer", call);
		else
			zt_warn("note: the program runs under a seccomp filter, which allows "
				"zt's system calls");
	}
	if (d->dump_reopened)
		zt_warn("note: the program closed the dump's descriptor; zt reopened "
			"its file and lost nothing");
	if (d->unsampled)
		zt_warn("%" PRIu64 " threads were not sampled (made with a raw clone, more "
			"than 4096 alive at once, a timer that would not start, or threads "
			"already running under the POSIX timer); %.3f CPU-s in all are in "
			"no sample", d->unsampled, ns_s(d->unsampled_cpu_ns));
}

int zt_report_program(const struct zt_report *r, const char *prog, const char *path)
{
	const char *out = r->out, *shown_out = r->shown;
	const struct rusage *ru = r->ru;
	double wall = r->wall;
	pid_t pid = r->child;
	struct figures f;
	struct zt_raw *d = &f.d;
	char split[96], unsampled[320], image[PATH_MAX + 64], before[PATH_MAX + 160];
	char *started;
	char earlytxt[256], losttxt[32];
	double rate, early, setup;
	uint64_t off = 0, cpu_samples;

	if (zt_status_failure(r->status, pid, out))
		return -1;
	if (access(out, F_OK) != 0) {
		const char *why = r->unreachable(path);

		if (why)
			zt_warn("'%s' left no dump at '%s': %s", prog, out, why);
		else
			zt_warn("'%s' left no dump at '%s': it ended without running zt's exit "
				"path (SIGKILL, a raw exit system call), exec'd a program zt "
				"cannot reach, or sampling could not start", prog, out);
		return -1;
	}
	if (read_figures(out, &f) < 0)
		return -1;
	if (d->have_pid && d->pid != (uint64_t)pid) {
		/*
		 * Another run's, with the same -o (this run left none, or the
		 * other published over it since): never reported as this one's.
		 */
		zt_warn("'%s' holds another run's dump (pid %" PRIu64 "), not this run's: "
			"several runs with the same -o, the last to finish wins", out, d->pid);
		zt_raw_free(d);
		return -1;
	}
	/* A wall dump's off-CPU samples are not CPU samples: said apart, after the line. */
	if (d->wall && d->have_off_cpu && d->off_cpu_samples <= d->nsamples)
		off = d->off_cpu_samples;
	else if (d->wall && d->finished)
		off = d->nwaiting;	/* the collector could not say: its lines do */
	cpu_samples = d->nsamples - off;
	if (report_windows(&f, out, ru, 0)) {
		if (d->wall)
			report_wall(d, cpu_samples, off);
		report_notes(d);
		zt_raw_free(d);
		return 0;
	}
	rate = f.cpu > 0 ? (double)cpu_samples / f.cpu : 0;
	/* A dump zt-collect finished may not know its last buffers (the note after says). */
	if (d->finished && !d->finished_known)
		snprintf(losttxt, sizeof losttxt, "the last buffers");
	else if (d->finished && d->finished_unknown)
		snprintf(losttxt, sizeof losttxt, "%" PRIu64 " buffer%s", d->finished_unknown,
			 d->finished_unknown == 1 ? "" : "s");
	else
		snprintf(losttxt, sizeof losttxt, "%" PRIu64, d->lost);
	if (f.useronly)
		snprintf(split, sizeof split, "; system %.3f s (%.1f%% of CPU time) not sampled",
			 f.sys, 100 * f.sys / (f.user + f.sys));
	else
		split[0] = '\0';
	/*
	 * CPU time in no sample: of threads zt could not sample (SIGPROF
	 * blocked, no timer: a raw clone) and before each thread's timer
	 * started (a few microseconds each). Said when there are unsampled
	 * threads or blocked ones, or when it is at least 0.5% of the CPU time
	 * and 10 ms (a few milliseconds no timer counts are noise of every
	 * run: the process clock and the counters do not start and stop at
	 * the same instant).
	 */
	if (d->unsampled || d->unsampled_blocked_ns || d->sigprof_blocked ||
	    ((double)d->unsampled_cpu_ns >= 0.005 * (double)d->cpu_ns &&
	     (!d->signo || d->unsampled_cpu_ns >= 10000000))) {
		int k = snprintf(unsampled, sizeof unsampled, ", %.3f CPU-s in threads zt could "
				 "not sample (%s)", ns_s(d->unsampled_cpu_ns), unsampled_why(d));

		if (d->unsampled && k > 0 && (size_t)k < sizeof unsampled)
			snprintf(unsampled + k, sizeof unsampled - (size_t)k, ", %" PRIu64
				 " threads not sampled", d->unsampled);
	} else {
		unsampled[0] = '\0';
	}
	/*
	 * After an exec the dump is the last image's: its figures are that
	 * image's, named, and the time before it is said apart, so that the two
	 * add up to the kernel's account of the whole process (wait4).
	 */
	image[0] = before[0] = '\0';
	started = started_image(path);
	if (d->exe && started && strcmp(d->exe, started) != 0) {
		snprintf(image, sizeof image, " of '%s'", d->exe);
		snprintf(before, sizeof before, "; before the exec of '%s', user %.3f s, "
			 "system %.3f s, in no dump", d->exe, f.user_before, f.sys_before);
	}
	free(started);
	/* With windows the CPU figures are the windows': no time "before". */
	if (d->have_windows)
		before[0] = '\0';
	/*
	 * Without an exec, the time before sampling began is the loader's
	 * start-up (a millisecond) and the constructors of the libraries that
	 * the loader ran before zt's, which zt cannot sample: said when it is
	 * 20 ms or more and a tenth of the sampled time, so that heavy work in
	 * constructors is never mistaken for nothing (a loader's start-up under
	 * load is a few ms). zt's own set-up (its unwind tables, before its
	 * timers start) is said apart, by the same rule.
	 */
	early = before[0] || d->have_windows ? 0 : f.user_before + f.sys_before - f.setup;
	setup = before[0] || d->have_windows ? 0 : f.setup;
	earlytxt[0] = '\0';
	if (early >= 0.02 && early >= 0.1 * (f.user + f.sys))
		snprintf(earlytxt, sizeof earlytxt, ", %.3f CPU-s before sampling began (the "
			 "loader and the constructors it ran before zt's) not sampled", early);
	else
		early = 0;
	if (setup >= 0.02 && setup >= 0.1 * (f.user + f.sys)) {
		size_t n = strlen(earlytxt);

		snprintf(earlytxt + n, sizeof earlytxt - n, ", %.3f CPU-s of zt's own set-up "
			 "(its unwind tables, built before its timers started)", setup);
		early += setup;
	}
	/* (In a wall dump, whose CPU time holds the sampler thread's, fewer than 5 samples.) */
	if ((d->wall && cpu_samples < 5) || (f.user + f.sys) * d->hz < 5) {
		/*
		 * Less CPU time than five samples' worth (each thread's first
		 * sample comes at a random point of its period, so there may be
		 * one): a rate would mean nothing, say what the time was.
		 */
		fprintf(stderr, "%s: %" PRIu64 " samples: the program%s was off-CPU for nearly "
			"all of its %s%.3f s of wall-clock time%s (%.3f CPU-s while sampled; zt "
			"samples CPU time, one sample per %.3f ms of it at %u Hz), timer %s%s%s, wrote "
			"'%s'; rusage: user %.3f s, system %.3f s%s\n",
			zt_prog, cpu_samples, image,
			early > 0 ? "time after sampling began, of " : "", wall,
			early > 0 ? " in all" : "",
			f.user + f.sys, d->hz ? 1000.0 / d->hz : 0, d->hz,
			d->timer ? d->timer : "unknown", unsampled, earlytxt, shown_out ? shown_out : out,
			tv_s(ru->ru_utime), tv_s(ru->ru_stime), before);
	} else {
		/* The kernel's own account of the program (wait4), for comparison. */
		fprintf(stderr, "%s: %" PRIu64 " samples in %.3f %sCPU-s%s and %.3f s wall-clock: "
			"%.1f Hz of %u requested, timer %s%s, %s lost%s%s%s, wrote '%s'; "
			"rusage: user %.3f s, system %.3f s%s\n",
			zt_prog, cpu_samples, f.cpu, f.useronly ? "user " : "", image, wall,
			rate, d->hz, d->timer ? d->timer : "unknown",
			d->rate_cap ? " (rate capped by the kernel tick)" : "", losttxt,
			unsampled, split, earlytxt, shown_out ? shown_out : out, tv_s(ru->ru_utime),
			tv_s(ru->ru_stime), before);
	}
	report_windows(&f, out, ru, 1);
	if (d->wall)
		report_wall(d, cpu_samples, off);
	report_alloc(d);
	report_notes(d);
	if (d->exec)
		report_unreached(r, d, 1);
	report_vforked(d);
	zt_raw_free(d);
	return 0;
}

/*
 * With -f: one line for the whole tree, last. It totals the program's dump
 * (out, if any) and every descendant's (FILE.PID, newer than start):
 * samples, the CPU time they stand for, the rate and the partial share, and
 * names each dump, with its snapshots (FILE.N, FILE.PID.N: zt-ctl's; their
 * samples are not in the totals, which are the end's dumps'). A descendant that exec'd what zt cannot reach is named
 * before it, with the reason. The CPU time each process used before its
 * sampling began (the loader, constructors run before zt's, an image
 * before an exec) is summed apart: in a tree of short processes it is
 * much of the time (make -j2: ld.so 13-15% of perf's samples), and no
 * single process says it (each is under the 20 ms its own line needs).
 * So is zt's own work as each process ends (its dump: "zt-exit-ns", and
 * the status pipe's "exit-cpu-ns" for what came after the summary), and
 * each process's exit in the kernel after that (its address space torn
 * down: 1 to 2 ms of a short process here), which no process can measure
 * of itself: its parent's account of it ("reaped PID NS", the kernel's
 * figure at the reaping; for the program, ru) less its own at its end and
 * less the children it reaped. Children reaped with no dump, and images
 * zt could not reach after an exec, are said apart; last, what the tree's
 * CPU time as the kernel accounts it (ru, the program's wait4, which holds
 * every descendant it and they reaped) leaves over: negative when dumps of
 * processes the program did not reap (daemons) are in the sums.
 */
struct tree_proc {
	uint64_t pid;		/* as its parent knows it (its own getpid) */
	double own;		/* its CPU time at its end, zt's exit work included */
	double children;	/* of the children it reaped */
	int exec;		/* it exec'd a program zt could not reach after its dump */
	int unknown;		/* its dump says no children's time (finished, older): unaccounted */
};
void zt_report_tree(const struct zt_report *r, const struct timespec *start)
{
	const char *out = r->out;
	const struct rusage *ru = r->ru;
	double wall = r->wall;
	pid_t child = r->child;
	char pattern[PATH_MAX + 8];
	glob_t g;
	size_t cap = 256, len = 0, ndumps = 0;
	uint64_t samples = 0, partial = 0;
	double cpu = 0, sys = 0, early = 0, setup = 0, zexit = 0, tree, rest;
	double kexit = 0, nodump = 0;
	size_t nearly = 0, nexit, nprocs = 0, capprocs = 0, nreaped = 0, capreaped = 0, nk = 0;
	size_t nnodump = 0;
	struct tree_proc *procs = NULL;
	struct zt_raw_reaped *reaped = NULL;
	int useronly = 1;
	char *names = zt_malloc(cap);
	struct figures f;
	struct zt_exit_cpu *exits = NULL;

	names[0] = '\0';
	nexit = zt_status_exit_cpu(r->status, &exits);
	snprintf(pattern, sizeof pattern, "%s.[0-9]*", out);
	if (glob(pattern, 0, NULL, &g) != 0)
		g.gl_pathc = 0;
	for (size_t i = 0; i <= g.gl_pathc; i++) {
		const char *path = i == 0 ? out : g.gl_pathv[i - 1];
		const char *exe;
		struct stat st;
		size_t need;
		double after = 0;	/* zt's exit work after the summary (the status pipe) */

		if (i > 0) {
			const char *suffix = path + strlen(out) + 1;

			if (strspn(suffix, "0123456789") != strlen(suffix) ||
			    stat(path, &st) < 0 || st.st_mtim.tv_sec < start->tv_sec ||
			    (st.st_mtim.tv_sec == start->tv_sec &&
			     st.st_mtim.tv_nsec < start->tv_nsec))
				continue;
		} else if (access(path, F_OK) != 0) {
			continue;
		}
		if (read_figures(path, &f) < 0)
			continue;
		if (f.d.snapshot) {	/* FILE.N, a snapshot: not a descendant's */
			zt_raw_free(&f.d);
			continue;
		}
		if (i > 0 && f.d.exec)
			report_unreached(r, &f.d, 0);
		if (i > 0)
			report_vforked(&f.d);
		/* CPU samples: a wall dump's off-CPU ones are not (report_wall). */
		if (f.d.wall && f.d.have_off_cpu && f.d.off_cpu_samples <= f.d.nsamples)
			f.d.nsamples -= f.d.off_cpu_samples;
		samples += f.d.nsamples;
		partial += f.d.partial;
		cpu += f.cpu;
		if (f.d.have_windows) {
			/* Its CPU figures are the windows': the rest is unaccounted. */
			sys += f.sys;
		} else {
			/*
			 * While sampling ran, what the samples do not stand for:
			 * system time with perf-task-clock (and threads without
			 * a timer). zt's exit work is said apart.
			 */
			double run = f.user + f.sys - f.exit;
			pid_t pid = i == 0 ? child : (pid_t)strtol(path + strlen(out) + 1, NULL, 10);

			sys += run > f.cpu ? run - f.cpu : 0;
			zexit += f.exit;
			for (size_t k = 0; k < nexit && f.exit > 0; k++)
				if (exits[k].pid == pid)
					after = ns_s(exits[k].ns);
			zexit += after;
		}
		if (f.d.have_pid) {
			zt_grow(&procs, &capprocs, nprocs + 1, sizeof *procs);
			procs[nprocs].unknown = !f.d.have_cpu_children || f.d.have_windows;
			/* The program's parent is zt-collect: its pid as zt-collect knows it. */
			procs[nprocs].pid = i == 0 ? (uint64_t)child : f.d.pid;
			procs[nprocs].own = ns_s(f.d.cpu_user_ns + f.d.cpu_sys_ns) + after;
			procs[nprocs].exec = f.d.exec != NULL;
			procs[nprocs++].children = ns_s(f.d.cpu_children_ns);
		}
		for (size_t k = 0; k < f.d.nreaped; k++) {
			zt_grow(&reaped, &capreaped, nreaped + 1, sizeof *reaped);
			reaped[nreaped++] = f.d.reaped[k];
		}
		if (!f.d.have_windows && f.user_before + f.sys_before > 0) {
			early += f.user_before + f.sys_before - f.setup;
			setup += f.setup;
			nearly++;
		}
		useronly &= f.useronly;
		exe = f.d.exe ? strrchr(f.d.exe, '/') : NULL;
		exe = exe ? exe + 1 : f.d.exe ? f.d.exe : "?";
		need = len + 3 * strlen(path) + strlen(exe) + 128;
		zt_grow(&names, &cap, need, 1);
		len += (size_t)snprintf(names + len, cap - len, "%s'%s' (%s, %" PRIu64 " samples",
					ndumps ? ", " : "", path, exe, f.d.nsamples);
		/* Its snapshots (zt-ctl, zt_snapshot), named as the program's line names its own. */
		if (f.d.snapshots > 1)
			len += (size_t)snprintf(names + len, cap - len, "; snapshots '%s.1' to "
						"'%s.%" PRIu64 "' hold the samples before", path,
						path, f.d.snapshots);
		else if (f.d.snapshots)
			len += (size_t)snprintf(names + len, cap - len, "; snapshot '%s.1' holds "
						"the samples before", path);
		len += (size_t)snprintf(names + len, cap - len, ")");
		ndumps++;
		zt_raw_free(&f.d);
	}
	globfree(&g);
	free(exits);
	tree = tv_s(ru->ru_utime) + tv_s(ru->ru_stime);
	/*
	 * Each process's exit in the kernel: its parent's account of it less
	 * its own and its children's. The program's parent is zt-collect (ru).
	 * A reaped child with no dump: all its time is said apart.
	 */
	for (size_t k = 0; k < nprocs; k++) {
		double theirs = -1;

		if (procs[k].pid == (uint64_t)child) {
			theirs = tree;
		} else {
			for (size_t r = 0; r < nreaped && theirs < 0; r++)
				if (reaped[r].pid == procs[k].pid) {
					theirs = ns_s(reaped[r].ns);
					reaped[r].pid = 0;	/* each record is one process's */
				}
		}
		if (theirs < 0 || procs[k].unknown)
			continue;
		if (procs[k].exec) {
			/* The image zt could not reach ran after the dump. */
			nodump += theirs - procs[k].own - procs[k].children;
			nnodump++;
			continue;
		}
		kexit += theirs - procs[k].own - procs[k].children;
		nk++;
	}
	for (size_t r = 0; r < nreaped; r++)
		if (reaped[r].pid) {
			nodump += ns_s(reaped[r].ns);
			nnodump++;
		}
	free(procs);
	free(reaped);
	fprintf(stderr, "%s: with -f, %zu dump%s: %" PRIu64 " samples in %.3f %sCPU-s and "
		"%.3f s wall-clock: %.1f Hz", zt_prog, ndumps, ndumps == 1 ? "" : "s", samples,
		cpu, useronly ? "user " : "", wall, cpu > 0 ? (double)samples / cpu : 0);
	if (useronly)
		fprintf(stderr, ", system %.3f s not sampled", sys);
	else if (sys >= 0.0005)
		fprintf(stderr, ", %.3f CPU-s not sampled", sys);
	if (early + setup >= 0.0005)
		fprintf(stderr, ", %.3f CPU-s before sampling began in %zu process%s (the loader, "
			"constructors run before zt's, images before an exec) and %.3f of zt's own "
			"set-up not sampled", early, nearly, nearly == 1 ? "" : "es", setup);
	if (zexit >= 0.0005)
		fprintf(stderr, ", %.3f CPU-s of zt's exit work (writing the dumps)", zexit);
	if (nk)
		fprintf(stderr, ", %.3f CPU-s of the kernel's exit of %zu process%s after %s "
			"dump (the parent's account less the process's own)", kexit, nk,
			nk == 1 ? "" : "es", nk == 1 ? "its" : "each");
	if (nnodump)
		fprintf(stderr, ", %.3f CPU-s in %zu process%s zt could not reach (no dump; "
			"images after an exec)", nodump, nnodump, nnodump == 1 ? "" : "es");
	rest = tree - (cpu + sys + early + setup + zexit + kexit + nodump);
	if (rest > -0.0005 && rest < 0.0005)
		rest = 0;	/* no "-0.000" */
	if (ndumps && tree > 0)
		fprintf(stderr, "; of the tree's %.3f CPU-s (rusage), %.3f (%.1f%%) unaccounted",
			tree, rest, 100 * rest / tree);
	fprintf(stderr, ", %.1f%% of stacks partial; wrote %s\n",
		samples ? 100.0 * (double)partial / (double)samples : 0.0,
		ndumps ? names : "nothing");
	free(names);
}
