/*
 * zt-symbolize — raw dump in, symbolized stream out (formats/symbolized.md).
 *
 *   zt-symbolize [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [FILE]
 *
 * The dump is read whole (plain or gzip) and checked before anything is
 * printed, so a bad dump produces an error and no output. Identical samples
 * become one record whose period is their count.
 */
#include "input.h"
#include "escape.h"
#include "raw.h"
#include "symbolize.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-lm] [--no-demangle] [-d DIR]... [--sysroot=DIR] [FILE]\n"
		"Turn a zt raw dump (FILE or stdin, plain or gzip) into the perf script\n"
		"text layout: one record per sample, in time order, with its time\n"
		"(dumps without times, or --merge: one record per distinct stack).\n"
		"\n"
		"  -d, --debug-dir=DIR  look for binaries and debug files by build-id in\n"
		"                       DIR/.build-id/ (repeatable; before /usr/lib/debug)\n"
		"  -l, --lines          source lines and inlined frames, from DWARF\n"
		"  -m, --merge          one record per distinct stack, its period the count\n"
		"      --no-demangle    print C++ and Rust names as they are mangled\n"
		"      --sysroot=DIR    look for the dump's files under DIR\n"
		"  -h, --help           print this help\n"
		"  -V, --version        print the version\n", zt_prog);
	exit(status);
}

/* The process name: the exe's basename, else the first file mapped. */
static const char *process_name(const struct zt_dump *d)
{
	if (d->exe && *d->exe)
		return zt_basename(d->exe);
	for (size_t i = 0; i < d->nmaps; i++)
		if (d->maps[i].offset == 0 && zt_map_is_file(&d->maps[i]))
			return zt_basename(d->maps[i].path);
	return "unknown";
}

/*
 * A "# zt KEY VALUE" line whose value came from the dump: escaped, so that
 * nothing in a dump forges a line or reaches a terminal raw.
 */
static void fact(const char *key, const char *value)
{
	printf("# zt %s ", key);
	zt_fput_escaped(stdout, value, NULL);
	putchar('\n');
}

static void print_facts(const struct zt_dump *d, const struct zt_symbolizer *s)
{
	const char *const *warn;
	size_t nwarn;

	printf("# zt version %d\n", d->version);
	printf("# zt hz %u\n", d->hz);
	fact("timer", d->timer ? d->timer : "unknown");
	if (d->rate_cap)
		fact("rate-cap", d->rate_cap);
	printf("# zt samples %" PRIu64 "\n", d->nsamples);
	if (d->lost_detail) {
		printf("# zt lost %" PRIu64 " ", d->lost);
		zt_fput_escaped(stdout, d->lost_detail, NULL);
		putchar('\n');
	} else
		printf("# zt lost %" PRIu64 "\n", d->lost);
	if (d->truncated)
		printf("# zt truncated %" PRIu64 "\n", d->truncated);
	if (d->unwind)
		fact("unwind", d->unwind);
	if (d->have_partial)
		printf("# zt partial %" PRIu64 "\n", d->partial);
	if (d->unsampled)
		printf("# zt unsampled-threads %" PRIu64 "\n", d->unsampled);
	if (d->conflict)
		fact("program-sigprof", d->conflict);
	if (d->exec)
		fact("exec", d->exec);
	if (d->have_cpu)
		printf("# zt cpu-ns %" PRIu64 "\n", d->cpu_ns);
	if (d->cpu_user_ns || d->cpu_sys_ns)
		printf("# zt cpu-user-ns %" PRIu64 "\n# zt cpu-sys-ns %" PRIu64 "\n",
		       d->cpu_user_ns, d->cpu_sys_ns);
	if (d->have_pid)
		printf("# zt pid %" PRIu64 "\n", d->pid);
	if (d->exe)
		fact("exe", d->exe);
	for (size_t i = 0; i < d->nthreads; i++) {
		printf("# zt thread %" PRIu32 " ", d->threads[i].tid);
		zt_fput_escaped(stdout, d->threads[i].name, NULL);
		putchar('\n');
	}
	warn = zt_symbolizer_warnings(s, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		fact("warning", warn[i]);
}

/* A directory option must name a directory we can read: else bad usage. */
static void check_dir(const char *opt, const char *dir)
{
	if (zt_dir_check(opt, dir) < 0)
		usage(2);
}

enum { OPT_NO_DEMANGLE = 256, OPT_SYSROOT };

/* Reachable when an error exits, so that LeakSanitizer stays quiet. */
static struct zt_input *in;
static const char **dirs;
static struct zt_dump d;

/* A source line under its frame, as perf script -F +srcline prints it. */
static void print_srcline(const char *file, unsigned line)
{
	fputs("  ", stdout);
	zt_fput_escaped(stdout, file, NULL);
	printf(":%u\n", line);
}

/*
 * One address: its inlined frames first, as perf prints them ("(inlined)"
 * for the module), then the frame itself; each with its source line.
 */
static void print_frame(uint64_t addr, const struct zt_symres *r)
{
	for (size_t k = 0; k < r->ninl; k++) {
		printf("\t%16" PRIx64 " ", addr);
		zt_fput_escaped(stdout, r->inl[k].name, NULL);
		fputs(" (inlined)\n", stdout);
		if (r->inl[k].file)
			print_srcline(r->inl[k].file, r->inl[k].line);
	}
	printf("\t%16" PRIx64 " ", addr);
	zt_fput_escaped(stdout, r->name, NULL);
	if (r->have_sym)
		printf("+0x%" PRIx64, r->offset);
	/* perf-script readers take the module as the last "(\S*)": no space,
	 * no parenthesis inside it. */
	fputs(" (", stdout);
	zt_fput_escaped(stdout, r->module, " ()");
	fputs(")\n", stdout);
	if (r->file)
		print_srcline(r->file, r->line);
}

/* Sample lines by time; lines with the same time keep their file order. */
static int by_time(const void *a, const void *b, void *ctx)
{
	const struct zt_timed *x = a, *y = b;

	(void)ctx;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * One record: "comm pid/tid seconds: count zt-samples:", the frames leaf
 * first, a [truncated] root for a partial stack, a blank line.
 */
static void print_record(const struct zt_dump *dp, const struct zt_symres *res,
			 const char *comm, size_t stack, uint64_t ns, uint64_t count)
{
	const struct zt_stack *st = &dp->stacks[stack];
	const char *name = zt_dump_thread_name(dp, st->tid);
	uint64_t pid = dp->have_pid ? dp->pid : st->tid;

	/* A ';' in a thread name would split the folded stack. */
	zt_fput_escaped(stdout, name && *name ? name : comm, ";");
	printf(" %" PRIu64 "/%" PRIu32 " %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " zt-samples:\n",
	       pid, st->tid, ns / 1000000000u, ns % 1000000000u / 1000u, count);
	for (size_t j = st->first; j < st->first + st->naddr; j++)
		print_frame(dp->addr[j], &res[j]);
	/* The unwinder stopped short: say so at the root, never pass the
	 * stack off as whole. */
	if (st->partial)
		printf("\t%16x [truncated] ([unknown])\n", 0);
	putchar('\n');
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "lines", no_argument, NULL, 'l' },
		{ "merge", no_argument, NULL, 'm' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct zt_symopts o = { 0 };
	struct zt_symbolizer *s;
	struct zt_symres *res;
	char err[512];
	const char *comm;
	int c, merge = 0;

	zt_setprog(argv[0]);
	dirs = zt_calloc((size_t)argc + 1, sizeof *dirs);
	while ((c = getopt_long(argc, argv, "d:hlmV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			check_dir("--debug-dir", optarg);
			dirs[o.ndebug_dirs++] = optarg;
			break;
		case 'l':
			o.lines = 1;
			break;
		case 'm':
			merge = 1;
			break;
		case OPT_NO_DEMANGLE:
			o.no_demangle = 1;
			break;
		case OPT_SYSROOT:
			check_dir("--sysroot", optarg);
			o.sysroot = optarg;
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			zt_version();
			return 0;
		default:
			usage(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage(2);

	in = zt_input_open(argc ? argv[0] : NULL, err, sizeof err);
	if (!in)
		zt_die(ZT_EXIT_DATA, "%s", err);
	memset(&d, 0, sizeof d);
	if (zt_dump_read(in, &d, err, sizeof err) < 0) {
		if (argc && strcmp(argv[0], "-") != 0 && !zt_input_error(in))
			zt_die(1, "%s: %s", zt_input_name(in), err);
		zt_die(1, "%s", err);
	}
	zt_input_close(in);

	/* Resolve everything first: warnings go before the first record. */
	o.debug_dirs = dirs;
	s = zt_symbolizer_new(&d, &o);
	res = zt_calloc(d.naddr ? d.naddr : 1, sizeof *res);
	for (size_t i = 0; i < d.naddr; i++)
		zt_symbolize(s, d.addr[i], d.exact[i], &res[i]);

	print_facts(&d, s);
	comm = process_name(&d);
	if (!merge && d.ntimed > 0 && d.nuntimed == 0) {
		/*
		 * One record per sample line, in time order, with its time, as
		 * perf script prints them: viewers that weigh a record by the
		 * time to the next one, or count records, weigh it right.
		 */
		qsort_r(d.timed, d.ntimed, sizeof *d.timed, by_time, NULL);
		for (size_t i = 0; i < d.ntimed; i++)
			print_record(&d, res, comm, d.timed[i].stack, d.start_ns + d.timed[i].ns,
				     d.timed[i].count);
	} else {
		for (size_t i = 0; i < d.nstacks; i++)
			print_record(&d, res, comm, i, 0, d.stacks[i].count);
	}
	zt_fshut(stdout, "<stdout>");
	free(res);
	zt_symbolizer_free(s);
	zt_dump_free(&d);
	free(dirs);
	return 0;
}
