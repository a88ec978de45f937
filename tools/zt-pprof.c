/*
 * zt-pprof — raw dump in, gzipped pprof profile.proto out, for
 * `go tool pprof` and whatever else reads pprof's format.
 *
 *   zt-pprof [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [-o FILE] [FILE ...]
 *
 * The dump is named as zt-symbolize names it (the same symbolizer, the same
 * options and warnings); lib/pprof.c builds and encodes the profile. Other
 * stages (lib/stage.c) become a profile of names, as their folded stacks.
 * The
 * whole profile is built before anything is written, so a bad dump leaves
 * no output, and no output file.
 */
#include "pprof.h"
#include "folded.h"
#include "input.h"
#include "raw.h"
#include "stage.h"
#include "symargs.h"
#include "event.h"
#include "symbolize.h"
#include "progress.h"
#include "usage.h"
#include "util.h"
#include "weight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	ZT_EVENT_ROW,
	{ 'o', "output", required_argument, "FILE", "write the profile to FILE, not stdout" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-pprof [-l] [--no-demangle] [-d DIR]... [--sysroot=DIR] [--no-debuginfod]\n"
	"                [--event=NAME] [-o FILE] [FILE ...]",
	"Turn a zt raw dump (FILE or stdin, plain or gzip) into a gzipped pprof\n"
	"profile (profile.proto), for go tool pprof; or zt-symbolize's stream,\n"
	"perf script output or folded stacks (told apart by their content) into\n"
	"a profile of their function names. Several inputs are added up.",
	options,
	"With DEBUGINFOD_URLS set, the files of a raw dump that are not found\n"
	"here are fetched from its servers (libdebuginfod), unless --no-debuginfod.",
};

/*
 * Write the encoded profile to output (NULL: stdout). Returns 0, or -1
 * with the message in err, and then leaves no half-written file behind.
 */
static int write_profile(const unsigned char *buf, size_t len, const char *output,
			 char *err, size_t errlen)
{
	FILE *out = stdout;
	int rc, e;

	err[0] = '\0';
	if (output && !(out = fopen(output, "wb"))) {
		zt_errf(err, errlen, "cannot open '%s': %s", output, strerror(errno));
		return -1;
	}
	rc = zt_pprof_write(buf, len, out, err, errlen);
	e = errno;
	if (output && fclose(out) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0)
		return 0;
	if (output)
		unlink(output);
	if (!err[0])
		zt_errf(err, errlen, "cannot write %s%s%s: %s", output ? "'" : "",
			output ? output : "<stdout>", output ? "'" : "", strerror(e));
	return -1;
}

/*
 * The options, into args and *output. Returns 0, or -1 when main is to
 * end at once with *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct zt_symargs *args,
			 const char **output, int *status)
{
	char err[ZT_ERR_MAX];
	const char *problem;
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_symargs_getopt(argc, argv, &usage, args, err, sizeof err)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
		default: return zt_usage_end(&usage, c, err, status);
		}
	}
	if ((problem = zt_usage_stdin_once(argv + optind, argc - optind)))
		return zt_usage_error(&usage, "%s", problem);
	/* gzip's rule: compressed bytes never go to a terminal. */
	if (!*output && isatty(STDOUT_FILENO))
		return zt_usage_error(&usage, "the profile is binary: give -o FILE or redirect "
				      "stdout");
	return 0;
}

static void print_warnings(const char *const *warn, size_t n)
{
	for (size_t i = 0; i < n; i++)
		zt_warn("%s", warn[i]);
}

/* A raw dump's profile: every address with its mapping, names and lines. */
static struct zt_pprof *from_raw(struct zt_stage *sg, const struct zt_symargs *args,
				 char *err, size_t errlen)
{
	struct zt_symbolizer *s;
	struct zt_pprof *p;
	const char *const *warn;
	size_t nwarn;

	if (zt_stage_records(sg, &args->opts, err, errlen) < 0)
		return NULL;
	s = zt_stage_symbolizer(sg);
	p = zt_pprof_build_view(zt_stage_raw(sg), s, args->opts.lines, args->opts.view);
	warn = zt_symbolizer_warnings(s, &nwarn);
	if (zt_symbolizer_debuginfod_note(s))
		zt_warn("%s", zt_symbolizer_debuginfod_note(s));
	print_warnings(warn, nwarn);
	return p;
}

/* Whether dump d has samples for its profile: allocation samples for a
   heap profile (zt_pprof_build_view, or an allocation view asked for),
   else CPU ones. */
static int has_samples(const struct zt_raw *d, int view)
{
	if (view >= ZT_VIEW_ALLOC_SPACE)
		return zt_raw_has_alloc(d);
	return zt_raw_has_alloc(d) && view != ZT_VIEW_TIME ? 1 : d->nsamples != 0;
}

/* The profile of names that every input is added to, unless all are raw dumps. */
struct names {
	struct zt_pprof_folded *f;
	int wall;		/* -1 until an input with stacks said */
	int alloc;		/* its ZT_WEIGHT_BYTES or _OBJECTS, 0 for other stacks */
};

/*
 * Add the folded stacks of one input, or its records folded as zt-fold
 * folds them, to the profile of names: counts of perf periods become
 * samples, as zt-diff --report takes them, or the input is refused. -1
 * with the message in err; *empty says that it held no samples.
 */
static int from_folded(struct zt_stage *sg, const struct zt_symargs *args, struct names *nm,
		       int *empty, char *err, size_t errlen)
{
	struct zt_folded_reader rd;
	int rc = zt_stage_folded(sg, &rd, &args->opts, err, errlen);
	struct zt_folded_item it;
	const char *const *warn, *problem = NULL;
	uint64_t div = 1;
	size_t nwarn, first = zt_pprof_folded_samples(nm->f);
	int got, said = 0, wall, alloc;

	warn = zt_stage_warnings(sg, &nwarn);
	print_warnings(warn, nwarn);
	if (rc < 0)
		return -1;
	if ((*empty = zt_stage_empty(sg)))
		return 0;
	rd.weighed = 1;
	while ((got = zt_folded_read(&rd, &it, err, errlen)) > 0) {
		/* '# zt weight: ns' comes before the first stack. */
		wall = rd.w.kind == ZT_WEIGHT_WALL;
		alloc = zt_weight_alloc_unit(rd.w.kind) ? (int)rd.w.kind : 0;
		if (!said++ && nm->wall < 0) {
			nm->wall = wall;
			nm->alloc = alloc;
			if (nm->wall)
				zt_pprof_folded_wall(nm->f);
			if (alloc)
				zt_pprof_folded_alloc(nm->f, alloc == ZT_WEIGHT_OBJECTS);
		} else if (said == 1 && nm->alloc != alloc) {
			problem = alloc ? "an allocation profile ('# zt weight: bytes' or 'objects') "
					  "after other stacks: they cannot be added"
					: "stacks that are not an allocation profile's after one: "
					  "they cannot be added";
			break;
		} else if (said == 1 && nm->wall != wall) {
			problem = wall ? "a wall-clock profile ('# zt weight: ns') after CPU profiles: "
					 "they cannot be added"
				       : "a CPU profile after a wall-clock profile ('# zt weight: ns'): "
					 "they cannot be added";
			break;
		}
		zt_pprof_folded_add(nm->f, it.stack, it.stacklen, it.count);
	}
	if (problem)
		zt_err_at(err, errlen, zt_stage_name(sg), it.lineno, "%s", problem);
	else if (got == 0 && rd.w.kind != ZT_WEIGHT_WALL && !zt_weight_alloc_unit(rd.w.kind) &&
		 (problem = zt_weight_samples(&rd.w, &div)))
		zt_err_at(err, errlen, zt_stage_name(sg), 0, "%s", problem);
	if (got < 0 || problem)
		return -1;
	zt_pprof_folded_divide(nm->f, first, div);
	return 0;
}

/*
 * The profile of every input, added up: raw dumps' profiles merged
 * (lib/pprof.h), or, when any input is another stage, one profile of
 * names. An input with no samples is named; only all of them empty is an
 * error. NULL with the message in err.
 */
static struct zt_pprof *profile(struct zt_stage **sg, char **paths, int n, int raw,
				const struct zt_symargs *args, char *err, size_t errlen)
{
	struct zt_stage_empties empties = { 0 };
	struct names nm = { NULL, -1, 0 };
	struct zt_pprof *p = NULL, *q;
	int rc = 0, empty;
	char why[ZT_ERR_MAX];
	const char *problem;

	/* The same profile as from zt-fold's output: the same note. */
	if (!raw)
		nm.f = zt_pprof_folded_new("from folded stacks: names only, no addresses or lines");
	/* One input open at a time: any number of them, at any descriptor limit. */
	for (int i = 0; i < n && rc == 0; zt_stage_close(sg[i]), sg[i] = NULL, i++) {
		if (!sg[i] && !(sg[i] = zt_stage_open(paths[i], err, errlen))) {
			rc = -1;
			break;
		}
		if ((rc = zt_stage_refuse_diff(sg[i], err, errlen)) < 0)
			break;
		if (raw && zt_stage_kind(sg[i]) != ZT_STAGE_RAW) {
			zt_errf(err, errlen, "%s: stopped being a raw dump while the inputs were read",
				zt_stage_name(sg[i]));
			rc = -1;
			break;
		}
		if (!raw) {
			rc = from_folded(sg[i], args, &nm, &empty, err, errlen);
		} else if (!(q = from_raw(sg[i], args, err, errlen))) {
			rc = -1;
		} else if ((empty = !has_samples(zt_stage_raw(sg[i]), args->opts.view)) || !p) {
			if (!empty)
				p = q;
			else
				zt_pprof_free(q);
		} else {
			if ((problem = zt_pprof_merge(p, q, why, sizeof why))) {
				zt_err_at(err, errlen, zt_stage_name(sg[i]), 0, "%s", problem);
				rc = -1;
			}
			zt_pprof_free(q);
		}
		if (rc == 0)
			zt_stage_empties_add(&empties, zt_stage_name(sg[i]), empty);
	}
	if (zt_stage_empties_settle(&empties, rc < 0, err, errlen) < 0)
		rc = -1;
	if (nm.f)
		p = zt_pprof_folded_end(nm.f, 1);
	if (rc < 0) {
		zt_pprof_free(p);
		return NULL;
	}
	return p;
}

/* The n inputs (zt_usage_inputs) as one profile in output; the exit status. */
static int pprof(char **paths, int n, const struct zt_symargs *args, const char *output)
{
	char err_buf[ZT_ERR_MAX];
	struct zt_stage **sg = zt_calloc((size_t)n, sizeof *sg);
	struct zt_pprof *p = NULL;
	unsigned char *buf;
	size_t len;
	int status = ZT_EXIT_DATA, opened = 0, raw = 1;

	/*
	 * Each input's kind, from its first lines; then it is closed, but
	 * standard input, which cannot be read again: a file is opened again
	 * when its turn comes.
	 */
	for (; opened < n; opened++) {
		if (!(sg[opened] = zt_stage_open(paths[opened], err_buf, sizeof err_buf)))
			break;
		raw &= zt_stage_kind(sg[opened]) == ZT_STAGE_RAW;
		if (strcmp(paths[opened], "-") != 0) {
			zt_stage_close(sg[opened]);
			sg[opened] = NULL;
		}
	}
	if (opened == n)
		p = profile(sg, paths, opened, raw, args, err_buf, sizeof err_buf);
	if (p && p->saturated)
		zt_warn("%zu value%s past 2^63 - 1 written as 2^63 - 1 (profile.proto's values "
			"are int64)", p->saturated, p->saturated == 1 ? "" : "s");
	if (p) {
		buf = zt_pprof_encode(p, &len);
		if (write_profile(buf, len, output, err_buf, sizeof err_buf) == 0)
			status = ZT_EXIT_OK;
		free(buf);
	}
	if (status != ZT_EXIT_OK)
		zt_warn("%s", err_buf);
	zt_pprof_free(p);
	for (int i = 0; i < opened; i++)
		zt_stage_close(sg[i]);
	free(sg);
	return status;
}

int main(int argc, char **argv)
{
	struct zt_symargs args;
	const char *output = NULL;
	char **paths;
	int status, n;

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	zt_symargs_init(&args, argc);
	/* stdout is checked at exit (zt_setprog). */
	if (parse_options(argc, argv, &args, &output, &status) == 0) {
		n = argc - optind;
		paths = zt_usage_inputs(argv + optind, &n);
		status = pprof(paths, n, &args, output);
	}
	zt_symargs_free(&args);
	return status;
}
