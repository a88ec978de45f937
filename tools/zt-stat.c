/*
 * zt-stat — where the time went, as a table like `pprof -top`.
 *
 *   zt-symbolize < run.raw | zt-stat
 *   zt-stat --by=module run.sym
 *   perf script | zt-stat -n 10
 *
 * Reads a raw dump, zt-symbolize's stream, any perf script output or folded
 * stacks, told apart by lib/stage.c, which symbolizes a raw dump in
 * process (the symbolizer's options are zt-symbolize's). Counting is
 * in lib/profile.c and lib/perfscriptprofile.c, what a count weighs in
 * lib/weight.c, the filters in lib/filter.c and the peek and list views in
 * lib/views.c; zt's `# zt` facts (rate, timer, samples lost, CPU time) come
 * from lib/factlines.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folded.h"
#include "input.h"
#include "stage.h"
#include "symargs.h"
#include "event.h"
#include "json.h"
#include "perfscript.h"
#include "profile.h"
#include "rawfmt.h"
#include "perfscriptprofile.h"
#include "progress.h"
#include "usage.h"
#include "util.h"
#include "views.h"
#include "weight.h"
#include "factlines.h"
#include "escape.h"
#include "threadstates.h"
#include "waitframes.h"

/* Long-only options: every code below 256 would also be a short one. */
enum { OPT_FOCUS = ZT_SYMARGS_NEXT, OPT_IGNORE, OPT_HIDE, OPT_PEEK, OPT_LIST, OPT_SRCDIR,
       OPT_LABEL };

static const struct zt_opt options[] = {
	ZT_SYMARGS_ROWS,
	ZT_EVENT_ROW,
	{ 'n', "nodes", required_argument, "N", "rows of the table (default 20, 0 for all)" },
	{ 'b', "by", required_argument, "KEY", "function, module, line, thread, state or\n"
	  "label:NAME (state: on-CPU, off-CPU by wait,\n"
	  "waiting for a CPU, of a wall-clock profile;\n"
	  "label:NAME: each input's label NAME, host too)" },
	{ OPT_LABEL, "label", required_argument, "NAME=VALUE",
	  "only the inputs whose label NAME is VALUE\n"
	  "(zt-collect --label; host=H: taken on host H);\n"
	  "repeatable: all of them" },
	{ 's', "sort", required_argument, "ORDER", "flat (default) or cum" },
	{ OPT_FOCUS, "focus", required_argument, "REGEX",
	  "keep the stacks through a matching frame" },
	{ OPT_IGNORE, "ignore", required_argument, "REGEX",
	  "drop the stacks through a matching frame" },
	{ OPT_HIDE, "hide", required_argument, "REGEX",
	  "drop matching frames; their samples go to callers" },
	{ OPT_PEEK, "peek", required_argument, "REGEX",
	  "callers and callees of matching functions" },
	{ OPT_LIST, "list", required_argument, "REGEX",
	  "source of matching functions, with samples per\n"
	  "line (needs perf script -F +srcline or\n"
	  "zt-symbolize --lines input)" },
	{ OPT_SRCDIR, "source-dir", required_argument, "DIR",
	  "where --list finds sources the input's paths miss" },
	{ 'j', "json", no_argument, NULL, "one JSON object instead of text" },
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-stat [-n rows] [--by=function|module|line|thread|state|label:NAME]\n"
	"               [--label NAME=VALUE]... [--sort=flat|cum]\n"
	"               [--focus=REGEX] [--ignore=REGEX] [--hide=REGEX]\n"
	"               [--peek=REGEX] [--list=REGEX [--source-dir=DIR]] [--json]\n"
	"               [--event=NAME]\n"
	"               [-l] [-d DIR]... [--sysroot=DIR] [--no-demangle] [--no-debuginfod]\n"
	"               [file ...]",
	"Where the time went, as a table like pprof -top, from the files or stdin:\n"
	"a zt raw dump, zt-symbolize's stream or perf script output, or folded\n"
	"stacks, told apart by their content.",
	options,
	"REGEX is POSIX extended, matched anywhere in a name. A raw dump is\n"
	"symbolized as zt-symbolize symbolizes it, with -d, -l, --no-demangle,\n"
	"--sysroot and --no-debuginfod: with DEBUGINFOD_URLS set, files not found\n"
	"here are fetched from its servers.",
};

/* By enum zt_by; "label" stands for --by=label:NAME (by_name). */
static const char *const bynames[] = { "function", "module", "line", "thread", "state",
				       "label" };
#define NBY (sizeof bynames / sizeof *bynames)

/* What the counts weigh, agreed by every input. */
struct weight {
	int set;
	int samples;		/* they are samples (after dividing by div) */
	uint64_t div;
	char unit[64];		/* otherwise: "ns", an event, "units" */
	char punit[64];		/* the unit of one period */
	char why[256];		/* why they are not samples */
	const char *first;	/* the input that set them */
	int wall;		/* a wall-clock profile: ns of on- and off-CPU time */
	int alloc;		/* an allocation profile: ZT_WEIGHT_BYTES or ZT_WEIGHT_OBJECTS */
	int view;		/* its view (event.h), 0 when unknown (folded stacks) */
	uint64_t rate;		/* a folded allocation profile's declared rate, 0 if none */
};

/* A run: its options and what its inputs add up to. */
/* --label NAME=VALUE: an input is read only when it has each. */
struct want {
	const char *key, *value;
	size_t kn;
};

struct run {
	enum zt_by by;
	const char *bylabel;		/* --by=label:NAME: NAME */
	char byname[80];		/* "label:NAME" */
	struct want want[ZT_LABELS_MAX];
	int nwant;
	unsigned long inputs, leftout;	/* inputs read, and left out by --label */
	char *leftnames;		/* "'a', 'b'" */
	size_t leftlen, leftcap;
	struct zt_profile *p;
	struct zt_profile *lines;	/* --list: per source line */
	struct zt_filter *filter, *peekre, *listre;
	const char *srcdir;
	struct zt_symargs sym;		/* for raw dumps */
	struct zt_facts facts;
	struct weight weight;
	struct zt_threadstates *states;	/* by thread and state, wall-clock profiles */
	struct zt_stage_empties empties;	/* inputs with no samples */
};

/* One input as it is read, and what it added. */
struct reading {
	struct zt_stage *sg;
	/* Its labels ("# zt label", "# zt host"), until its first record. */
	char *labels[ZT_LABELS_MAX + 1];	/* "NAME VALUE" */
	int nlabels;
	int decided;			/* its labels were judged */
	int leftout;			/* by --label */
	/* Its '#' lines before its first record, counted once it is kept. */
	struct zt_out pending;		/* the lines, each after its line number */
	int raw;			/* a raw dump, symbolized here */
	struct zt_psprof *pp;		/* records */
	struct zt_weight w;
	uint64_t stacks;
	unsigned long records;
};

/* "samples", "samples (periods of 1003009 ns)", "ns", "cycles". */
static void describe(char *buf, size_t cap, int samples, uint64_t div, const char *unit)
{
	if (samples && div > 1)
		snprintf(buf, cap, "samples (periods of %llu)", (unsigned long long)div);
	else
		snprintf(buf, cap, "%s", unit);
}

/*
 * What one input's counts weigh, which every input must share: samples
 * (perf's periods divided by one fixed period), or a sum of periods. -1
 * with the message in err when they differ.
 */
static int agree(struct weight *weight, struct zt_weight *w, const char *path, char *err,
		 size_t errlen)
{
	char a[96], b[96];
	const char *why, *unit;
	uint64_t div;
	int samples;

	why = zt_weight_samples(w, &div);
	samples = why == NULL;
	unit = samples ? "samples" : w->kind == ZT_WEIGHT_WALL ? "ns of wall-clock time" :
		 zt_weight_unit(w);
	if (!weight->set) {
		weight->set = 1;
		weight->wall = w->kind == ZT_WEIGHT_WALL;
		weight->alloc = zt_weight_alloc_unit(w->kind) ? (int)w->kind : 0;
		weight->rate = w->rate;
		weight->samples = samples;
		weight->div = div;
		snprintf(weight->unit, sizeof weight->unit, "%s", unit);
		snprintf(weight->punit, sizeof weight->punit, "%s", zt_weight_unit(w));
		if (why)
			snprintf(weight->why, sizeof weight->why, "%s", why);
		weight->first = path;
		return 0;
	}
	if (samples == weight->samples && strcmp(unit, weight->unit) == 0 &&
	    (!samples || div == weight->div))
		return 0;
	describe(a, sizeof a, weight->samples, weight->div, weight->unit);
	describe(b, sizeof b, samples, div, unit);
	zt_errf(err, errlen, "'%s' weighs its stacks in %s, '%s' in %s: they cannot be "
		"added; read them one at a time", weight->first, a, path, b);
	return -1;
}

/*
 * One folded stack: by function, or by its leaf's state (a wait frame is told
 * by its name, lib/waitframes.h, only in a file declared '# zt weight: ns').
 */
static void add_folded(struct run *st, int wall, const char *s, size_t n, uint64_t c)
{
	const char *leaf = s + n;
	enum zt_state state = ZT_STATE_ON_CPU;
	char key[96];
	uint32_t id;
	int k;

	while (leaf > s && leaf[-1] != ';')
		leaf--;
	if (wall)
		state = zt_waitframes_state(leaf, (size_t)(s + n - leaf));
	(void)zt_threadstates_add(st->states, "", 0, "", 0, "", 0, state, c);
	if (st->by != ZT_BY_STATE) {
		zt_profile_add_folded(st->p, s, n, c);
		return;
	}
	if (state == ZT_STATE_OFF_CPU)
		k = snprintf(key, sizeof key, "off-CPU %.*s", (int)(s + n - leaf), leaf);
	else
		k = snprintf(key, sizeof key, "%s", state == ZT_STATE_ON_CPU ? "on-CPU" :
			     ZT_WAIT_RUNQUEUE);
	id = zt_profile_key(st->p, key, k < (int)sizeof key ? (size_t)k : sizeof key - 1);
	zt_profile_add(st->p, &id, NULL, 1, c);
}

/* The name of what the table is by: "function", ..., "label:NAME". */
static const char *by_name(const struct run *st)
{
	return st->by == ZT_BY_LABEL ? st->byname : bynames[st->by];
}

/* The input's value of label key (kn bytes), or NULL. */
static const char *label_of(const struct reading *rd, const char *key, size_t kn)
{
	for (int i = 0; i < rd->nlabels; i++)
		if (strncmp(rd->labels[i], key, kn) == 0 && rd->labels[i][kn] == ' ')
			return rd->labels[i] + kn + 1;
	return NULL;
}

/* Keep a "# zt label" or "# zt host" line's label of the input. */
static void take_label(struct reading *rd, const char *s, size_t n)
{
	const char *k, *v;
	size_t kn, vn;

	if (rd->decided || rd->nlabels > ZT_LABELS_MAX ||
	    !zt_factlines_label(s, n, &k, &kn, &v, &vn))
		return;
	rd->labels[rd->nlabels] = zt_malloc(kn + vn + 2);
	snprintf(rd->labels[rd->nlabels++], kn + vn + 2, "%.*s %.*s", (int)kn, k, (int)vn, v);
}

/*
 * Judge the input by its labels, once, before its first record: left out
 * when --label asks for one it lacks; with --by=label:NAME, its records'
 * key is its value of NAME ("[no NAME]" when it has none).
 */
static void decide(const struct run *st, struct reading *rd)
{
	const char *v;
	char none[ZT_LABEL_KEY_MAX + 8];

	if (rd->decided)
		return;
	rd->decided = 1;
	for (int i = 0; i < st->nwant; i++)
		if (!(v = label_of(rd, st->want[i].key, st->want[i].kn)) ||
		    strcmp(v, st->want[i].value) != 0)
			rd->leftout = 1;
	if (st->by == ZT_BY_LABEL && rd->pp) {
		v = label_of(rd, st->bylabel, strlen(st->bylabel));
		if (!v)
			snprintf(none, sizeof none, "[no %s]", st->bylabel);
		zt_psprof_set_key(rd->pp, v ? v : none, strlen(v ? v : none));
	}
}

/*
 * The facts of an input's '#' lines held until it was judged by its labels
 * (kept): NULL, or what is wrong with one, its line number in *lineno.
 */
static const char *count_pending(struct run *st, struct reading *rd, unsigned long *lineno)
{
	const char *p = rd->pending.buf, *end = p + rd->pending.len, *problem = NULL;
	size_t n;

	while (!problem && p < end) {
		memcpy(lineno, p, sizeof *lineno);
		memcpy(&n, p + sizeof *lineno, sizeof n);
		p += sizeof *lineno + sizeof n;
		problem = zt_factlines_line(&st->facts, p, n);
		p += n;
	}
	rd->pending.len = 0;
	return problem;
}

/* Count the folded stacks of the input; -1 with the message in err. */
static int read_folded(struct run *st, struct reading *rd, char *err, size_t errlen)
{
	struct zt_input *in = zt_stage_input(rd->sg);
	struct zt_folded_reader fr;
	struct zt_folded_item it;
	int got;

	if (st->by != ZT_BY_FUNCTION && st->by != ZT_BY_STATE) {
		zt_errf(err, errlen, "%s: folded stacks carry no %ss; --by=%s needs perf "
			"script input or a raw dump", zt_input_name(in), bynames[st->by],
			by_name(st));
		return -1;
	}
	/* Folded stacks carry no labels: --label leaves them out. */
	decide(st, rd);
	if (rd->leftout)
		return 0;
	/* Its weight goes on in rd->w; an input without stacks is named (main). */
	zt_folded_reader_init(&fr, in);
	fr.weighed = 1;
	fr.none_ok = 1;
	fr.facts = &st->facts;
	while ((got = zt_folded_read(&fr, &it, err, errlen)) > 0) {
		if (zt_profile_samples(st->p) > UINT64_MAX - it.count) {
			zt_err_at(err, errlen, zt_input_name(in), it.lineno, "%s",
				  "total count does not fit in 64 bits");
			return -1;
		}
		add_folded(st, fr.w.kind == ZT_WEIGHT_WALL, it.stack, it.stacklen, it.count);
		rd->stacks++;
	}
	rd->w = fr.w;
	if (got < 0)
		return -1;
	if (st->lines) {
		zt_errf(err, errlen, "%s: folded stacks carry no source lines; --list needs "
			"perf script -F +srcline or zt-symbolize --lines", zt_input_name(in));
		return -1;
	}
	return 0;
}

/*
 * Count the records of perf script text, or of a raw dump symbolized with
 * o; -1 with the message in err.
 */
static int read_records(struct run *st, struct reading *rd, const struct zt_symopts *o,
			char *err, size_t errlen)
{
	const char *name = zt_stage_name(rd->sg), *problem = NULL;
	const char *const *warn;
	struct zt_ps_item it;
	size_t nwarn;
	int got;

	if (zt_stage_records(rd->sg, o, err, errlen) < 0)
		return -1;
	rd->pp = zt_psprof_new(st->p, st->by);
	zt_psprof_set_states(rd->pp, st->states);
	if (st->lines)
		zt_psprof_set_lines(rd->pp, st->lines);
	/* zt_psprof_item keeps what a record gave: repeats need not be read again. */
	zt_ps_reader_set_repeats(zt_stage_reader(rd->sg), 1);
	while (!problem && (got = zt_stage_next(rd->sg, &it, err, errlen)) > 0) {
		/* The facts wait for the labels' verdict at the first record. */
		if (it.kind == ZT_PS_COMMENT && !rd->decided) {
			take_label(rd, it.text.p, it.text.n);
			zt_out_write(&rd->pending, &it.lineno, sizeof it.lineno);
			zt_out_write(&rd->pending, &it.text.n, sizeof it.text.n);
			zt_out_write(&rd->pending, it.text.p, it.text.n);
			continue;
		}
		if (it.kind == ZT_PS_HEADER && !rd->decided) {
			decide(st, rd);
			if (rd->leftout)
				break;
			if ((problem = count_pending(st, rd, &it.lineno)))
				break;
		}
		if (it.kind == ZT_PS_COMMENT)
			problem = zt_factlines_line(&st->facts, it.text.p, it.text.n);
		if (it.kind == ZT_PS_END)
			rd->records++;
		if (it.kind == ZT_PS_HEADER) {
			zt_weight_record(&rd->w, it.header.event.p, it.header.event.n,
					 it.header.period);
			if (!st->weight.view)
				st->weight.view = zt_view_of_event(it.header.event.p,
								   it.header.event.n);
		}
		if (!problem)
			problem = zt_psprof_item(rd->pp, &it);
	}
	if (problem) {
		zt_err_at(err, errlen, name, it.lineno, "%s", problem);
		return -1;
	}
	if (!problem && !rd->decided) {
		decide(st, rd);
		if (!rd->leftout)
			problem = count_pending(st, rd, &it.lineno);
	}
	if (problem) {
		zt_err_at(err, errlen, name, it.lineno, "%s", problem);
		return -1;
	}
	if (rd->leftout)
		return 0;
	warn = zt_stage_warnings(rd->sg, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		zt_warn("%s", warn[i]);
	if (got < 0)
		return -1;
	if ((st->by == ZT_BY_LINE || st->lines) && rd->records &&
	    !zt_psprof_saw_lines(rd->pp)) {
		if (rd->raw && !o->lines)
			zt_errf(err, errlen, "%s: a raw dump read without --lines gives no source "
				"lines; --%s needs --lines", name, st->lines ? "list" : "by=line");
		else
			zt_errf(err, errlen, "%s: no source lines in the input; --%s needs "
				"perf script -F +srcline or zt-symbolize --lines", name,
				st->lines ? "list" : "by=line");
		return -1;
	}
	return 0;
}

/* Read one input into the run, whichever stage it is. */
static int read_input(struct run *st, const char *path, const struct zt_symopts *o,
		      char *err, size_t errlen)
{
	struct reading rd = { 0 };
	int rc, empty;

	if (!(rd.sg = zt_stage_open(path, err, errlen)))
		return -1;
	rd.raw = zt_stage_kind(rd.sg) == ZT_STAGE_RAW;
	rc = zt_stage_refuse_diff(rd.sg, err, errlen);
	if (rc == 0)
		rc = zt_stage_kind(rd.sg) == ZT_STAGE_FOLDED ? read_folded(st, &rd, err, errlen)
							     : read_records(st, &rd, o, err, errlen);
	st->inputs++;
	if (rc == 0 && rd.leftout) {
		/* Named in one line with the others left out (main). */
		const char *name = zt_stage_name(rd.sg);
		size_t n = strlen(name);

		st->leftout++;
		zt_grow(&st->leftnames, &st->leftcap, st->leftlen + n + 3, 1);
		st->leftlen += (size_t)snprintf(st->leftnames + st->leftlen, n + 3, "%s%s",
						st->leftlen ? ", " : "", name);
	}
	/* An input with no samples is named with the others' (main). */
	empty = rd.stacks == 0 && rd.records == 0;
	if (rc == 0 && !rd.leftout)
		zt_stage_empties_add(&st->empties, zt_stage_name(rd.sg), empty);
	if (rd.leftout)
		empty = 1;
	if (rc == 0 && !empty)
		rc = agree(&st->weight, &rd.w, path, err, errlen);
	if (rc == 0 && !empty && st->by == ZT_BY_STATE && !st->weight.wall) {
		zt_errf(err, errlen, "%s: --by=state needs a wall-clock profile (zt-collect "
			"--clock=wall, or folded stacks with '# zt weight: ns'); in a CPU profile "
			"every sample is on-CPU", zt_stage_name(rd.sg));
		rc = -1;
	}
	zt_psprof_free(rd.pp);
	zt_stage_close(rd.sg);
	for (int i = 0; i < rd.nlabels; i++)
		free(rd.labels[i]);
	zt_out_free(&rd.pending);
	return rc;
}

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

/*
 * The CPU time line when the input splits it into user and system time
 * while sampling ran (getrusage's, estimated from kernel ticks), as
 * zt-collect's summary gives it: perf-task-clock counts user space only
 * (exclude_kernel), so the time is the two added up, "user 0.84 s sampled,
 * system 4.46 s not sampled"; the POSIX timers count both, and the time is
 * the process clock's, measured, with the split as shares, which cannot
 * contradict it. Returns 0 when there is no split to give.
 */
static int cpu_split(const struct zt_facts *f)
{
	uint64_t all = f->cpu_user_ns + f->cpu_sys_ns;
	double u = (double)f->cpu_user_ns / 1e9, sy = (double)f->cpu_sys_ns / 1e9;

	if (!f->have_cpu_split || !all)
		return 0;
	if (strcmp(f->timer, "perf-task-clock") == 0) {
		printf("cpu time: %.3f s (user %.3f s sampled, system %.3f s not sampled)",
		       u + sy, u, sy);
		return 1;
	}
	if (!f->have_cpu_ns)
		return 0;
	printf("cpu time: %.3f s (measured; user %.0f%%, system %.0f%%%s)",
	       (double)f->cpu_ns / 1e9, pct(f->cpu_user_ns, all), pct(f->cpu_sys_ns, all),
	       f->timer[0] && strcmp(f->timer, "unknown") != 0 ? ", both sampled" : "");
	return 1;
}

/* "on-CPU 0.250 s (10.7%), off-CPU 1.800 s (76.9%), waiting for a CPU 0.290 s (12.4%)" */
static void states_of(const uint64_t *ns)
{
	uint64_t all = ns[ZT_STATE_ON_CPU] + ns[ZT_STATE_OFF_CPU] + ns[ZT_STATE_RUNQUEUE];

	for (int k = 0; k < ZT_STATES; k++)
		printf("%s%s %.3f s (%.1f%%)", k ? ", " : "",
		       zt_waitframes_state_name((enum zt_state)k), (double)ns[k] / 1e9,
		       pct(ns[k], all));
}

/*
 * A wall-clock profile's first lines: its time, on-CPU, off-CPU and
 * waiting for a CPU, in all and per process and thread.
 */
static void wall_header(const struct run *st)
{
	const struct zt_facts *f = &st->facts;
	uint64_t ns[ZT_STATES], all = 0;
	const struct zt_threadstates_row *rows;
	size_t nrows;

	for (int k = 0; k < ZT_STATES; k++)
		all += ns[k] = zt_threadstates_total(st->states, (enum zt_state)k);
	printf("wall-clock profile: %.3f s of thread time (the samples' weights)", (double)all / 1e9);
	if (f->have_wall_ns)
		printf(", sampled over %.3f s of wall-clock time", (double)f->wall_ns / 1e9);
	if (f->off_cpu_hz)
		printf(", off-CPU at %llu Hz", (unsigned long long)f->off_cpu_hz);
	printf("\n  ");
	states_of(ns);
	putchar('\n');
	rows = zt_threadstates_rows(st->states, &nrows);
	for (size_t i = 0; i < nrows; i++) {
		const struct zt_threadstates_row *r = &rows[i];
		uint64_t t = r->ns[0] + r->ns[1] + r->ns[2];

		if (r->tid)
			printf("    thread %llu ", (unsigned long long)r->tid);
		else
			printf("  process %llu ", (unsigned long long)r->pid);
		zt_escape_fput_safe(stdout, r->name);
		printf(": wall %.3f s; ", (double)t / 1e9);
		states_of(r->ns);
		putchar('\n');
	}
	if (f->off_cpu_torn || f->off_cpu_repeated)
		printf("off-CPU samples: %llu, %llu repeating a thread's last stack, %llu dropped "
		       "(the thread woke during the walk)\n",
		       (unsigned long long)f->off_cpu_samples,
		       (unsigned long long)f->off_cpu_repeated, (unsigned long long)f->off_cpu_torn);
}

/*
 * The weight of the samples in the collector's own work (the frame "[zt]",
 * formats/folded.md), and whether the view can tell it: its keys are
 * functions or modules, and "[zt]" is both.
 */
static int own_weight(const struct run *st, uint64_t *w)
{
	int64_t id;

	*w = 0;
	if (st->by != ZT_BY_FUNCTION && st->by != ZT_BY_MODULE)
		return 0;
	id = zt_profile_find(st->p, ZT_OWN_FRAME, strlen(ZT_OWN_FRAME));
	if (id >= 0)
		*w = zt_profile_total(st->p, (uint32_t)id);
	return 1;
}

/*
 * "partial stacks: 9 cut at the depth limit (max-depth 128), 1 could not be
 * unwound": stacks that did not reach their thread's entry, as the
 * collector counted them (a raw dump's summary, zt-symbolize's facts), when
 * there are any. Cut ones are whole as far as they go and end in
 * "[depth limit]"; the others end where the unwinder stopped, "[truncated]".
 */
static void partial_line(const struct zt_facts *f)
{
	uint64_t cut = f->truncated < f->partial ? f->truncated : f->partial;

	if (!f->have_partial || !f->partial)
		return;
	printf("partial stacks: %llu cut at the depth limit", (unsigned long long)cut);
	if (f->max_depth)
		printf(" (max-depth %llu)", (unsigned long long)f->max_depth);
	printf(", %llu could not be unwound\n", (unsigned long long)(f->partial - cut));
}

/* "kept: ..." when a filter dropped stacks. */
static void kept_line(const struct run *st)
{
	const struct zt_profile *p = st->p;
	uint64_t n = zt_profile_samples(p), kept = zt_profile_kept(p);
	char a[32], b[32];

	if (!zt_filter_active(st->filter))
		return;
	if (st->weight.alloc == ZT_WEIGHT_BYTES) {
		zt_views_bytes(kept, a, sizeof a);
		zt_views_bytes(n, b, sizeof b);
		printf("kept: %s of %s (%.2f%%) by --focus, --ignore and --hide; "
		       "percentages are of all\n", a, b, pct(kept, n));
		return;
	}
	printf("kept: %llu of %llu %s (%.2f%%) by --focus, --ignore and --hide; "
	       "percentages are of all\n", (unsigned long long)kept,
	       (unsigned long long)n, st->weight.unit, pct(kept, n));
}

/* What an allocation view's numbers are, after "estimated". */
static const char *alloc_what(int view, int alloc)
{
	switch (view) {
	case ZT_VIEW_ALLOC_SPACE: return "bytes allocated";
	case ZT_VIEW_ALLOC_OBJECTS: return "objects allocated";
	case ZT_VIEW_INUSE_SPACE: return "bytes live at the end";
	case ZT_VIEW_INUSE_OBJECTS: return "objects live at the end";
	case ZT_VIEW_PEAK_SPACE: return "bytes live at the peak";
	case ZT_VIEW_PEAK_OBJECTS: return "objects live at the peak";
	}
	return alloc == ZT_WEIGHT_OBJECTS ? "objects" : "bytes";
}

/*
 * An allocation profile's first lines: the view and its total, what the
 * collector counted and sampled, the peak and what was live at the end
 * (the facts of raw version 6, formats/symbolized.md).
 */
static void alloc_header(const struct run *st)
{
	const struct zt_facts *f = &st->facts;
	uint64_t n = zt_profile_samples(st->p);
	char b1[32], b2[32], b3[32];

#define HAVE(k) (f->have_alloc & (1u << (k)))
	if (st->weight.alloc == ZT_WEIGHT_BYTES)
		zt_views_bytes(n, b1, sizeof b1);
	else
		snprintf(b1, sizeof b1, "%llu", (unsigned long long)n);
	printf("allocation profile, %s: %s estimated %s (the samples' weights)",
	       st->weight.view ? zt_view_name(st->weight.view) : st->weight.unit, b1,
	       alloc_what(st->weight.view, st->weight.alloc));
	if (f->alloc_rate || st->weight.rate) {
		zt_views_bytes(f->alloc_rate ? f->alloc_rate : st->weight.rate, b2, sizeof b2);
		printf(", one sample per %s allocated on average", b2);
	}
	putchar('\n');
	if (HAVE(ZT_FACTS_ALLOC_CALLS) && HAVE(ZT_FACTS_ALLOC_BYTES)) {
		zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_BYTES], b1, sizeof b1);
		printf("allocated: %llu calls, %s (counted by the collector)\n",
		       (unsigned long long)f->alloc[ZT_FACTS_ALLOC_CALLS], b1);
	}
	if (HAVE(ZT_FACTS_ALLOC_SAMPLED_BYTES) && HAVE(ZT_FACTS_ALLOC_ESTIMATED_BYTES)) {
		zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_SAMPLED_BYTES], b1, sizeof b1);
		zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_ESTIMATED_BYTES], b2, sizeof b2);
		printf("sampled: ");
		if (HAVE(ZT_FACTS_ALLOC_SAMPLES))
			printf("%llu allocations, ",
			       (unsigned long long)f->alloc[ZT_FACTS_ALLOC_SAMPLES]);
		printf("%s of them; estimated %s allocated\n", b1, b2);
	}
	if (HAVE(ZT_FACTS_ALLOC_PEAK_BYTES)) {
		zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_PEAK_BYTES], b1, sizeof b1);
		printf("peak: %s live (estimated)", b1);
		if (HAVE(ZT_FACTS_ALLOC_PEAK_NS))
			printf(" at %.3f s", (double)f->alloc[ZT_FACTS_ALLOC_PEAK_NS] / 1e9);
		if (HAVE(ZT_FACTS_ALLOC_INUSE_BYTES)) {
			zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_INUSE_BYTES], b3, sizeof b3);
			printf("; live at the end: %s", b3);
		}
		putchar('\n');
	} else if (HAVE(ZT_FACTS_ALLOC_INUSE_BYTES)) {
		zt_views_bytes(f->alloc[ZT_FACTS_ALLOC_INUSE_BYTES], b3, sizeof b3);
		printf("live at the end: %s (estimated)\n", b3);
	}
	if (HAVE(ZT_FACTS_ALLOC_UNTRACKED) && f->alloc[ZT_FACTS_ALLOC_UNTRACKED])
		printf("not tracked: %llu sampled blocks the collector's table of live blocks "
		       "had no room for (in alloc_space, missing from inuse and peak)\n",
		       (unsigned long long)f->alloc[ZT_FACTS_ALLOC_UNTRACKED]);
	if (f->alloc_allocator[0])
		printf("allocator: the program's malloc is %s's, not zt's: only the calls that "
		       "reach zt's interposers were seen\n", f->alloc_allocator);
	if (HAVE(ZT_FACTS_ALLOC_LOST) && f->alloc[ZT_FACTS_ALLOC_LOST])
		printf("lost: %llu allocations drawn for a sample and not recorded\n",
		       (unsigned long long)f->alloc[ZT_FACTS_ALLOC_LOST]);
#undef HAVE
	kept_line(st);
}

static void header(const struct run *st)
{
	const struct zt_facts *f = &st->facts;
	const struct zt_profile *p = st->p;
	uint64_t n = zt_profile_samples(p), own;
	double err = sqrt((double)n);

	if (st->weight.alloc) {
		alloc_header(st);
		return;
	}
	if (st->weight.wall) {
		wall_header(st);
	} else if (st->weight.samples) {
		printf("samples: %llu (sampling error ±%.0f, %.1f%%)", (unsigned long long)n,
		       err, n ? 100 * err / (double)n : 0);
		if (st->weight.div > 1)
			printf(", each a period of %llu %s", (unsigned long long)st->weight.div,
			       st->weight.punit);
		putchar('\n');
	} else if (strcmp(st->weight.unit, "ns") == 0) {
		printf("time: %.3f s, the sum of the periods; not samples: %s\n",
		       (double)n / 1e9, st->weight.why);
	} else {
		printf("weight: %llu %s, the sum of the periods; not samples: %s\n",
		       (unsigned long long)n, st->weight.unit, st->weight.why);
	}
	if (cpu_split(f))
		;
	else if (f->have_cpu_ns)
		printf("cpu time: %.3f s (measured)", (double)f->cpu_ns / 1e9);
	else if (st->weight.wall)
		printf("cpu time: %.3f s (the on-CPU samples' weights)",
		       (double)zt_threadstates_total(st->states, ZT_STATE_ON_CPU) / 1e9);
	else if (f->hz && st->weight.samples)
		printf("cpu time: %.3f s (estimated, %llu samples at %llu Hz)",
		       (double)n / (double)f->hz, (unsigned long long)n,
		       (unsigned long long)f->hz);
	else if (!st->weight.samples && strcmp(st->weight.unit, "ns") == 0)
		printf("cpu time: %.3f s (the sum of the periods)", (double)n / 1e9);
	else
		printf("cpu time: unknown (the input gives no sampling rate)");
	putchar('\n');
	if (zt_factlines_before_worth_saying(f->cpu_before_ns, f->have_cpu_split ?
					     f->cpu_user_ns + f->cpu_sys_ns : f->cpu_ns))
		printf("before sampling began: %.3f s of CPU time (the loader and the constructors "
		       "it ran before zt's, or the images before an exec), not sampled\n",
		       (double)f->cpu_before_ns / 1e9);
	if (f->unsampled_cpu_ns)
		printf("not sampled: %.3f s of CPU time that no sample covers (threads zt could "
		       "not sample; zt-collect's line said why)\n", (double)f->unsampled_cpu_ns / 1e9);
	printf("timer: %s", f->timer[0] ? f->timer : "unknown");
	if (f->hz)
		printf(", %llu Hz requested", (unsigned long long)f->hz);
	if (f->rate_cap[0])
		printf(", rate capped (%s)", f->rate_cap);
	putchar('\n');
	if (f->have_lost)
		printf("lost: %llu%s%s\n", (unsigned long long)f->lost,
		       f->lost_reason[0] ? " " : "", f->lost_reason);
	else
		printf("lost: unknown\n");
	if (own_weight(st, &own) && own)
		printf("zt's own work: %llu %s (%.1f%%), shown as " ZT_OWN_FRAME " under the "
		       "program's frames that called into zt\n", (unsigned long long)own,
		       st->weight.unit, pct(own, n));
	partial_line(f);
	if (f->alloc_rate)
		printf("allocations: sampled every %llu bytes on average, beside the time: "
		       "--event=alloc_space, alloc_objects, inuse_space, inuse_objects, "
		       "peak_inuse_space or peak_inuse_objects shows them\n",
		       (unsigned long long)f->alloc_rate);
	kept_line(st);
}

static void json_u64(const char *key, int known, uint64_t v)
{
	printf(", \"%s\": ", key);
	if (known)
		printf("%llu", (unsigned long long)v);
	else
		printf("null");
}

/* One row's ns by state, as JSON members. */
static void json_states(const uint64_t *ns)
{
	printf("\"on_cpu_ns\": %llu, \"off_cpu_ns\": %llu, \"waiting_for_cpu_ns\": %llu",
	       (unsigned long long)ns[ZT_STATE_ON_CPU], (unsigned long long)ns[ZT_STATE_OFF_CPU],
	       (unsigned long long)ns[ZT_STATE_RUNQUEUE]);
}

/* A wall-clock profile's states: "wall": {..., "threads": [...]}. */
static void json_wall(const struct run *st)
{
	uint64_t ns[ZT_STATES];
	const struct zt_threadstates_row *rows;
	size_t nrows, k = 0;

	for (int i = 0; i < ZT_STATES; i++)
		ns[i] = zt_threadstates_total(st->states, (enum zt_state)i);
	printf(", \"wall\": {");
	json_states(ns);
	printf(", \"threads\": [");
	rows = zt_threadstates_rows(st->states, &nrows);
	for (size_t i = 0; i < nrows; i++) {
		if (!rows[i].tid)
			continue;
		printf("%s{\"pid\": %llu, \"tid\": %llu, \"name\": ", k++ ? ", " : "",
		       (unsigned long long)rows[i].pid, (unsigned long long)rows[i].tid);
		zt_json_string(stdout, rows[i].name, strlen(rows[i].name));
		printf(", ");
		json_states(rows[i].ns);
		printf("}");
	}
	printf("]}");
}

/*
 * An allocation profile's facts: "allocation": {"view": ..., "rate": ...,
 * "calls": ..., ...}, null where the input does not say.
 */
static void json_alloc(const struct run *st)
{
	static const char *const names[ZT_FACTS_ALLOC] = {
		"calls", "bytes", "samples", "peak_bytes", "peak_ns", "inuse_bytes",
		"untracked", "lost", "sampled_bytes", "estimated_bytes",
	};
	const struct zt_facts *f = &st->facts;
	uint64_t rate = f->alloc_rate ? f->alloc_rate : st->weight.rate;

	printf(", \"allocation\": {\"view\": ");
	if (st->weight.view)
		printf("\"%s\"", zt_view_name(st->weight.view));
	else
		printf("null");
	json_u64("rate", rate != 0, rate);
	for (int i = 0; i < ZT_FACTS_ALLOC; i++)
		json_u64(names[i], (f->have_alloc >> i) & 1, f->alloc[i]);
	printf("}");
}

static void json(const struct run *st, const uint32_t *ids, uint32_t k,
		 const struct zt_view *v)
{
	const struct zt_facts *f = &st->facts;
	const struct zt_profile *p = st->p;
	uint64_t n = zt_profile_samples(p);

	printf("{\"samples\": ");
	if (st->weight.samples)
		printf("%llu", (unsigned long long)n);
	else
		printf("null");
	printf(", \"sampling_error\": ");
	if (st->weight.samples)
		zt_json_number(stdout, sqrt((double)n));
	else
		printf("null");
	printf(", \"unit\": ");
	zt_json_string(stdout, st->weight.unit, strlen(st->weight.unit));
	printf(", \"total\": %llu", (unsigned long long)n);
	printf(", \"period\": ");
	if (st->weight.div > 1)
		printf("%llu", (unsigned long long)st->weight.div);
	else
		printf("null");
	printf(", \"not_samples\": ");
	if (st->weight.samples)
		printf("null");
	else
		zt_json_string(stdout, st->weight.why, strlen(st->weight.why));
	printf(", \"kept\": %llu", (unsigned long long)zt_profile_kept(p));
	json_u64("hz", f->hz != 0, f->hz);
	printf(", \"cpu_seconds\": ");
	/* As the header's: user + system under perf-task-clock (cpu_split). */
	if (f->have_cpu_split && strcmp(f->timer, "perf-task-clock") == 0)
		zt_json_number(stdout, (double)(f->cpu_user_ns + f->cpu_sys_ns) / 1e9);
	else if (f->have_cpu_ns)
		zt_json_number(stdout, (double)f->cpu_ns / 1e9);
	else if (f->hz && st->weight.samples)
		zt_json_number(stdout, (double)n / (double)f->hz);
	else
		printf("null");
	printf(", \"cpu_seconds_measured\": %s", f->have_cpu_ns ? "true" : "false");
	printf(", \"cpu_user_seconds\": ");
	if (f->have_cpu_split)
		zt_json_number(stdout, (double)f->cpu_user_ns / 1e9);
	else
		printf("null");
	printf(", \"cpu_system_seconds\": ");
	if (f->have_cpu_split)
		zt_json_number(stdout, (double)f->cpu_sys_ns / 1e9);
	else
		printf("null");
	printf(", \"cpu_before_seconds\": ");
	if (f->have_cpu_before)
		zt_json_number(stdout, (double)f->cpu_before_ns / 1e9);
	else
		printf("null");
	printf(", \"system_sampled\": ");
	if (f->have_cpu_split && f->timer[0] && strcmp(f->timer, "unknown") != 0)
		printf("%s", strcmp(f->timer, "perf-task-clock") == 0 ? "false" : "true");
	else
		printf("null");
	printf(", \"timer\": ");
	if (f->timer[0])
		zt_json_string(stdout, f->timer, strlen(f->timer));
	else
		printf("null");
	json_u64("lost", f->have_lost, f->lost);
	{
		uint64_t own;
		int known = own_weight(st, &own);

		json_u64("zt_own", known, own);
	}
	if (st->weight.wall)
		json_wall(st);
	if (st->weight.alloc)
		json_alloc(st);
	printf(", \"by\": \"%s\", \"functions\": [", by_name(st));
	for (uint32_t i = 0; i < k; i++) {
		size_t nl;
		const char *name = zt_profile_name(p, ids[i], &nl);

		printf("%s\n  {\"name\": ", i ? "," : "");
		zt_json_string(stdout, name, nl);
		printf(", \"self\": %llu, \"total\": %llu}",
		       (unsigned long long)zt_profile_self(p, ids[i]),
		       (unsigned long long)zt_profile_total(p, ids[i]));
	}
	printf("%s]", k ? "\n" : "");
	if (st->peekre) {
		printf(", \"peek\": ");
		zt_views_peek(stdout, v, st->peekre, ids, k);
	}
	if (st->listre) {
		printf(", \"list\": ");
		zt_views_list(stdout, v, st->listre, st->lines, st->srcdir);
	}
	printf("}\n");
}

static void table(const struct run *st, const uint32_t *ids, uint32_t k, long rows,
		  const struct zt_view *v)
{
	const struct zt_profile *p = st->p;
	uint64_t n = zt_profile_samples(p), sum = 0;
	char b1[32], b2[32];

	printf("\n%10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum", "cum%",
	       by_name(st));
	for (uint32_t i = 0; i < k && (rows == 0 || i < rows); i++) {
		uint64_t self = zt_profile_self(p, ids[i]), total = zt_profile_total(p, ids[i]);
		size_t nl;
		const char *name = zt_profile_name(p, ids[i], &nl);

		sum += self;
		zt_views_value(v, self, b1, sizeof b1);
		zt_views_value(v, total, b2, sizeof b2);
		printf("%10s %6.2f%% %6.2f%% %10s %6.2f%%  ", b1, pct(self, n), pct(sum, n), b2,
		       pct(total, n));
		fwrite(name, 1, nl, stdout);
		putchar('\n');
	}
	if (rows && k > (uint32_t)rows)
		printf("(%lu more rows; -n 0 shows all)\n", (unsigned long)(k - (uint32_t)rows));
}

/* Compile a regex option into slot k of *f (made on first use); -1 after saying why. */
static int regex_opt(struct run *st, struct zt_filter **f, enum zt_filter_kind k,
		     const char *opt, const char *re)
{
	char err[256];

	if (!*f)
		*f = zt_filter_new(zt_profile_name_fn, st->p);
	if (zt_filter_set(*f, k, re, err, sizeof err) < 0) {
		zt_warn("%s: bad regex '%s': %s", opt, re, err);
		return -1;
	}
	return 0;
}

/* --list: say which source file could not be read, and go on. */
static void list_warn(const char *msg)
{
	zt_warn("%s", msg);
}

/* The report: the header and the table or views, or one JSON object. */
static void report(const struct run *st, long rows, int asjson, int cum)
{
	struct zt_view view = { 0 };
	uint32_t *ids, nids;

	view.p = st->p;
	view.all = zt_profile_samples(st->p);
	view.ns = st->weight.wall || (!st->weight.samples && strcmp(st->weight.unit, "ns") == 0);
	view.bytes = st->weight.alloc == ZT_WEIGHT_BYTES;
	view.json = asjson;
	view.warn = list_warn;
	ids = zt_profile_sorted_by(st->p, &nids, cum);
	if (asjson) {
		json(st, ids, nids, &view);
	} else {
		header(st);
		if (st->peekre || st->listre) {
			putchar('\n');
			if (st->peekre && !zt_views_peek(stdout, &view, st->peekre, ids, nids))
				zt_warn("--peek: no %s matches", by_name(st));
			if (st->listre &&
			    !zt_views_list(stdout, &view, st->listre, st->lines, st->srcdir))
				zt_warn("--list: no function with source lines matches");
		} else {
			table(st, ids, nids, rows, &view);
		}
	}
	free(ids);
}

/* What the command line asks for, besides what struct run holds. */
struct asked {
	long rows;
	int json, cum;
};

/*
 * The options, into st and *ask. Returns 0, or -1 when main is to end at
 * once with *status (--help, --version, a usage error).
 */
static int parse_options(int argc, char **argv, struct run *st, struct asked *ask,
			 int *status)
{
	char err[ZT_ERR_MAX];
	int c;

	*status = ZT_EXIT_OK;
	while (*status == ZT_EXIT_OK &&
	       (c = zt_symargs_getopt(argc, argv, &usage, &st->sym, err, sizeof err)) != -1) {
		switch (c) {
		case 'b':
			if (strncmp(optarg, "label:", 6) == 0) {
				st->by = ZT_BY_LABEL;
				st->bylabel = optarg + 6;
				snprintf(st->byname, sizeof st->byname, "label:%.64s", st->bylabel);
				if (!zt_label_key_ok(st->bylabel, strlen(st->bylabel))) {
					zt_warn("--by=label:NAME wants a label's name, not '%s'",
						st->bylabel);
					*status = ZT_EXIT_USAGE;
				}
				break;
			}
			for (st->by = 0; st->by < ZT_BY_LABEL && strcmp(optarg, bynames[st->by]) != 0;
			     st->by++)
				;
			if (st->by == ZT_BY_LABEL) {
				zt_warn("--by wants function, module, line, thread, state or "
					"label:NAME, not '%s'", optarg);
				*status = ZT_EXIT_USAGE;
			}
			break;
		case OPT_LABEL: {
			const char *eq = strchr(optarg, '=');

			if (!eq || !zt_label_key_ok(optarg, (size_t)(eq - optarg)) ||
			    !zt_label_value_ok(eq + 1, strlen(eq + 1))) {
				zt_warn("--label wants NAME=VALUE, by zt-collect --label's rules, "
					"not '%s'", optarg);
				*status = ZT_EXIT_USAGE;
			} else if (st->nwant == ZT_LABELS_MAX) {
				zt_warn("--label: more than %d labels", ZT_LABELS_MAX);
				*status = ZT_EXIT_USAGE;
			} else {
				st->want[st->nwant++] = (struct want){ optarg, eq + 1,
								       (size_t)(eq - optarg) };
			}
			break;
		}
		case 'j': ask->json = 1; break;
		case 'n':
			if (zt_usage_rows("-n", optarg, &ask->rows, err, sizeof err) < 0) {
				zt_warn("%s", err);
				*status = ZT_EXIT_USAGE;
			}
			break;
		case 's':
			if (strcmp(optarg, "flat") != 0 && strcmp(optarg, "cum") != 0) {
				zt_warn("--sort wants flat or cum, not '%s'", optarg);
				*status = ZT_EXIT_USAGE;
			}
			ask->cum = strcmp(optarg, "cum") == 0;
			break;
		case OPT_FOCUS:
		case OPT_IGNORE:
		case OPT_HIDE:
			if (regex_opt(st, &st->filter, c == OPT_FOCUS ? ZT_FOCUS :
				      c == OPT_IGNORE ? ZT_IGNORE : ZT_HIDE,
				      c == OPT_FOCUS ? "--focus" : c == OPT_IGNORE ? "--ignore" :
				      "--hide", optarg) < 0)
				*status = ZT_EXIT_USAGE;
			break;
		case OPT_PEEK:
			if (regex_opt(st, &st->peekre, ZT_FOCUS, "--peek", optarg) < 0)
				*status = ZT_EXIT_USAGE;
			break;
		case OPT_LIST:
			if (regex_opt(st, &st->listre, ZT_FOCUS, "--list", optarg) < 0)
				*status = ZT_EXIT_USAGE;
			break;
		case OPT_SRCDIR: st->srcdir = optarg; break;
		case 'h':
		case 'V': return zt_usage_end(&usage, c, NULL, status);
		default:
			if (err[0])
				zt_warn("%s", err);
			*status = ZT_EXIT_USAGE;
			break;
		}
	}
	if (*status == ZT_EXIT_OK && st->listre && st->by != ZT_BY_FUNCTION) {
		zt_warn("--list shows functions; it cannot go with --by=%s", by_name(st));
		*status = ZT_EXIT_USAGE;
	}
	if (*status == ZT_EXIT_OK && st->srcdir && !st->listre) {
		zt_warn("--source-dir is for --list");
		*status = ZT_EXIT_USAGE;
	}
	if (*status == ZT_EXIT_USAGE) {
		zt_usage(&usage, stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct run st = { .by = ZT_BY_FUNCTION };
	struct asked ask = { .rows = 20 };
	char err[ZT_ERR_MAX];
	int status;

	zt_setprog(argv[0]);
	/* On a terminal, long work shows how far it got (lib/progress.h). */
	zt_progress_start(isatty(STDERR_FILENO) ? stderr : NULL);
	st.p = zt_profile_new();
	st.states = zt_threadstates_new();
	zt_symargs_init(&st.sym, argc);
	if (parse_options(argc, argv, &st, &ask, &status) < 0)
		goto out;
	argc -= optind;
	argv += optind;

	zt_profile_set_filter(st.p, st.filter);
	if (st.peekre)
		zt_profile_track_edges(st.p);
	if (st.listre)
		st.lines = zt_profile_new();
	argv = zt_usage_inputs(argv, &argc);
	for (int i = 0; i < argc && status == ZT_EXIT_OK; i++)
		if (read_input(&st, argv[i], &st.sym.opts, err, sizeof err) < 0)
			status = ZT_EXIT_DATA;
	/* --label: what was left out is named; nothing kept is an error. */
	if (status == ZT_EXIT_OK && st.leftout == st.inputs) {
		zt_errf(err, sizeof err, "--label: no input has the labels asked for (%lu "
			"left out: %s)", st.leftout, st.leftnames);
		status = ZT_EXIT_DATA;
	} else if (status == ZT_EXIT_OK && st.leftout) {
		zt_warn("--label: left out %lu of %lu inputs, whose labels differ: %s",
			st.leftout, st.inputs, st.leftnames);
	}
	/* Only when every input is empty is it an error. */
	if (zt_stage_empties_settle(&st.empties, status != ZT_EXIT_OK, err, sizeof err) < 0)
		status = ZT_EXIT_DATA;
	if (status == ZT_EXIT_OK) {
		if (st.weight.samples && st.weight.div > 1) {
			zt_profile_divide(st.p, st.weight.div);
			if (st.lines)
				zt_profile_divide(st.lines, st.weight.div);
		}
		report(&st, ask.rows, ask.json, ask.cum);
		zt_fshut(stdout, "<stdout>");
	} else {
		zt_warn("%s", err);
	}
out:
	free(st.leftnames);
	zt_filter_free(st.filter);
	zt_filter_free(st.peekre);
	zt_filter_free(st.listre);
	zt_profile_free(st.lines);
	zt_profile_free(st.p);
	zt_threadstates_free(st.states);
	zt_symargs_free(&st.sym);
	return status;
}
