/*
 * zt-flame — folded stacks to one self-contained, interactive SVG flame
 * graph.
 *
 *   zt-fold run.sym | zt-flame > run.svg
 *   zt-diff before.folded after.folded | zt-flame > diff.svg
 *
 *   zt-flame run.raw > run.svg
 *
 * It reads folded stacks (formats/folded.md) or zt-diff's differential
 * layout (formats/diff.md; the first line decides which) from files or
 * stdin, with lib/folded.c's reader and its errors; a raw dump, zt's
 * stream or perf script text is folded first as zt-fold folds it
 * (lib/stage.c). It draws them with
 * lib/flame.c: the same frames at the same places as flamegraph.pl. Nothing
 * is written until every input has been read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"
#include "folded.h"
#include "input.h"
#include "stage.h"
#include "symargs.h"
#include "event.h"
#include "progress.h"
#include "usage.h"
#include "util.h"

/* Long-only options: every code below 256 would also be a short one. */
enum { OPT_INVERTED = ZT_SYMARGS_NEXT, OPT_NEGATE, OPT_ROOT, OPT_NO_ROOT, OPT_CLOCK };

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	ZT_EVENT_ROW,
	{ 'i', "icicle", no_argument, NULL, "roots at the top (an icicle graph)" },
	{ OPT_INVERTED, "inverted", no_argument, NULL, "--icicle, as flamegraph.pl names it" },
	{ 't', "title", required_argument, "TITLE",
	  "the title (default \"Flame Graph\", or \"Icicle Graph\")" },
	{ 'w', "width", required_argument, "PIXELS", "the width of the image (default 1200)" },
	{ 'm', "minwidth", required_argument, "N[%]",
	  "leave out frames narrower than N pixels (default\n"
	  "0.1), or with '%' than N% of all samples" },
	{ OPT_NEGATE, "negate", no_argument, NULL,
	  "differential: growth blue, shrinkage red" },
	{ OPT_ROOT, "root", required_argument, "NAME",
	  "every stack's root frame (the command) becomes NAME" },
	{ OPT_NO_ROOT, "no-root", no_argument, NULL, "every stack's root frame is dropped" },
	{ OPT_CLOCK, "clock", required_argument, "CLOCK",
	  "of a wall-clock profile, draw only its on-CPU\n"
	  "(cpu) or its off-CPU (off) stacks" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-flame [-i] [-t title] [-w width] [-m minwidth[%]] [--negate]\n"
	"                [--root=NAME | --no-root] [--clock=cpu|off] [--event=NAME]\n"
	"                [-l] [-d DIR]... [--sysroot=DIR] [--no-demangle] [--no-debuginfod]\n"
	"                [file ...]",
	"Draw the files or stdin as one self-contained, interactive SVG flame\n"
	"graph on stdout: a zt raw dump, zt-symbolize's stream or perf script\n"
	"output (folded as zt-fold folds them), folded stacks, or zt-diff's\n"
	"differential stacks, told apart by their content.",
	options,
	"A raw dump is symbolized as zt-symbolize symbolizes it, with -d, -l,\n"
	"--no-demangle, --sysroot and --no-debuginfod: with DEBUGINFOD_URLS set,\n"
	"files not found here are fetched from its servers.",
};

/* --root, --no-root: the root frame of every line, and a buffer for it. */
struct reroot {
	struct zt_reroot r;
	char *buf;
	size_t cap;
};

/*
 * The line (len bytes) with its stack's first stacklen bytes rerooted as
 * rr says, and the rest (the counts) after them: its bytes, new length and
 * stack length.
 */
static const char *reroot_line(struct reroot *rr, const char *line, size_t *len,
			       size_t *stacklen)
{
	size_t n;

	if (rr->r.how == ZT_ROOT_KEEP)
		return line;
	zt_grow(&rr->buf, &rr->cap, *len + (rr->r.name ? strlen(rr->r.name) : 0) + 1, 1);
	n = zt_folded_reroot(&rr->r, line, *stacklen, rr->buf);
	memcpy(rr->buf + n, line + *stacklen, *len - *stacklen);
	*len = n + (*len - *stacklen);
	*stacklen = n;
	return rr->buf;
}

/*
 * One stack (zt_flame_item reads its counts), its root as rr says; NULL,
 * or what is wrong with the line.
 */
static const char *add_stack(struct zt_flame *flame, const struct zt_folded_item *it,
			     struct reroot *rr)
{
	size_t len, stacklen;
	uint64_t before;
	int differential;
	const char *line;
	const char *problem = zt_flame_item(flame, it, &line, &len, &stacklen, &differential,
					    &before);

	if (problem)
		return problem;
	line = reroot_line(rr, line, &len, &stacklen);
	return zt_flame_add(flame, line, len, stacklen, differential, before, it->count);
}

/*
 * Add every stack of one input, records folded as zt-fold folds them (a
 * raw dump symbolized with o first); -1 with the message in err.
 */
static int read_input(struct zt_flame *flame, const char *path, const struct zt_symopts *o,
		      struct reroot *rr, struct zt_stage_empties *empties, char *err,
		      size_t errlen)
{
	struct zt_stage *sg = zt_stage_open(path, err, errlen);
	struct zt_folded_reader rd;
	int ok = sg && zt_stage_folded(sg, &rd, o, err, errlen) == 0;
	const char *const *warn;
	struct zt_folded_item it;
	const char *problem;
	size_t nwarn;
	int got = -1, said = 0;

	if (sg) {
		warn = zt_stage_warnings(sg, &nwarn);
		for (size_t i = 0; i < nwarn; i++)
			zt_warn("%s", warn[i]);
	}
	/* Records with no sample: named with the others' (main). */
	if (ok)
		zt_stage_empties_add(empties, zt_stage_name(sg), zt_stage_empty(sg));
	if (ok && zt_stage_empty(sg))
		ok = 0, got = 0;
	while (ok && (got = zt_folded_read(&rd, &it, err, errlen)) > 0) {
		/* '# zt weight: ns' comes before the first stack, if at all. */
		if (!said++ && ((problem = zt_flame_set_wall(flame, rd.wall)) ||
				(problem = zt_flame_set_alloc(flame, rd.alloc)))) {
			zt_errf(err, errlen, "%s: %s", zt_stage_name(sg), problem);
			got = -1;
			break;
		}
		if ((problem = add_stack(flame, &it, rr))) {
			zt_err_at(err, errlen, zt_stage_name(sg), it.lineno, "%s", problem);
			got = -1;
			break;
		}
	}
	zt_stage_close(sg);
	return got;
}

/*
 * The options, into o. Returns 0, or -1 when main is to end at once with
 * *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct zt_flame_opts *o,
			 struct zt_symargs *sym, struct zt_reroot *root,
			 enum zt_flame_clock *clock, int *status)
{
	char *end, err[ZT_ERR_MAX];
	const char *problem;
	uint64_t v;
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, sym, err, sizeof err)) != -1) {
		switch (c) {
		case 'i':
		case OPT_INVERTED: o->icicle = 1; break;
		case 'm':
			o->minwidth = strtod(optarg, &end);
			o->minwidth_pct = *end == '%';
			if (end == optarg || *(end + o->minwidth_pct) != '\0' || !(o->minwidth >= 0) ||
			    (o->minwidth_pct && o->minwidth > 100))
				return zt_usage_error(&usage, "--minwidth wants pixels or a "
						      "percentage, not '%s'", optarg);
			break;
		case OPT_NEGATE: o->negate = 1; break;
		case OPT_ROOT:
		case OPT_NO_ROOT:
			if ((problem = zt_folded_root_option(root, c == OPT_ROOT ? optarg : NULL)))
				return zt_usage_error(&usage, "%s", problem);
			break;
		case OPT_CLOCK:
			if (strcmp(optarg, "cpu") == 0) {
				*clock = ZT_FLAME_CLOCK_CPU;
			} else if (strcmp(optarg, "off") == 0) {
				*clock = ZT_FLAME_CLOCK_OFF;
			} else {
				return zt_usage_error(&usage, "--clock wants cpu or off, not '%s'", optarg);
			}
			break;
		case 't': o->title = optarg; break;
		case 'w':
			if (zt_parse_u64(optarg, 10, &v) != 0 || v < 100 || v > 1000000)
				return zt_usage_error(&usage, "--width wants pixels from 100 to "
						      "1000000, not '%s'", optarg);
			o->width = (unsigned)v;
			break;
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	if ((problem = zt_usage_stdin_once(argv + optind, argc - optind)))
		return zt_usage_error(&usage, "%s", problem);
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	struct zt_flame_opts o;
	struct zt_symargs sym;
	struct reroot rr = { { ZT_ROOT_KEEP, NULL }, NULL, 0 };
	struct zt_flame *flame;
	static char obuf[1 << 16];
	enum zt_flame_clock clock = ZT_FLAME_CLOCK_WALL;
	struct zt_stage_empties empties = { 0 };
	char err[ZT_ERR_MAX];
	int status;

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	zt_flame_defaults(&o);
	zt_symargs_init(&sym, argc);
	if (parse_options(argc, argv, &o, &sym, &rr.r, &clock, &status) < 0) {
		zt_symargs_free(&sym);
		return status;
	}
	argc -= optind;
	argv += optind;

	flame = zt_flame_new();
	zt_flame_set_clock(flame, clock);
	argv = zt_usage_inputs(argv, &argc);
	for (int i = 0; i < argc && status == ZT_EXIT_OK; i++)
		if (read_input(flame, argv[i], &sym.opts, &rr, &empties, err, sizeof err) < 0)
			status = ZT_EXIT_DATA;
	/* An input with no samples is named; only all of them empty is an error. */
	if (zt_stage_empties_settle(&empties, status != ZT_EXIT_OK, err, sizeof err) < 0)
		status = ZT_EXIT_DATA;
	if (status == ZT_EXIT_OK) {
		setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
		if (zt_flame_write(flame, &o, stdout, err, sizeof err) < 0)
			status = ZT_EXIT_DATA;
	}
	if (status != ZT_EXIT_OK)
		zt_warn("%s", err);
	zt_flame_free(flame);
	free(rr.buf);
	zt_symargs_free(&sym);
	if (status == ZT_EXIT_OK)
		zt_fshut(stdout, "<stdout>");
	return status;
}
