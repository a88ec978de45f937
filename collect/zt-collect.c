/*
 * zt-collect — run a program with libzt-prof.so preloaded and report what
 * was sampled.
 *
 *   zt-collect [-fz] [-F HZ] [-o FILE] [--timer=auto|perf|posix] [--unwind=auto|cfi|fp]
 *              [--paused] [--control] [--clock=cpu|wall] [--off-cpu-hz=HZ] [--alloc[=BYTES]]
 *              [--] PROGRAM [ARG...]
 *
 * The checks that can fail without running anything (the frequency, the
 * output's directory, the program, static linking) are done first. While the
 * program runs, SIGINT and SIGQUIT are ignored here (the terminal sends them
 * to the program too) so that zt-collect outlives it and can report, and
 * SIGTERM and SIGHUP are passed on. The exit status is the program's.
 */
#include "finish.h"
#include "report.h"
#include "status.h"

#include "ctl.h"
#include "elfread.h"
#include "launch.h"
#include "rawfmt.h"
#include "usage.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_CANNOT_RUN = 127 };

enum { OPT_TIMER = 256, OPT_UNWIND, OPT_PAUSED, OPT_CONTROL, OPT_CLOCK, OPT_OFF_CPU_HZ,
       OPT_MAX_DEPTH, OPT_LABEL, OPT_ALLOC };

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
	  "FILE.1, FILE.2, ... (also " ZT_ENV_CONTROL "=" ZT_ENV_ON ")" },
	{ OPT_CLOCK, "clock", required_argument, "CLOCK",
	  "cpu (default: samples of CPU time) or wall (also\n"
	  "where the threads not running waited, off-CPU)" },
	{ OPT_OFF_CPU_HZ, "off-cpu-hz", required_argument, "HZ",
	  "with --clock=wall: off-CPU ticks per second, 1 to\n"
	  ZT_STR(ZT_OFF_CPU_HZ_MAX) " (default " ZT_STR(ZT_OFF_CPU_HZ_DEFAULT) ")" },
	{ OPT_ALLOC, "alloc", optional_argument, "BYTES",
	  "also sample allocations: one sample a mean BYTES\n"
	  "allocated (default " ZT_STR(ZT_ALLOC_RATE_DEFAULT) "; K, M, G suffixes), with what\n"
	  "is live at the end and at the peak" },
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
	"       [--alloc[=BYTES]] [--label KEY=VALUE]... [--] PROGRAM [ARG...]",
	"Run PROGRAM with the zt sampler preloaded and write a raw dump.",
	options,
	NULL,
};

/* What the command line asked for. */
struct config {
	const char *outarg, *timer, *unwind, *clock;
	uint64_t hz, off_cpu_hz, max_depth;
	uint64_t alloc;		/* mean bytes between allocation samples; 0: off */
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

/* "N", "NK", "NM" or "NG" (binary units) into *v, 1 to ZT_ALLOC_RATE_MAX; -1 if not one. */
static int parse_bytes(const char *s, uint64_t *v)
{
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 0;

	if (n == 0 || n >= sizeof num)
		return -1;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	}
	if (shift)
		num[--n] = '\0';
	if (zt_parse_u64(num, 10, v) || *v < 1 || *v > ZT_ALLOC_RATE_MAX >> shift)
		return -1;
	*v <<= shift;
	return 0;
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
			if (strcmp(optarg, "auto") && strcmp(optarg, ZT_ENV_TIMER_PERF) &&
			    strcmp(optarg, ZT_ENV_TIMER_POSIX))
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
		case OPT_ALLOC:
			cfg->alloc = ZT_ALLOC_RATE_DEFAULT;
			if (optarg && parse_bytes(optarg, &cfg->alloc))
				bad_usage("--alloc: '%s' is not a size from 1 to %llu (1T)", optarg,
					  (unsigned long long)ZT_ALLOC_RATE_MAX);
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

/* unreachable_reason of a program as run: what the report says of one that left no dump. */
static const char *why_unreachable(const char *path)
{
	return unreachable_reason(path, 0);
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

/*
 * The host name and the labels, as the dump's header lines ("host NAME",
 * "label KEY VALUE"), in a memfd sealed against every change (lib/launch.h
 * ZT_ENV_LABELS_FD): every collector of the tree takes them from it, not
 * from anything the program can write, such as its environment or, in a
 * namespace of its own, its host name. -1 when it could not be made.
 */
static int labels_fd = -1;

static void labels_memfd(const struct config *cfg)
{
	char text[sizeof ZT_RAW_HOST + ZT_LABEL_VALUE_MAX + 1 +
		  ZT_LABELS_MAX * (sizeof ZT_RAW_LABEL + ZT_LABEL_KEY_MAX + ZT_LABEL_VALUE_MAX + 2)];
	const char *p = cfg->labels;
	struct utsname u;
	size_t len = 0;
	int fd;

	/* The kernel's node name (uname), as hostname(1) prints it. */
	if (uname(&u) == 0 && zt_label_value_ok(u.nodename, strlen(u.nodename)))
		len += (size_t)snprintf(text, sizeof text, ZT_RAW_HOST " %s\n", u.nodename);
	while (*p) {
		/* Checked by add_label: KEY=VALUE, no newline in either. */
		size_t n = strcspn(p, "\n"), k = strcspn(p, "=");

		len += (size_t)snprintf(text + len, sizeof text - len, ZT_RAW_LABEL " %.*s %.*s\n",
					(int)k, p, (int)(n - k - 1), p + k + 1);
		p += n + (p[n] == '\n');
	}
	fd = memfd_create("zt-labels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		if (cfg->nlabels)
			zt_die(1, "cannot pass the labels to the collector: memfd_create:");
		return;	/* before Linux 3.17: the dumps have no host */
	}
	if (write(fd, text, len) != (ssize_t)len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		zt_die(1, "cannot pass the host name and the labels to the collector:");
	labels_fd = fd;
}

static void run_program(const struct config *cfg, const char *prog, char **argv,
			const char *lib, const char *out, int exec_fd, int status_fd,
			int namer_fd)
{
	char hzbuf[16], pidbuf[16], depthbuf[16];
	int err;
	struct stat st;

	/* The collector's status pipe, out of the program's way. */
	pass_fd(status_fd, ZT_ENV_STATUS_FD, ZT_ENV_STATUS_INO);
	unsetenv(ZT_ENV_NAMER_FD);
	unsetenv(ZT_ENV_PIDNS);
	if (namer_fd >= 0 && stat("/proc/self/ns/pid", &st) == 0) {
		char ns[64];

		pass_fd(namer_fd, ZT_ENV_NAMER_FD, ZT_ENV_NAMER_INO);
		snprintf(ns, sizeof ns, "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv(ZT_ENV_PIDNS, ns, 1);
	}
	snprintf(hzbuf, sizeof hzbuf, "%u", (unsigned)cfg->hz);
	snprintf(pidbuf, sizeof pidbuf, "%d", (int)getpid());
	if (cfg->alloc) {
		/* The allocator's interposers, beside the collector, after it. */
		size_t n = strlen(lib);
		char *both = zt_malloc(2 * n + 16), *slash;

		memcpy(both, lib, n + 1);
		both[n] = ':';
		memcpy(both + n + 1, lib, n + 1);
		slash = strrchr(both + n + 1, '/');
		strcpy(slash ? slash + 1 : both + n + 1, "libzt-alloc.so");
		if (access(both + n + 1, R_OK) != 0)
			zt_die(1, "--alloc: cannot read '%s':", both + n + 1);
		set_preload(both, sanitizer_runtime(prog));
		free(both);
	} else {
		set_preload(lib, sanitizer_runtime(prog));
	}
	setenv(ZT_ENV_OUT, out, 1);
	setenv(ZT_ENV_HZ, hzbuf, 1);
	setenv(ZT_ENV_PID, pidbuf, 1);
	setenv(ZT_ENV_TIMER, cfg->timer, 1);
	setenv(ZT_ENV_UNWIND, cfg->unwind, 1);
	snprintf(depthbuf, sizeof depthbuf, "%u", (unsigned)cfg->max_depth);
	setenv(ZT_ENV_MAX_DEPTH, depthbuf, 1);
	if (strcmp(cfg->clock, ZT_RAW_PROFILE_WALL) == 0) {
		char offbuf[16];

		snprintf(offbuf, sizeof offbuf, "%u", (unsigned)cfg->off_cpu_hz);
		setenv(ZT_ENV_CLOCK, ZT_RAW_PROFILE_WALL, 1);
		setenv(ZT_ENV_OFF_CPU_HZ, offbuf, 1);
	} else {
		unsetenv(ZT_ENV_CLOCK);
		unsetenv(ZT_ENV_OFF_CPU_HZ);
	}
	if (cfg->alloc) {
		char allocbuf[24];

		snprintf(allocbuf, sizeof allocbuf, "%llu", (unsigned long long)cfg->alloc);
		setenv(ZT_ENV_ALLOC, allocbuf, 1);
	} else {
		unsetenv(ZT_ENV_ALLOC);
	}
	unsetenv(ZT_ENV_LABELS_FD);
	unsetenv(ZT_ENV_LABELS_INO);
	if (labels_fd >= 0)
		pass_fd(labels_fd, ZT_ENV_LABELS_FD, ZT_ENV_LABELS_INO);
	if (cfg->gzip)
		setenv(ZT_ENV_GZIP, ZT_ENV_ON, 1);
	else
		unsetenv(ZT_ENV_GZIP);
	if (cfg->follow)
		setenv(ZT_ENV_FOLLOW, ZT_ENV_ON, 1);
	else
		unsetenv(ZT_ENV_FOLLOW);
	if (cfg->paused)
		setenv(ZT_ENV_PAUSED, ZT_ENV_ON, 1);
	else
		unsetenv(ZT_ENV_PAUSED);
	if (cfg->control)
		setenv(ZT_ENV_CONTROL, ZT_ENV_ON, 1);
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
	size_t n = 0;
	int lost = 0;

	for (int pass = 0; pass < 2; pass++) {
		size_t keep = 0;

		if (pass == 1)
			status_drain(st);	/* what one that ended just now said before */
		if (pass == 0)
			n = zt_status_started(st->text, child, &pids);
		for (size_t i = 0; i < n; i++) {
			/* Its last line: an end ("ok" or a failure) after its start, or not. */
			const char *last = zt_status_last_line(st->text, pids[i]);

			if (!last || strncmp(last, ZT_STATUS_STARTED " ", sizeof ZT_STATUS_STARTED) != 0)
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
				struct zt_finish u = { .gzip = gzip };
				int done;

				snprintf(path, sizeof path, "%s.%d", out, (int)pids[i]);
				done = zt_finish_dump(path, pids[i], &u);
				if (done == 0) {
					char note[PATH_MAX + 512];

					char name[24];

					snprintf(who, sizeof who, "descendant %d ('%s')", (int)pids[i],
						 zt_status_started_name(last, name, sizeof name));
					zt_report_finished(who, path, &u, note, sizeof note);
					fprintf(stderr, "%s\n", note);
					continue;
				}
				zt_warn("descendant %d ('%s') ended without finishing its dump "
					"(SIGKILL, or a raw exit system call): no dump '%s' was "
					"written", (int)pids[i], zt_status_started_name(last, who, sizeof who),
					path);
				zt_finish_remove(path, pids[i], st->text, 0);
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
	struct zt_finish u = { .gzip = cfg->gzip, .ru = ru };
	char what[ZT_STATUS_WORD_MAX + 1], who[PATH_MAX + 96];

	if (!zt_status_last(status, pid, what, sizeof what) || strcmp(what, ZT_STATUS_STARTED) != 0)
		return 0;
	if (zt_finish_dump(out, pid, &u) != 0)
		return 0;
	if (rc > 128)
		snprintf(who, sizeof who, "'%s' (pid %d, killed by SIG%s)", name, (int)pid,
			 sigabbrev_np(rc - 128) ? sigabbrev_np(rc - 128) : "?");
	else
		snprintf(who, sizeof who, "'%s' (pid %d, exit status %d)", name, (int)pid, rc);
	zt_report_finished(who, shown_out ? shown_out : out, &u, note, cap);
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
	struct zt_report rep;
	const char *ctl_env = getenv(ZT_ENV_CONTROL);

	zt_setprog(argv[0]);
	argv += parse_options(argc, argv, &cfg);
	channel = cfg.paused || cfg.control || (ctl_env && strcmp(ctl_env, ZT_ENV_ON) == 0);

	/* Whatever can fail without running anything fails first. */
	if (!sink_of(&cfg, &sink))
		out = prepare_output(&cfg);
	prog = prepare_program(argv[0]);
	lib = find_library();
	labels_memfd(&cfg);
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
	rep = (struct zt_report){ out, shown_out, child, &ru, wall, st.text, why_unreachable };
	zt_report_program(&rep, argv[0], prog);
	if (finished)
		fprintf(stderr, "%s\n", note);
	zt_finish_remove(out, child, st.text, 1);
	if (cfg.follow) {
		status_settle(&st);
		zt_status_descendants_failed(st.text, child, out);
		descendants_unfinished(out, &st, cfg.gzip);
	}
	zt_status_labels_lost(st.text, child, shown_out ? shown_out : out, out);
	/* The pipe's text, read on since, may have moved. */
	rep.status = st.text;
	if (cfg.follow)
		zt_report_tree(&rep, &start);
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
