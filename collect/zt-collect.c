/*
 * zt-collect — run a program with libzt-prof.so preloaded and report what
 * was sampled.
 *
 *   zt-collect [-fz] [-F HZ] [-o FILE] [--timer=auto|perf|posix] [--unwind=auto|cfi|fp]
 *              [--paused] [--control] [--clock=cpu|wall] [--off-cpu-hz=HZ] [--] PROGRAM [ARG...]
 *
 * The checks that can fail without running anything (the frequency, the
 * output's directory, the program, static linking) are done first. While the
 * program runs, SIGINT and SIGQUIT are ignored here (the terminal sends them
 * to the program too) so that zt-collect outlives it and can report, and
 * SIGTERM and SIGHUP are passed on. The exit status is the program's.
 */
#include "ctl.h"
#include "elfread.h"
#include "input.h"
#include "raw.h"
#include "rawfmt.h"
#include "usage.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

enum { EXIT_CANNOT_RUN = 127 };

enum { OPT_TIMER = 256, OPT_UNWIND, OPT_PAUSED, OPT_CONTROL, OPT_CLOCK, OPT_OFF_CPU_HZ,
       OPT_MAX_DEPTH, OPT_LABEL };

static const struct zt_opt options[] = {
	{ 'F', "freq", required_argument, "HZ",
	  "samples per CPU-second, 1 to " ZT_STR(ZT_HZ_MAX) " (default " ZT_STR(ZT_HZ_DEFAULT) ")" },
	{ 'o', "output", required_argument, "FILE",
	  "where to write the dump (default zt.raw; - for\n"
	  "standard output; a device or FIFO is written into)" },
	{ 'z', "gzip", no_argument, NULL, "compress the dump (also when FILE ends in .gz)" },
	{ 'f', "follow", no_argument, NULL, "profile every descendant too, each into FILE.PID" },
	{ OPT_TIMER, "timer", required_argument, "KIND",
	  "auto (default), perf (perf_event task clock only)\n"
	  "or posix (POSIX CPU timer, capped at the kernel tick)" },
	{ OPT_UNWIND, "unwind", required_argument, "HOW",
	  "auto (default: unwind tables where an object has\n"
	  "them, frame pointers elsewhere), cfi (tables only)\n"
	  "or fp (frame pointers only)" },
	{ OPT_MAX_DEPTH, "max-depth", required_argument, "N",
	  "frames kept per sample, " ZT_STR(ZT_DEPTH_MIN) " to " ZT_STR(ZT_DEPTH_MAX)
	  " (default " ZT_STR(ZT_DEPTH_DEFAULT) ");\n"
	  "deeper stacks are cut and end in [depth limit]" },
	{ OPT_PAUSED, "paused", no_argument, NULL,
	  "start with sampling off, until 'zt-ctl PID start'\n"
	  "or the program's zt_start() (implies --control;\n"
	  "PID: the program's, or zt-collect's own)" },
	{ OPT_CONTROL, "control", no_argument, NULL,
	  "serve zt-ctl: sampling on and off, and snapshots\n"
	  "FILE.1, FILE.2, ... (also ZT_CONTROL=1)" },
	{ OPT_CLOCK, "clock", required_argument, "CLOCK",
	  "cpu (default: samples of CPU time) or wall (also\n"
	  "where the threads not running waited, off-CPU)" },
	{ OPT_OFF_CPU_HZ, "off-cpu-hz", required_argument, "HZ",
	  "with --clock=wall: off-CPU ticks per second, 1 to\n"
	  ZT_STR(ZT_OFF_CPU_HZ_MAX) " (default " ZT_STR(ZT_OFF_CPU_HZ_DEFAULT) ")" },
	{ OPT_LABEL, "label", required_argument, "KEY=VALUE",
	  "a label of the run, written in the dump beside\n"
	  "the host name (repeatable: service, version, ...)" },
	{ 'h', "help", no_argument, NULL, "print this help" },
	{ 'V', "version", no_argument, NULL, "print the version" },
	{ 0 },
};

static const struct zt_usage usage = {
	"zt-collect [-fz] [-F HZ] [-o FILE] [--timer=auto|perf|posix] [--unwind=auto|cfi|fp]\n"
	"       [--max-depth=N] [--paused] [--control] [--clock=cpu|wall] [--off-cpu-hz=HZ]\n"
	"       [--label KEY=VALUE]... [--] PROGRAM [ARG...]",
	"Run PROGRAM with the zt sampler preloaded and write a raw dump.",
	options,
	NULL,
};

/* What the command line asked for. */
struct config {
	const char *outarg, *timer, *unwind, *clock;
	uint64_t hz, off_cpu_hz, max_depth;
	int gzip, follow, paused, control;
	char labels[ZT_LABELS_MAX * (ZT_LABEL_KEY_MAX + ZT_LABEL_VALUE_MAX + 2)];
	unsigned nlabels;	/* "KEY=VALUE" pairs in labels, joined by '\n' */
};

static pid_t child;
static const char *shown_out;	/* the dump's name in messages, when not its file (a sink) */

/* Bad usage: say what (fmt may be NULL), show the usage line, exit 2. */
static void bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void bad_usage(const char *fmt, ...)
{
	char msg[ZT_ERR_MAX];
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		zt_warn("%s", msg);
	}
	zt_usage(&usage, stderr);
	exit(ZT_EXIT_USAGE);
}

/* --label KEY=VALUE into cfg, by the label rules (rawfmt.h), or a usage error. */
static void add_label(struct config *cfg, const char *arg)
{
	const char *eq = strchr(arg, '='), *p = cfg->labels;
	size_t kn = eq ? (size_t)(eq - arg) : 0, len = strlen(cfg->labels);

	if (!eq || !zt_label_key_ok(arg, kn))
		bad_usage("--label: '%s' is not KEY=VALUE with a KEY of 1 to "
			  ZT_STR(ZT_LABEL_KEY_MAX) " letters, digits, '_', '.' or '-', a letter "
			  "or '_' first", arg);
	if (!zt_label_value_ok(eq + 1, strlen(eq + 1)))
		bad_usage("--label: the value of %.*s is longer than " ZT_STR(ZT_LABEL_VALUE_MAX)
			  " bytes or holds a control character or a backslash", (int)kn, arg);
	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (strncmp(p, arg, kn + 1) == 0)
			bad_usage("--label: %.*s is given twice", (int)kn, arg);
	if (cfg->nlabels == ZT_LABELS_MAX)
		bad_usage("--label: more than " ZT_STR(ZT_LABELS_MAX) " labels");
	snprintf(cfg->labels + len, sizeof cfg->labels - len, "%s%s", len ? "\n" : "", arg);
	cfg->nlabels++;
}

/* Options into cfg; returns the index of PROGRAM in argv. */
static int parse_options(int argc, char **argv, struct config *cfg)
{
	int c;

	*cfg = (struct config){ .outarg = "zt.raw", .timer = "auto", .unwind = "auto",
				.clock = ZT_RAW_PROFILE_CPU, .hz = ZT_HZ_DEFAULT,
				.off_cpu_hz = ZT_OFF_CPU_HZ_DEFAULT,
				.max_depth = ZT_DEPTH_DEFAULT };
	while ((c = zt_usage_getopt_ordered(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'f':
			cfg->follow = 1;
			break;
		case 'z':
			cfg->gzip = 1;
			break;
		case 'F':
			if (zt_parse_u64(optarg, 10, &cfg->hz) || cfg->hz < 1 || cfg->hz > ZT_HZ_MAX)
				bad_usage("-F: '%s' is not a frequency from 1 to " ZT_STR(ZT_HZ_MAX),
					  optarg);
			break;
		case 'o':
			cfg->outarg = optarg;
			break;
		case OPT_TIMER:
			if (strcmp(optarg, "auto") && strcmp(optarg, "perf") &&
			    strcmp(optarg, "posix"))
				bad_usage("--timer: '%s' is not auto, perf or posix", optarg);
			cfg->timer = optarg;
			break;
		case OPT_MAX_DEPTH:
			if (zt_parse_u64(optarg, 10, &cfg->max_depth) ||
			    cfg->max_depth < ZT_DEPTH_MIN || cfg->max_depth > ZT_DEPTH_MAX)
				bad_usage("--max-depth: '%s' is not a number of frames from "
					  ZT_STR(ZT_DEPTH_MIN) " to " ZT_STR(ZT_DEPTH_MAX), optarg);
			break;
		case OPT_PAUSED:
			cfg->paused = 1;
			break;
		case OPT_LABEL:
			add_label(cfg, optarg);
			break;
		case OPT_CONTROL:
			cfg->control = 1;
			break;
		case OPT_UNWIND:
			if (strcmp(optarg, ZT_RAW_UNWIND_AUTO) && strcmp(optarg, ZT_RAW_UNWIND_CFI) &&
			    strcmp(optarg, ZT_RAW_UNWIND_FP))
				bad_usage("--unwind: '%s' is not auto, cfi or fp", optarg);
			cfg->unwind = optarg;
			break;
		case OPT_CLOCK:
			if (strcmp(optarg, ZT_RAW_PROFILE_CPU) && strcmp(optarg, ZT_RAW_PROFILE_WALL))
				bad_usage("--clock: '%s' is not cpu or wall", optarg);
			cfg->clock = optarg;
			break;
		case OPT_OFF_CPU_HZ:
			if (zt_parse_u64(optarg, 10, &cfg->off_cpu_hz) || cfg->off_cpu_hz < 1 ||
			    cfg->off_cpu_hz > ZT_OFF_CPU_HZ_MAX)
				bad_usage("--off-cpu-hz: '%s' is not a frequency from 1 to "
					  ZT_STR(ZT_OFF_CPU_HZ_MAX), optarg);
			break;
		case 'h':
			zt_usage(&usage, stdout);
			exit(ZT_EXIT_OK);
		case 'V':
			zt_version();
			exit(ZT_EXIT_OK);
		default:
			bad_usage(NULL);
		}
	}
	if (optind >= argc)
		bad_usage("%s", "no program to run");
	return optind;
}

/* PROGRAM as execvp would find it; NULL with errno set if not found. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int saved = ENOENT;

	if (strchr(name, '/')) {
		if (access(name, X_OK) == 0)
			return zt_strdup(name);
		return NULL;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		struct stat st;

		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? path : ".", name);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return zt_strdup(buf);
			saved = EACCES;
		}
		path += n + (colon != NULL);
	}
	errno = saved;
	return NULL;
}

/*
 * Why the loader will not preload the collector into path (after resolving
 * it on PATH), or NULL when nothing says it will not: statically linked (no
 * PT_INTERP), or run in secure-execution mode (set-user-ID or set-group-ID
 * to another user or group, where ld.so ignores LD_PRELOAD paths). A script
 * is judged by its interpreter. Anything that cannot be read gives NULL.
 */
static const char *unreachable_reason(const char *path, int depth)
{
	char head[256], err[256], *found = NULL;
	const char *why = NULL;
	struct zt_elf e;
	struct stat st;
	ssize_t n;
	int fd;

	if (!strchr(path, '/') && !(path = found = find_program(path)))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		free(found);
		return NULL;
	}
	n = read(fd, head, sizeof head - 1);
	close(fd);
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		why = "it is set-user-ID to another user, and the loader ignores LD_PRELOAD there";
	else if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
		why = "it is set-group-ID to another group, and the loader ignores LD_PRELOAD there";
	else if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		/* For root, file capabilities raise nothing: no secure execution. */
		why = "it has file capabilities (security.capability), and the loader ignores "
		      "LD_PRELOAD there";
	else if (n >= 4 && head[0] == '#' && head[1] == '!') {
		char *p = head + 2;

		head[n] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, " \t\n")] = '\0';
		if (*p && depth == 0)
			why = unreachable_reason(p, 1);
	} else if (n >= 4 && zt_elf_open(path, &e, err, sizeof err) == 0) {
		if (!e.has_interp)
			why = "it is statically linked: LD_PRELOAD cannot reach it";
		zt_elf_close(&e);
	}
	free(found);
	return why;
}

/*
 * Refuse, before it runs, a program the collector cannot reach: statically
 * linked, set-user-ID, set-group-ID or with file capabilities that change
 * its credentials (secure execution, where the loader ignores LD_PRELOAD).
 */
static void check_dynamic(const char *prog)
{
	const char *why = unreachable_reason(prog, 0);

	if (why && strstr(why, "statically linked"))
		zt_die(1, "'%s' is statically linked: LD_PRELOAD cannot reach it, "
		       "so it cannot be profiled (link it dynamically, or use perf record)",
		       prog);
	if (why)
		zt_die(1, "'%s' cannot be profiled: %s (profile a copy without the bit or "
		       "the capabilities, or run zt-collect as its owner)", prog, why);
}

/* The collector: $ZT_PROF_LIB, else beside us (build tree), else ../lib/zt. */
static char *find_library(void)
{
	const char *env = getenv("ZT_PROF_LIB");
	char self[PATH_MAX], buf[PATH_MAX + 64], *slash;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK) != 0)
			zt_die(1, "cannot read ZT_PROF_LIB '%s':", env);
		return realpath(env, NULL);
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		zt_die(1, "cannot find myself in /proc/self/exe:");
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(buf, sizeof buf, "%s/libzt-prof.so", self);
	if (access(buf, R_OK) == 0)
		return zt_strdup(buf);
	snprintf(buf, sizeof buf, "%s/../lib/zt/libzt-prof.so", self);
	if (access(buf, R_OK) == 0)
		return realpath(buf, NULL);
	zt_die(1, "cannot find libzt-prof.so beside '%s' or in '%s/../lib/zt'", self, self);
}

/* An absolute path for FILE whose directory must exist and be writable. */
static char *output_path(const char *file)
{
	char dir[PATH_MAX], *abs, *slash;
	const char *base;
	char probe[PATH_MAX + 32];
	int fd;

	if (!*file)
		zt_die(2, "the output file name is empty");
	snprintf(dir, sizeof dir, "%s", file);
	slash = strrchr(dir, '/');
	if (slash) {
		base = file + (slash - dir) + 1;
		if (slash == dir)
			strcpy(dir, "/");
		else
			*slash = '\0';
	} else {
		base = file;
		strcpy(dir, ".");
	}
	if (!*base)
		zt_die(2, "'%s' names a directory, not a file", file);
	abs = realpath(dir, NULL);
	if (!abs)
		zt_die(1, "cannot write '%s': directory '%s':", file, dir);
	snprintf(probe, sizeof probe, "%s/.zt-probe.%d", abs, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		zt_die(1, "cannot write '%s':", file);
	close(fd);
	unlink(probe);
	slash = zt_malloc(strlen(abs) + strlen(base) + 2);
	sprintf(slash, "%s/%s", strcmp(abs, "/") ? abs : "", base);
	free(abs);
	return slash;
}

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
 * ru is given), "end"; then publishes it as out. What could not be
 * counted: each thread's last buffer, at most one a thread.
 */
struct unfinished {
	uint64_t samples;	/* the samples in the file (counts summed) */
	size_t threads;		/* the threads those came from */
	int gzip;		/* publish it compressed */
	const struct rusage *ru;	/* the process's own, or NULL */
};

/* The tmp file's whole lines: samples and their threads into u; the bytes to keep, or -1. */
static off_t unfinished_samples(const char *tmp, struct unfinished *u)
{
	char err[512];
	struct zt_input *in = zt_input_open(tmp, err, sizeof err);
	unsigned long *tids = NULL;
	size_t cap = 0;
	off_t keep = 0;
	int in_samples = 0, first = 1;
	char *line;
	size_t len;

	if (!in)
		return -1;
	while ((line = zt_input_line(in, &len))) {
		unsigned long tid;
		unsigned long long count;
		int known = 0;

		if (zt_input_unended(in))
			break;	/* cut inside the line: left out */
		keep += (off_t)len + 1;
		if (first && strncmp(line, ZT_RAW_MAGIC " ", sizeof ZT_RAW_MAGIC) != 0)
			break;
		first = 0;
		if (!in_samples) {
			in_samples = strcmp(line, ZT_RAW_SAMPLES) == 0;
			continue;
		}
		if (sscanf(line, "%lu %llu", &tid, &count) != 2)
			continue;
		u->samples += count;
		for (size_t i = 0; i < u->threads && !known; i++)
			known = tids[i] == tid;
		if (!known) {
			zt_grow(&tids, &cap, u->threads + 1, sizeof *tids);
			tids[u->threads++] = tid;
		}
	}
	zt_input_close(in);
	free(tids);
	return in_samples ? keep : -1;
}

/* Append src's whole lines to fd; -1 on a failed write. */
static int append_lines(int fd, const char *src)
{
	char buf[65536];
	off_t total = 0, keep = 0;
	ssize_t n;
	int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (in < 0)
		return 0;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		for (ssize_t i = n; i > 0; i--)
			if (buf[i - 1] == '\n') {
				keep = total + i;
				break;
			}
		total += n;
	}
	for (off_t off = 0; off < keep; off += n) {
		size_t want = keep - off > (off_t)sizeof buf ? sizeof buf : (size_t)(keep - off);

		n = pread(in, buf, want, off);
		if (n <= 0 || write(fd, buf, (size_t)n) != n) {
			close(in);
			return -1;
		}
	}
	close(in);
	return 0;
}

/* Compress the file at from into to (a new file); 0 or -1. */
static int gzip_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, ok = 1;
	gzFile z;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0 || !(z = gzdopen(out, "wb6"))) {
		if (out >= 0)
			close(out);
		close(in);
		return -1;
	}
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = gzwrite(z, buf, (unsigned)n) == (int)n;
	close(in);
	if (gzclose(z) != Z_OK || !ok) {
		unlink(to);
		return -1;
	}
	return 0;
}

/*
 * Finish and publish the dump process pid left at out.tmp.PID, as above.
 * 0 when published; -1 (and a warning) when nothing usable was there (the
 * process died before its header was whole) or it could not be written; 1
 * when there was no such file.
 */
static int finish_unfinished(const char *out, pid_t pid, struct unfinished *u)
{
	char tmp[PATH_MAX + 64], side[PATH_MAX + 80], gz[PATH_MAX + 80];
	off_t keep;
	FILE *f;
	int fd, bad;

	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
	snprintf(side, sizeof side, "%s.maps", tmp);
	fd = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		unlink(side);
		return 1;
	}
	keep = unfinished_samples(tmp, u);
	if (keep < 0 || ftruncate(fd, keep) < 0 || lseek(fd, 0, SEEK_END) != keep) {
		zt_warn("cannot finish the dump '%s' of pid %d: %s; removed", tmp, (int)pid,
			keep < 0 ? "it ended before the dump's header was whole" : strerror(errno));
		close(fd);
		unlink(tmp);
		unlink(side);
		return -1;
	}
	bad = append_lines(fd, side) < 0;
	f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		bad = 1;
	} else {
		fprintf(f, ZT_RAW_SUMMARY "\n" ZT_RAW_FINISHED " " ZT_RAW_FINISHED_LAUNCHER "\n"
			ZT_RAW_NSAMPLES " %" PRIu64 "\n", u->samples);
		if (u->ru) {
			uint64_t user = (uint64_t)u->ru->ru_utime.tv_sec * 1000000000u +
					(uint64_t)u->ru->ru_utime.tv_usec * 1000u;
			uint64_t sys = (uint64_t)u->ru->ru_stime.tv_sec * 1000000000u +
				       (uint64_t)u->ru->ru_stime.tv_usec * 1000u;

			fprintf(f, ZT_RAW_CPU_NS " %" PRIu64 "\n" ZT_RAW_CPU_USER_START_NS " 0\n"
				ZT_RAW_CPU_SYS_START_NS " 0\n" ZT_RAW_CPU_USER_NS " %" PRIu64 "\n"
				ZT_RAW_CPU_SYS_NS " %" PRIu64 "\n", user + sys, user, sys);
		}
		fputs(ZT_RAW_END "\n", f);
		bad |= fflush(f) != 0 || fsync(fileno(f)) < 0;
		bad |= fclose(f) != 0;
	}
	unlink(side);
	snprintf(gz, sizeof gz, "%s.gz", tmp);
	if (!bad && u->gzip && gzip_file(tmp, gz) == 0 && rename(gz, out) == 0) {
		unlink(tmp);
		return 0;
	}
	if (!bad && rename(tmp, out) == 0)
		return 0;
	zt_warn("cannot finish the dump '%s' of pid %d: %s; removed", tmp, (int)pid,
		strerror(errno ? errno : EIO));
	unlink(tmp);
	unlink(gz);
	return -1;
}

/* The word of the last status line process pid's collector wrote; NULL if none. */
static const char *last_status(const char *status, pid_t pid, char *what, size_t cap)
{
	const char *found = NULL;

	for (const char *line = status; line && *line;) {
		char w[65];
		long p;

		if (sscanf(line, "%ld %64s", &p, w) == 2 && p == pid) {
			snprintf(what, cap, "%s", w);
			found = what;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return found;
}

/*
 * The "PID exit-cpu-ns 0 NS" status lines: the CPU time of each process's
 * exit work after its dump's summary (the sync, the rename). The last of
 * each pid is its last image's (an image before an exec is in the next
 * one's start values). Returns how many, in *out.
 */
struct exit_cpu {
	pid_t pid;
	uint64_t ns;
};

static size_t exit_cpu_lines(const char *status, struct exit_cpu **out)
{
	static const char word[] = " exit-cpu-ns ";
	struct exit_cpu *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *line = status; line && *line;) {
		const char *nl = strchr(line, '\n'), *w = strstr(line, word);
		long p;
		int err;
		unsigned long long ns;

		if (w && (!nl || w < nl) &&
		    sscanf(line, "%ld exit-cpu-ns %d %llu", &p, &err, &ns) == 3) {
			size_t i = 0;

			while (i < n && v[i].pid != (pid_t)p)
				i++;
			if (i == n) {
				zt_grow(&v, &cap, n + 1, sizeof *v);
				v[n++].pid = (pid_t)p;
			}
			v[i].ns = ns;
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = v;
	return n;
}

/* One line on a dump zt-collect finished: what is in it, and what cannot be. */
static void say_finished(const char *who, const char *out, const struct unfinished *u,
			 char *note, size_t cap)
{
	snprintf(note, cap, "%s: note: %s ended without zt's exit path; zt-collect finished its dump '%s' "
		"from what reached the file: %" PRIu64 " samples of %zu thread%s; not counted: "
		"the samples of the last second or less of each thread (at most one buffer a "
		"thread), and the threads' names", zt_prog, who, out, u->samples, u->threads,
		u->threads == 1 ? "" : "s");
}

/*
 * A program killed by SIGKILL leaves its unfinished dump, FILE.tmp.PID, with
 * samples but no maps: useless, so it is removed.
 */
static void remove_partial(const char *out, pid_t pid, const char *status, int say)
{
	char tmp[PATH_MAX + 64];

	/* A whole dump that could not be renamed is kept (status_failure named it). */
	snprintf(tmp, sizeof tmp, "\n%d rename-failed ", (int)pid);
	if (strstr(status, tmp) || (strncmp(status, tmp + 1, strlen(tmp + 1)) == 0))
		return;

	snprintf(tmp, sizeof tmp, "%s.tmp.%d.maps", out, (int)pid);
	unlink(tmp);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
	if (unlink(tmp) == 0 && say)
		zt_warn("removed the unfinished dump '%s': the program ended before "
			"it could be completed", tmp);
}

/* The program has ended (a zombie, or reaped): signals are no longer passed on. */
static volatile sig_atomic_t child_ended;

static void pass_on(int sig)
{
	int saved = errno;

	if (child > 0 && !child_ended)
		kill(child, sig);
	errno = saved;
}

/*
 * The sanitizer runtime that program path needs (a DT_NEEDED libasan,
 * libtsan, libubsan, liblsan or libhwasan), as its DT_NEEDED names it, or
 * NULL. Such a runtime must come first in the initial library list (ASan
 * aborts at start otherwise: "ASan runtime does not come first"), so it
 * goes before the collector in LD_PRELOAD. The caller frees it.
 */
static char *sanitizer_runtime(const char *path)
{
	static const char *const runtimes[] = {
		"libasan.so", "libubsan.so", "liblsan.so", "libhwasan.so",
	};
	char err[256], *found = NULL;
	struct zt_elf e;

	if (zt_elf_open(path, &e, err, sizeof err) < 0)
		return NULL;
	for (size_t i = 0; i < e.nsections && !found; i++) {
		const struct zt_section *dyn = &e.sections[i], *str;

		if (dyn->type != SHT_DYNAMIC || dyn->link >= e.nsections ||
		    dyn->offset > e.size || dyn->size > e.size - dyn->offset)
			continue;
		str = &e.sections[dyn->link];
		if (str->offset > e.size || str->size > e.size - str->offset)
			continue;
		for (uint64_t k = 0; k + sizeof(Elf64_Dyn) <= dyn->size && !found;
		     k += sizeof(Elf64_Dyn)) {
			Elf64_Dyn d;
			const char *name;

			memcpy(&d, e.data + dyn->offset + k, sizeof d);
			if (d.d_tag == DT_NULL)
				break;
			if (d.d_tag != DT_NEEDED || d.d_un.d_val >= str->size)
				continue;
			name = (const char *)e.data + str->offset + d.d_un.d_val;
			if (!memchr(name, '\0', str->size - d.d_un.d_val))
				continue;
			for (size_t r = 0; r < sizeof runtimes / sizeof runtimes[0]; r++)
				if (strncmp(name, runtimes[r], strlen(runtimes[r])) == 0 &&
				    !strchr(name, ':'))
					found = zt_strdup(name);
		}
	}
	zt_elf_close(&e);
	return found;
}

/*
 * Prepend lib to LD_PRELOAD, keeping what the user preloads; first of all
 * the sanitizer runtime the program needs, if any (sanitizer_runtime).
 */
static void set_preload(const char *lib, const char *first)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;

	v = zt_malloc((first ? strlen(first) : 0) + strlen(lib) + (old ? strlen(old) : 0) + 3);
	sprintf(v, "%s%s%s%s%s", first ? first : "", first ? ":" : "", lib,
		old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", v, 1);
	free(v);
}

/*
 * What the collector in process pid said of its dump through the status
 * pipe (files.c): "PID WHAT ERRNO COUNT" lines. Returns 1 and prints the
 * reason when the dump could not be written; 0 otherwise.
 */
static int status_failure(const char *status, pid_t pid, const char *out)
{
	const char *line = status;

	while (line && *line) {
		char what[65];
		long p;
		int err;
		unsigned long long count;

		if (sscanf(line, "%ld %64s %d %llu", &p, what, &err, &count) == 4 && p == pid) {
			if (strcmp(what, "write-failed") == 0) {
				zt_warn("cannot write the dump '%s.tmp.%d': %s: no dump was written, "
					"%llu samples lost", out, (int)pid, strerror(err), count);
				return 1;
			}
			if (strcmp(what, "descriptor-lost") == 0) {
				zt_warn("the program closed the dump's descriptor and its file "
					"'%s.tmp.%d' could not be reopened: no dump was written, "
					"%llu samples lost", out, (int)pid, count);
				return 1;
			}
			if (strcmp(what, "open-failed") == 0) {
				zt_warn("cannot create '%s.tmp.%d': %s: the program ran unsampled",
					out, (int)pid, strerror(err));
				return 1;
			}
			if (strcmp(what, "rename-failed") == 0) {
				/*
				 * The dump is whole, but the program could not
				 * rename it (it dropped root, say, and the
				 * directory is root's): zt-collect, with the
				 * rights it started with, publishes it, or keeps
				 * it and names it. Never removed.
				 */
				char tmp[PATH_MAX + 32], side[PATH_MAX + 40];

				snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
				/* Its side file, copied into it, the program could not remove either. */
				snprintf(side, sizeof side, "%s.maps", tmp);
				unlink(side);
				if (rename(tmp, out) == 0) {
					zt_warn("note: the program could not rename its dump '%s' "
						"to '%s' (%s: it changed its credentials?); "
						"zt-collect published it", tmp, out, strerror(err));
					line = strchr(line, '\n');
					if (line)
						line++;
					continue;
				}
				zt_warn("cannot rename '%s' to '%s': %s (the program), %s "
					"(zt-collect): the whole dump is kept as '%s'", tmp, out,
					strerror(err), strerror(errno), tmp);
				return 1;
			}
			if (strncmp(what, "seccomp-refuses-", 16) == 0) {
				zt_warn("the program runs under a seccomp filter that would kill "
					"zt's %s system call: it ran unsampled, and no dump was "
					"written", what + 16);
				return 1;
			}
			if (strcmp(what, "control-failed") == 0)
				zt_warn("cannot serve zt-ctl in pid %ld: %s: sampling stayed as it "
					"started", p, strerror(err));
			if (strcmp(what, "gzip-failed") == 0)
				zt_warn("cannot compress '%s': %s: the dump was kept "
					"uncompressed", out, strerror(err));
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

/*
 * With -f: every descendant whose collector said its dump could not be
 * written or published (status lines of other pids), named with the cause
 * (status_failure). Returns how many.
 */
static int descendants_failed(const char *out, const char *status)
{
	static const char *const bad[] = { "write-failed", "descriptor-lost", "open-failed",
					   "rename-failed", "seccomp-refuses-" };
	pid_t seen[256];
	int nseen = 0, failed = 0;

	for (const char *line = status; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char what[65], path[PATH_MAX + 32];
		long p;
		int known = 0, is_bad = 0;

		if (sscanf(line, "%ld %64s", &p, what) != 2 || p == child)
			continue;
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			is_bad |= strncmp(what, bad[i], strlen(bad[i])) == 0;
		for (int i = 0; i < nseen; i++)
			known |= seen[i] == (pid_t)p;
		if (!is_bad || known || nseen == 256)
			continue;
		seen[nseen++] = (pid_t)p;
		snprintf(path, sizeof path, "%s.%ld", out, p);
		failed += status_failure(status, (pid_t)p, path);
	}
	return failed;
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
static int report_windows(const struct figures *f, const char *out, struct rusage *ru, int after)
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
static void report_unreached(const struct zt_raw *d, int top)
{
	const char *why = unreachable_reason(d->exec, 0);

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
static void report_wall(const struct zt_raw *d, uint64_t cpu_samples)
{
	double cpu_ns = d->hz ? (double)cpu_samples * 1e9 / d->hz : 0;
	double off_ns = (double)d->weight > cpu_ns ? (double)d->weight - cpu_ns : 0;
	double span = d->have_wall_ns ? ns_s(d->wall_ns) : 0;

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
		if (strncmp(d->seccomp, "stopped", 7) == 0)
			zt_warn("note: the program installed a seccomp filter that would kill "
				"zt's %s system call: sampling stopped there, and the dump "
				"covers the run until then", call);
		else if (strncmp(d->seccomp, "no-new-threads", 14) == 0)
			zt_warn("note: the program installed a seccomp filter that would kill "
				"zt's %s system call: threads it created after that were not "
				"sampled", call);
		else if (strncmp(d->seccomp, "posix-timer", 11) == 0)
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

/*
 * Print the one-line summary of the program's dump and its notes; -1 if
 * there is no usable dump. wall is the run's wall-clock time.
 */
static int report(const char *out, const char *prog, const char *path, struct rusage *ru,
		  double wall, const char *status, pid_t pid)
{
	struct figures f;
	struct zt_raw *d = &f.d;
	char split[96], unsampled[320], image[PATH_MAX + 64], before[PATH_MAX + 160];
	char *started;
	char earlytxt[256], losttxt[32];
	double rate, early, setup;
	uint64_t off = 0, cpu_samples;

	if (status_failure(status, pid, out))
		return -1;
	if (access(out, F_OK) != 0) {
		const char *why = unreachable_reason(path, 0);

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
	cpu_samples = d->nsamples - off;
	if (report_windows(&f, out, ru, 0)) {
		if (d->wall)
			report_wall(d, cpu_samples);
		report_notes(d);
		zt_raw_free(d);
		return 0;
	}
	rate = f.cpu > 0 ? (double)cpu_samples / f.cpu : 0;
	/* A dump zt-collect finished cannot know its last buffers (the note after says). */
	if (d->finished)
		snprintf(losttxt, sizeof losttxt, "the last buffers");
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
		report_wall(d, cpu_samples);
	report_notes(d);
	if (d->exec)
		report_unreached(d, 1);
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
static void report_tree(const char *out, const struct timespec *start, double wall,
			const struct rusage *ru, const char *status)
{
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
	struct exit_cpu *exits = NULL;

	names[0] = '\0';
	nexit = exit_cpu_lines(status, &exits);
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
			report_unreached(&f.d, 0);
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

/*
 * The dump's absolute path, checked before anything runs: its directory
 * must be writable and the names the collector makes from it must fit.
 */
static char *prepare_output(struct config *cfg)
{
	char *out = output_path(cfg->outarg);
	/*
	 * The collector writes FILE.tmp.PID (and .maps, .gz beside it), and
	 * with -f FILE.PID.tmp.PID: check now that those names fit, rather
	 * than let the program run unsampled.
	 */
	size_t extra = strlen(".tmp.4194304.maps") + (cfg->follow ? strlen(".4194304") : 0);
	size_t base = strlen(strrchr(out, '/') + 1);

	if (base + extra > NAME_MAX)
		zt_die(ZT_EXIT_USAGE, "the output file name '%s' is too long: at most %zu bytes%s",
		       strrchr(out, '/') + 1, (size_t)NAME_MAX - extra,
		       cfg->follow ? " with -f" : "");
	if (strlen(out) + extra >= 4096 - 32)
		zt_die(ZT_EXIT_USAGE, "the output path '%s' is too long", out);
	if (strlen(out) > 3 && strcmp(out + strlen(out) - 3, ".gz") == 0)
		cfg->gzip = 1;
	return out;
}

/*
 * Where the dump goes when FILE is no name to publish a file at: "-"
 * (standard output), or an existing character device or FIFO, directly or
 * through a symbolic link (/dev/null, /dev/stdout): written into, as perf
 * record -o does. The run then writes its dump in a private directory, and
 * zt-collect copies the finished dump into the target once the program has
 * ended. Anything else that exists and is not a regular file (a symbolic
 * link to one, a block device, a socket) is refused before the run: zt
 * never replaces a non-regular file. A regular file is removed when the
 * run starts (start_output), so an older dump is never taken for this
 * run's.
 */
struct sink {
	const char *target;	/* NULL: the dump is published at FILE itself */
	int to_stdout;
	char *dir;		/* the private directory the run writes in */
};


/* Whether FILE is written into (s filled) rather than published at; dies if it is refused. */
static int sink_of(const struct config *cfg, struct sink *s)
{
	const char *file = cfg->outarg;
	struct stat lst, st;

	memset(s, 0, sizeof *s);
	if (strcmp(file, "-") == 0) {
		s->to_stdout = 1;
	} else if (lstat(file, &lst) < 0) {
		return 0;
	} else if (S_ISREG(lst.st_mode) || S_ISDIR(lst.st_mode)) {
		return 0;
	} else if (stat(file, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		if (S_ISLNK(lst.st_mode))
			zt_die(ZT_EXIT_DATA, "cannot write '%s': it is a symbolic link, and zt-collect "
			       "replaces none (name its target, or -o - for standard output)", file);
		zt_die(ZT_EXIT_DATA, "cannot write '%s': it is not a regular file, a character "
		       "device or a FIFO, and zt-collect replaces no other file", file);
	}
	if (cfg->follow || cfg->control || cfg->paused)
		bad_usage("-o %s: %s writes more dumps beside FILE: give a file name", file,
			  cfg->follow ? "-f" : "--control");
	s->target = file;
	return 1;
}

/* The private directory a sink's run writes in, and the dump's path there. */
static char *sink_start(struct sink *s, int gzip)
{
	const char *tmpdir = getenv("TMPDIR");
	char *dir = zt_malloc(PATH_MAX), *out;

	snprintf(dir, PATH_MAX, "%s/zt-collect.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		zt_die(ZT_EXIT_DATA, "cannot make a directory for the dump in '%s':",
		       tmpdir && *tmpdir ? tmpdir : "/tmp");
	s->dir = dir;
	out = zt_malloc(strlen(dir) + 16);
	sprintf(out, "%s/%s", dir, gzip ? "zt.raw.gz" : "zt.raw");
	shown_out = s->to_stdout ? "<stdout>" : s->target;
	return out;
}

/*
 * Copy the finished dump into the sink (standard output, or the device or
 * FIFO opened for writing now, without creating or truncating it); then
 * remove the private directory. -1 when it could not be written whole.
 */
static int sink_finish(struct sink *s, const char *out)
{
	char buf[65536];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int in = open(out, O_RDONLY | O_CLOEXEC), fd = -1, rc = 0;
	ssize_t n;
	glob_t g;
	char pattern[PATH_MAX + 8];

	sigaction(SIGPIPE, &ign, &old);	/* a reader gone is a failed write, said */
	if (in >= 0) {
		fd = s->to_stdout ? STDOUT_FILENO : open(s->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			rc = -1;
		while (rc == 0 && fd >= 0 && (n = read(in, buf, sizeof buf)) > 0)
			for (ssize_t off = 0, w; off < n; off += w) {
				w = write(fd, buf + off, (size_t)(n - off));
				if (w < 0 && errno == EINTR) {
					w = 0;
					continue;
				}
				if (w <= 0) {
					rc = -1;
					break;
				}
			}
		if (rc < 0)
			zt_warn("cannot write the dump to '%s': %s", shown_out, strerror(errno));
		if (fd >= 0 && fd != STDOUT_FILENO)
			close(fd);
		close(in);
	}
	sigaction(SIGPIPE, &old, NULL);
	snprintf(pattern, sizeof pattern, "%s/*", s->dir);
	if (glob(pattern, GLOB_PERIOD, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	rmdir(s->dir);
	free(s->dir);
	return rc;
}

/*
 * A regular file at FILE, an older dump, is removed now: a run that leaves
 * none never shows it as its own, and one that does publishes over nothing.
 */
static void start_output(const char *out)
{
	struct stat st;

	if (lstat(out, &st) == 0 && S_ISDIR(st.st_mode))
		zt_die(ZT_EXIT_DATA, "cannot replace '%s': Is a directory", out);
	if (lstat(out, &st) == 0 && S_ISREG(st.st_mode) && unlink(out) < 0 && errno != ENOENT)
		zt_die(ZT_EXIT_DATA, "cannot remove the older '%s':", out);
}

/* PROGRAM's path, once it is known that it can run under the collector. */
static char *prepare_program(const char *name)
{
	char *prog = find_program(name);

	if (!prog) {
		if (errno == EACCES)
			zt_die(EXIT_CANNOT_RUN, "cannot run '%s': Permission denied", name);
		zt_die(EXIT_CANNOT_RUN, "'%s': command not found", name);
	}
	check_dynamic(prog);
	return prog;
}

/*
 * In the child: the collector's settings into the environment, then the
 * program. If it cannot be run, its errno goes to the parent through
 * exec_fd (close-on-exec, so a successful exec closes it unwritten).
 */
static void run_program(const struct config *cfg, const char *prog, char **argv,
			const char *lib, const char *out, int exec_fd, int status_fd,
			int namer_fd) __attribute__((noreturn));

/* Pass descriptor fd on to the program, at 512 or above, as NAME_FD and NAME_INO. */
static void pass_fd(int fd, const char *fd_name, const char *ino_name)
{
	char fdbuf[32], inobuf[32];
	struct stat st;

	fd = fcntl(fd, F_DUPFD, 512);
	if (fd < 0 || fstat(fd, &st) < 0)
		return;
	snprintf(fdbuf, sizeof fdbuf, "%d", fd);
	snprintf(inobuf, sizeof inobuf, "%llu", (unsigned long long)st.st_ino);
	setenv(fd_name, fdbuf, 1);
	setenv(ino_name, inobuf, 1);
}

static void run_program(const struct config *cfg, const char *prog, char **argv,
			const char *lib, const char *out, int exec_fd, int status_fd,
			int namer_fd)
{
	char hzbuf[16], pidbuf[16], depthbuf[16];
	int err;
	struct stat st;

	/* The collector's status pipe, out of the program's way. */
	pass_fd(status_fd, "ZT_STATUS_FD", "ZT_STATUS_INO");
	unsetenv("ZT_NAMER_FD");
	unsetenv("ZT_PIDNS");
	if (namer_fd >= 0 && stat("/proc/self/ns/pid", &st) == 0) {
		char ns[64];

		pass_fd(namer_fd, "ZT_NAMER_FD", "ZT_NAMER_INO");
		snprintf(ns, sizeof ns, "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("ZT_PIDNS", ns, 1);
	}
	snprintf(hzbuf, sizeof hzbuf, "%u", (unsigned)cfg->hz);
	snprintf(pidbuf, sizeof pidbuf, "%d", (int)getpid());
	set_preload(lib, sanitizer_runtime(prog));
	setenv("ZT_OUT", out, 1);
	setenv("ZT_HZ", hzbuf, 1);
	setenv("ZT_PID", pidbuf, 1);
	setenv("ZT_TIMER", cfg->timer, 1);
	setenv("ZT_UNWIND", cfg->unwind, 1);
	snprintf(depthbuf, sizeof depthbuf, "%u", (unsigned)cfg->max_depth);
	setenv("ZT_MAX_DEPTH", depthbuf, 1);
	if (strcmp(cfg->clock, ZT_RAW_PROFILE_WALL) == 0) {
		char offbuf[16];

		snprintf(offbuf, sizeof offbuf, "%u", (unsigned)cfg->off_cpu_hz);
		setenv("ZT_CLOCK", ZT_RAW_PROFILE_WALL, 1);
		setenv("ZT_OFF_CPU_HZ", offbuf, 1);
	} else {
		unsetenv("ZT_CLOCK");
		unsetenv("ZT_OFF_CPU_HZ");
	}
	if (cfg->nlabels)
		setenv(ZT_LABELS_ENV, cfg->labels, 1);
	else
		unsetenv(ZT_LABELS_ENV);
	if (cfg->gzip)
		setenv("ZT_GZIP", "1", 1);
	else
		unsetenv("ZT_GZIP");
	if (cfg->follow)
		setenv("ZT_FOLLOW", "1", 1);
	else
		unsetenv("ZT_FOLLOW");
	if (cfg->paused)
		setenv("ZT_PAUSED", "1", 1);
	else
		unsetenv("ZT_PAUSED");
	if (cfg->control)
		setenv("ZT_CONTROL", "1", 1);
	execv(prog, argv);
	err = errno;
	if (write(exec_fd, &err, sizeof err) < 0)
		_exit(EXIT_CANNOT_RUN);
	_exit(EXIT_CANNOT_RUN);
}

/*
 * While the program runs, zt-collect outlives it, whatever its job is sent,
 * and reports: SIGINT and SIGQUIT, which the terminal sends the program
 * too, are ignored; the job-control signals (SIGTSTP, SIGTTIN, SIGTTOU,
 * SIGCONT) keep their default, so zt-collect stops and continues with its
 * job; every other catchable signal (SIGTERM, SIGHUP, SIGUSR1, SIGUSR2,
 * SIGWINCH, SIGALRM, the real-time ones, ...) is passed on to the program,
 * as timeout(1) --foreground passes on what it gets. A signal sent to the
 * whole process group reaches the program twice then, as under timeout.
 * Left alone: SIGCHLD (zt-collect's own), SIGPIPE (a write of zt-collect's
 * to a closed pipe) and the signals of faults.
 */
static void outlive_child(void)
{
	struct sigaction sa, ign;

	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pass_on;
	sa.sa_flags = SA_RESTART;
	for (int sig = 1; sig < NSIG; sig++) {
		switch (sig) {
		case SIGINT: case SIGQUIT: case SIGKILL: case SIGSTOP: case SIGTSTP:
		case SIGTTIN: case SIGTTOU: case SIGCONT: case SIGCHLD: case SIGPIPE:
		case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP: case SIGSYS:
			continue;
		}
		sigaction(sig, &sa, NULL);	/* glibc refuses its own (32, 33): left */
	}
}

/*
 * What the collectors said through the status pipe (files.c: one line per
 * event of each process's dump), read as it comes: with -f a tree of
 * thousands of processes says more than a pipe holds, and a collector must
 * never wait on a full one.
 */
struct status {
	int fd;		/* the read end; -1 once every writer closed it */
	char *text;
	size_t len, cap;
};

/* Read what is in the pipe now; a descendant may hold it open: never wait. */
static void status_drain(struct status *st)
{
	ssize_t n;

	while (st->fd >= 0) {
		zt_grow(&st->text, &st->cap, st->len + 4097, 1);
		n = read(st->fd, st->text + st->len, 4096);
		if (n > 0) {
			st->len += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(st->fd);
			st->fd = -1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	st->text[st->len] = '\0';
}

/*
 * With -f, a descendant in another PID namespace (a container: unshare -p,
 * podman, ...) knows itself by a pid zt-collect cannot see, the same as
 * another container's: its collector asks zt-collect's namer, a datagram
 * socket, for the pid it has here, sending one end of a socket pair; the
 * kernel gives its credentials in zt-collect's namespace (SO_PASSCRED),
 * and the answer, "PID\n", goes back on that end. So its dump is named
 * FILE.PID, its status lines carry PID, and a dump it could not finish is
 * found as in zt-collect's own namespace. -1 when the namer is not open.
 */
static int namer = -1;

static void namer_answer(void)
{
	for (;;) {
		char byte, ctl[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct iovec iov = { &byte, 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl, .msg_controllen = sizeof ctl };
		struct ucred cred = { 0, 0, 0 };
		int fd = -1;

		if (recvmsg(namer, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET)
				continue;
			if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(sizeof fd)) {
				int got[4], n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));

				memcpy(got, CMSG_DATA(c), (size_t)(n < 4 ? n : 4) * sizeof(int));
				for (int i = 0; i < n && i < 4; i++) {
					if (fd < 0)
						fd = got[i];
					else
						close(got[i]);
				}
			} else if (c->cmsg_type == SCM_CREDENTIALS &&
				   c->cmsg_len >= CMSG_LEN(sizeof cred)) {
				memcpy(&cred, CMSG_DATA(c), sizeof cred);
			}
		}
		if (fd >= 0 && cred.pid > 0) {
			char ans[24];
			int n = snprintf(ans, sizeof ans, "%d\n", (int)cred.pid);

			/* Refused when it gave up waiting: it names itself then. */
			(void)!send(fd, ans, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
		}
		if (fd >= 0)
			close(fd);
	}
}

/* Wait until the program runs (its exec succeeded); exit 127 if it could not be run. */
static void wait_exec(const char *prog, int exec_fd)
{
	int child_errno;

	if (read(exec_fd, &child_errno, sizeof child_errno) == sizeof child_errno) {
		waitpid(child, NULL, 0);
		errno = child_errno;
		zt_die(EXIT_CANNOT_RUN, "cannot run '%s':", prog);
	}
	close(exec_fd);
}

/*
 * With -f, once the program has ended: while a descendant still holds the
 * status pipe (a daemon() child, a job left in the background) it may not
 * have said "started" yet (its collector is still setting up: the parent of
 * daemon() leaves at once), so the pipe is read a while longer, half a
 * second at most, until every writer has closed it.
 */
static void status_settle(struct status *st)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += 500000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	while (st->fd >= 0) {
		struct pollfd p = { st->fd, POLLIN, 0 };
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0 || poll(&p, 1, (int)ms) == 0)
			break;
		status_drain(st);
	}
}

/*
 * Wait for the program, reading the status pipe meanwhile; its exit status
 * as a shell gives it (128+N when signal N killed it).
 */
static int wait_program(struct rusage *ru, struct status *st)
{
	int status, pidfd;

	fcntl(st->fd, F_SETFL, O_NONBLOCK);
	/* Without pidfds (Linux before 5.3) the pipe is read only at the end. */
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	while (pidfd >= 0) {
		struct pollfd p[3] = { { pidfd, POLLIN, 0 }, { namer, POLLIN, 0 },
				       { st->fd, POLLIN, 0 } };

		if (poll(p, st->fd >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			namer_answer();
		if (p[2].revents)
			status_drain(st);
		if (p[0].revents) {
			child_ended = 1;	/* a zombie until reaped: its pid is not reused */
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	while (wait4(child, &status, 0, ru) < 0)
		if (errno != EINTR)
			zt_die(ZT_EXIT_DATA, "wait:");
	child_ended = 1;
	status_drain(st);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* Whether process pid still runs (neither gone nor a zombie); its name into comm. */
static int still_runs(pid_t pid, char *comm, size_t cap)
{
	char path[64], buf[512];
	const char *open_paren, *close_paren;
	size_t n;
	FILE *f;

	snprintf(comm, cap, "?");
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return 0;
	snprintf(comm, cap, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	return close_paren[2] != 'Z' && close_paren[2] != 'X';
}

/* The command a "started" status line names (its fifth field), or "?". */
static const char *started_name(const char *line, char *name, size_t cap)
{
	unsigned e;
	unsigned long long c;
	int at = -1;

	if (sscanf(line, "started %u %llu %n", &e, &c, &at) < 2 || at < 0 || !line[at] ||
	    line[at] == '\n')
		return "?";
	snprintf(name, cap, "%.*s", (int)strcspn(line + at, " \n"), line + at);
	/* The pipe is the program's too: what it wrote there reaches no terminal raw. */
	for (char *c = name; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 127)
			*c = '?';
	return name;
}

/*
 * With -f: the descendants whose collector started a dump and has not
 * said what became of it (its last status line is "started"), once the
 * program has ended. zt-collect ends with the program, as perf record
 * does, so one still running (a daemon) is not waited for: it is named,
 * with the name its dump gets when it ends. One that ended without a word
 * (SIGKILL, a raw exit system call) left no dump: named, its unfinished
 * file removed, and counted. Returns how many ended so.
 */
static int descendants_unfinished(const char *out, struct status *st, int gzip)
{
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;
	int lost = 0;

	for (int pass = 0; pass < 2; pass++) {
		size_t keep = 0;

		if (pass == 1)
			status_drain(st);	/* what one that ended just now said before */
		if (pass == 0) {
			for (const char *line = st->text; *line;) {
				const char *nl = strchr(line, '\n');
				char what[65];
				long p;

				int known = 0;

				if (sscanf(line, "%ld %64s", &p, what) == 2 && p != child &&
				    strcmp(what, "started") == 0) {
					for (size_t i = 0; i < n; i++)
						known |= pids[i] == (pid_t)p;
					zt_grow(&pids, &cap, n + 1, sizeof *pids);
					if (!known)
						pids[n++] = (pid_t)p;
				}
				line = nl ? nl + 1 : line + strlen(line);
			}
		}
		for (size_t i = 0; i < n; i++) {
			char key[64];
			const char *last = NULL, *q = st->text;
			int len = snprintf(key, sizeof key, "%d ", (int)pids[i]);

			/* Its last line: an end ("ok" or a failure) after its start, or not. */
			for (; (q = strstr(q, key)); q += len)
				if (q == st->text || q[-1] == '\n')
					last = q + len;
			if (!last || strncmp(last, "started ", 8) != 0)
				continue;
			if (pass == 0) {
				char comm[64];

				if (!still_runs(pids[i], comm, sizeof comm)) {
					pids[keep++] = pids[i];	/* looked at again after a drain */
					continue;
				}
				zt_warn("note: descendant %d ('%s') still runs, not waited for: its "
					"dump is written as '%s.%d' when it ends, and is not in these "
					"figures", (int)pids[i], comm, out, (int)pids[i]);
				continue;
			}
			{
				char path[PATH_MAX + 32], who[128];
				struct unfinished u = { 0, 0, gzip, NULL };
				int done;

				snprintf(path, sizeof path, "%s.%d", out, (int)pids[i]);
				done = finish_unfinished(path, pids[i], &u);
				if (done == 0) {
					char note[PATH_MAX + 512];

					char name[24];

					snprintf(who, sizeof who, "descendant %d ('%s')", (int)pids[i],
						 started_name(last, name, sizeof name));
					say_finished(who, path, &u, note, sizeof note);
					fprintf(stderr, "%s\n", note);
					continue;
				}
				zt_warn("descendant %d ('%s') ended without finishing its dump "
					"(SIGKILL, or a raw exit system call): no dump '%s' was "
					"written", (int)pids[i], started_name(last, who, sizeof who),
					path);
				remove_partial(path, pids[i], st->text, 0);
			}
			lost++;
		}
		n = keep;
	}
	free(pids);
	return lost;
}

/*
 * The program's dump, when its collector started it and never said it was
 * finished (its last status line is "started"): finished here.
 */
static int finish_program(const char *out, const char *name, pid_t pid,
			  const struct config *cfg, const struct rusage *ru, int rc,
			  const char *status, char *note, size_t cap)
{
	struct unfinished u = { 0, 0, cfg->gzip, ru };
	char what[65], who[PATH_MAX + 96];

	if (!last_status(status, pid, what, sizeof what) || strcmp(what, "started") != 0)
		return 0;
	if (finish_unfinished(out, pid, &u) != 0)
		return 0;
	if (rc > 128)
		snprintf(who, sizeof who, "'%s' (pid %d, killed by SIG%s)", name, (int)pid,
			 sigabbrev_np(rc - 128) ? sigabbrev_np(rc - 128) : "?");
	else
		snprintf(who, sizeof who, "'%s' (pid %d, exit status %d)", name, (int)pid, rc);
	say_finished(who, shown_out ? shown_out : out, &u, note, cap);
	return 1;
}

/*
 * With a control channel, zt-collect's alias (lib/ctl.h): zt-ctl then takes
 * this process's pid, the one a shell's $! gives, for the program's. It is
 * removed when zt-collect ends (exit, zt_die); one that a SIGKILL left is
 * stale, and zt-ctl tells it by the start time it holds.
 */
static char *alias;
static char alias_who[64];

static void alias_remove(void)
{
	if (alias)
		unlink(alias);
	free(alias);
	alias = NULL;
}

static void alias_write(void)
{
	char path[4200], err[ZT_ERR_MAX];

	if (zt_ctl_alias_write(child, path, sizeof path, err, sizeof err) < 0) {
		zt_warn("%s; give zt-ctl the program's pid, %d", err, (int)child);
		return;
	}
	alias = zt_strdup(path);
	snprintf(alias_who, sizeof alias_who, "; zt-ctl takes zt-collect's, %d, too",
		 (int)getpid());
	atexit(alias_remove);
}

int main(int argc, char **argv)
{
	struct config cfg;
	char *prog, *lib, *out = NULL;
	struct status st = { -1, NULL, 0, 0 };
	int rc, exec_pipe[2], status_pipe[2], namer_pair[2] = { -1, -1 };
	struct rusage ru;
	struct timespec t0, t1;
	double wall;
	struct timespec start;
	char note[PATH_MAX * 2 + 512];
	int finished, channel;
	struct sink sink;
	const char *ctl_env = getenv("ZT_CONTROL");

	zt_setprog(argv[0]);
	argv += parse_options(argc, argv, &cfg);
	channel = cfg.paused || cfg.control || (ctl_env && strcmp(ctl_env, "1") == 0);

	/* Whatever can fail without running anything fails first. */
	if (!sink_of(&cfg, &sink))
		out = prepare_output(&cfg);
	prog = prepare_program(argv[0]);
	lib = find_library();
	if (sink.target || sink.to_stdout)
		out = sink_start(&sink, cfg.gzip);
	else
		start_output(out);

	/* The clock file times come from, so that a dump written at once is newer. */
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pipe2(exec_pipe, O_CLOEXEC) < 0 || pipe2(status_pipe, O_CLOEXEC) < 0)
		zt_die(ZT_EXIT_DATA, "pipe:");
	if (cfg.follow &&
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, namer_pair) == 0 &&
	    setsockopt(namer_pair[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
		close(namer_pair[0]);
		close(namer_pair[1]);
		namer_pair[0] = namer_pair[1] = -1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0)
		zt_die(ZT_EXIT_DATA, "fork:");
	if (child == 0) {
		close(exec_pipe[0]);
		close(status_pipe[0]);
		if (namer_pair[0] >= 0)
			close(namer_pair[0]);
		run_program(&cfg, prog, argv, lib, out, exec_pipe[1], status_pipe[1],
			     namer_pair[1]);
	}
	close(exec_pipe[1]);
	close(status_pipe[1]);
	if (namer_pair[1] >= 0)
		close(namer_pair[1]);
	namer = namer_pair[0];
	outlive_child();
	st.fd = status_pipe[0];
	zt_grow(&st.text, &st.cap, 4097, 1);
	st.text[0] = '\0';
	if (channel)
		alias_write();
	wait_exec(prog, exec_pipe[0]);
	if (cfg.paused)
		fprintf(stderr, "%s: sampling is off until 'zt-ctl %d start' (%d is the "
			"program's pid%s)\n", zt_prog, (int)child, (int)child, alias ? alias_who :
			"");
	rc = wait_program(&ru, &st);
	/* One that asks later is refused at once, and names itself. */
	if (namer >= 0) {
		namer_answer();
		close(namer);
		namer = -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	finished = finish_program(out, argv[0], child, &cfg, &ru, rc, st.text, note, sizeof note);
	/*
	 * The exit status is the program's, always: what became of the dumps
	 * is said on stderr.
	 */
	report(out, argv[0], prog, &ru, wall, st.text, child);
	if (finished)
		fprintf(stderr, "%s\n", note);
	remove_partial(out, child, st.text, 1);
	if (cfg.follow) {
		status_settle(&st);
		descendants_failed(out, st.text);
		descendants_unfinished(out, &st, cfg.gzip);
	}
	if (cfg.follow)
		report_tree(out, &start, wall, &ru, st.text);
	if (sink.target || sink.to_stdout)
		sink_finish(&sink, out);
	alias_remove();
	if (st.fd >= 0)
		close(st.fd);
	free(st.text);
	free(prog);
	free(lib);
	free(out);
	return rc;
}
