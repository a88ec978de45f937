/*
 * zt-fold — perf script text (or zt-symbolize's stream) to folded stacks.
 *
 *   zt-symbolize < run.raw | zt-fold > run.folded
 *   perf script | zt-fold --all | flamegraph.pl > run.svg
 *
 * The output matches FlameGraph's stackcollapse-perf.pl byte for byte; the
 * work is in lib/perfscript.c (lines), lib/collapse.c (names) and
 * lib/fold.c (counting and sorting). Nothing is written until every input
 * has been read, so a bad line never leaves half an output behind. When
 * stderr is a terminal, a long run shows how much it has read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "fold.h"
#include "input.h"
#include "perfscript.h"
#include "util.h"

/*
 * What a run holds, in file scope so that it stays reachable when an error
 * exits the program (LeakSanitizer would call locals leaked).
 */
static struct zt_fold *fold;
static struct zt_input *in;
static struct zt_ps_reader *r;

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: zt-fold [--pid | --tid] [--kernel] [--jit] [--all] [--addrs]\n"
		   "               [--srcline] [--weight=period|count] [--focus=REGEX]\n"
		   "               [--ignore=REGEX] [--hide=REGEX] [file ...]\n");
	if (f == stdout)
		fprintf(f, "\n"
			   "  --pid             root frame comm-PID\n"
			   "  --tid             root frame comm-PID/TID\n"
			   "  --kernel          _[k] after kernel frames\n"
			   "  --jit             _[j] after JIT frames (/tmp/perf-N.map)\n"
			   "  --all             --kernel and --jit\n"
			   "  --addrs           [module <address>] for unknown symbols\n"
			   "  --srcline         :LINE after names, from source lines\n"
			   "  --weight=W        period (perf's periods, the default) or count\n"
			   "                    (one per record), and a '# zt weight:' line first\n"
			   "  --focus=REGEX     keep the stacks through a matching frame\n"
			   "  --ignore=REGEX    drop the stacks through a matching frame\n"
			   "  --hide=REGEX      drop matching frames from the stacks\n"
			   "  -h, --help        this text\n"
			   "  -V, --version     the version\n"
			   "\nREGEX is POSIX extended, matched anywhere in a frame name; the root\n"
			   "frame (the command) is not matched.\n");
	exit(status);
}

/* "zt-fold: 'file': line 12: problem", or "zt-fold: line 12: ..." for stdin. */
static void die_at(struct zt_input *in, unsigned long line, const char *msg)
{
	const char *name = zt_input_name(in);

	if (strcmp(name, "<stdin>") == 0)
		zt_die(ZT_EXIT_DATA, "line %lu: %s", line, msg);
	zt_die(ZT_EXIT_DATA, "%s: line %lu: %s", name, line, msg);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", no_argument, NULL, 'p' },
		{ "tid", no_argument, NULL, 't' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "jit", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "addrs", no_argument, NULL, 'A' },
		{ "srcline", no_argument, NULL, 's' },
		{ "weight", required_argument, NULL, 'w' },
		{ "focus", required_argument, NULL, 'F' },
		{ "ignore", required_argument, NULL, 'I' },
		{ "hide", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct zt_collapse_opts o = { 0 };
	char *event = NULL, *skipped_event = NULL;
	unsigned long skipped = 0;
	static char obuf[1 << 16];
	int c, tty = isatty(STDERR_FILENO), declare = 0;
	char wline[160], err[256];
	const char *re[3] = { NULL, NULL, NULL };
	static const char *const reopt[3] = { "--focus", "--ignore", "--hide" };

	zt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'A': o.addrs = 1; break;
		case 'a': o.kernel = o.jit = 1; break;
		case 'j': o.jit = 1; break;
		case 'k': o.kernel = 1; break;
		case 'p': o.pid = 1; break;
		case 's': o.srcline = 1; break;
		case 't': o.tid = 1; break;
		case 'w':
			if (strcmp(optarg, "count") != 0 && strcmp(optarg, "period") != 0) {
				zt_warn("--weight wants period or count, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			o.count = strcmp(optarg, "count") == 0;
			declare = 1;
			break;
		case 'F': re[ZT_FOCUS] = optarg; break;
		case 'I': re[ZT_IGNORE] = optarg; break;
		case 'H': re[ZT_HIDE] = optarg; break;
		case 'h': usage(stdout, ZT_EXIT_OK); break;
		case 'V': zt_version(); return ZT_EXIT_OK;
		default: usage(stderr, ZT_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;

	fold = zt_fold_new(&o);
	for (int k = 0; k < 3; k++) {
		if (re[k] && zt_filter_set(zt_fold_filter(fold), k, re[k], err, sizeof err) < 0) {
			zt_warn("%s: bad regex '%s': %s", reopt[k], re[k], err);
			usage(stderr, ZT_EXIT_USAGE);
		}
	}
	for (int i = 0; i < (argc ? argc : 1); i++) {
		struct zt_ps_item it;
		const char *ev;
		unsigned long n;
		int shown = 0;

		in = zt_input_open(argc ? argv[i] : "-");
		r = zt_ps_reader_new(in);

		/* Several inputs are one stream: the first event seen rules. */
		if (event)
			zt_ps_reader_set_event(r, event, strlen(event));
		for (unsigned long k = 1;; k++) {
			zt_ps_next(r, &it);
			if (zt_fold_item(fold, &it) < 0)
				die_at(in, it.lineno, it.text.p);
			if (it.kind == ZT_PS_EOF)
				break;
			if (tty && k % (1UL << 22) == 0 && ++shown)
				fprintf(stderr, "\rzt-fold: %s: %llu MiB read", zt_input_name(in),
					(unsigned long long)(zt_ps_reader_bytes(r) >> 20));
		}
		if (shown)
			fputs("\r\033[K", stderr);
		if (it.lineno == 0)
			zt_die(ZT_EXIT_DATA, "%s: empty file", zt_input_name(in));
		if (it.unterminated)
			zt_warn("%s: line %lu: last record has no blank line after it; "
				"dropped, as stackcollapse-perf.pl drops it",
				zt_input_name(in), it.unterminated);
		if (!event && zt_ps_reader_event(r))
			event = zt_strdup(zt_ps_reader_event(r));
		n = zt_ps_reader_skipped(r, &ev);
		if (n && !skipped_event)
			skipped_event = zt_strdup(ev);
		skipped += n;
		zt_ps_reader_free(r);
		zt_input_close(in);
		r = NULL;
		in = NULL;
	}
	if (skipped)
		zt_warn("skipped %lu records of other events than '%s' (the first was '%s')",
			skipped, event, skipped_event);
	if (zt_fold_records(fold) == 0)
		zt_die(ZT_EXIT_DATA, "no samples in the input");

	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	/* Said only when asked: flamegraph.pl warns about a line it cannot
	   read, and the default output is stackcollapse-perf.pl's bytes. */
	if (declare) {
		zt_fold_weight_line(fold, wline, sizeof wline);
		printf("%s\n", wline);
	}
	zt_fold_write(fold, stdout);
	zt_fshut(stdout, "<stdout>");
	zt_fold_free(fold);
	free(event);
	free(skipped_event);
	return ZT_EXIT_OK;
}
