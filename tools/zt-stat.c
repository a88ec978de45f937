/*
 * zt-stat — where the time went, as a table like `pprof -top`.
 *
 *   zt-symbolize < run.raw | zt-stat
 *   zt-stat --by=module run.sym
 *   perf script | zt-stat -n 10
 *
 * Reads folded stacks, zt-symbolize's stream or any perf script output,
 * telling them apart by the first line that is not a comment. Counting is
 * in lib/profile.c and lib/psprofile.c, what a count weighs in
 * lib/weight.c, the filters in lib/filter.c and the peek and list views in
 * lib/views.c; zt's `# zt` facts (rate, timer, samples lost, CPU time) come
 * from lib/ztfacts.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "input.h"
#include "json.h"
#include "perfscript.h"
#include "profile.h"
#include "psprofile.h"
#include "util.h"
#include "views.h"
#include "weight.h"
#include "ztfacts.h"

/*
 * What a run holds, in file scope so that it stays reachable when an error
 * exits the program (LeakSanitizer would call locals leaked).
 */
static struct zt_profile *profile;
static struct zt_input *in;
static struct zt_ps_reader *r;
static struct zt_psprof *pp;
static struct zt_profile *lines;	/* --list: per source line */
static struct zt_filter *filter, *peekre, *listre;
static const char *srcdir;

/* What the counts weigh, agreed by every input. */
static struct {
	int set;
	int samples;		/* they are samples (after dividing by div) */
	uint64_t div;
	char unit[64];		/* otherwise: "ns", an event, "units" */
	char punit[64];		/* the unit of one period */
	char why[256];		/* why they are not samples */
	const char *first;	/* the input that set them */
} weight;

static const char *const bynames[] = { "function", "module", "line", "thread" };

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: zt-stat [-n rows] [--by=function|module|line|thread] [--sort=flat|cum]\n"
		   "               [--focus=REGEX] [--ignore=REGEX] [--hide=REGEX]\n"
		   "               [--peek=REGEX] [--list=REGEX [--source-dir=DIR]] [--json]\n"
		   "               [file ...]\n");
	if (f == stdout)
		fprintf(f, "\n"
			   "  -n, --nodes=N        rows of the table (default 20, 0 for all)\n"
			   "  -b, --by=KEY         function, module, line or thread\n"
			   "  -s, --sort=ORDER     flat (default) or cum\n"
			   "      --focus=REGEX    keep the stacks through a matching frame\n"
			   "      --ignore=REGEX   drop the stacks through a matching frame\n"
			   "      --hide=REGEX     drop matching frames; their samples go to callers\n"
			   "      --peek=REGEX     callers and callees of matching functions\n"
			   "      --list=REGEX     source of matching functions, with samples per\n"
			   "                       line (needs perf script -F +srcline or\n"
			   "                       zt-symbolize --lines input)\n"
			   "      --source-dir=DIR where --list finds sources the input's paths miss\n"
			   "  -j, --json           one JSON object instead of text\n"
			   "  -h, --help           this text\n"
			   "  -V, --version        the version\n"
			   "\nREGEX is POSIX extended, matched anywhere in a name.\n");
	exit(status);
}

static void die_at(struct zt_input *in, unsigned long line, const char *msg)
{
	const char *name = zt_input_name(in);

	if (line == 0)
		zt_die(ZT_EXIT_DATA, "%s: %s", name, msg);
	if (strcmp(name, "<stdin>") == 0)
		zt_die(ZT_EXIT_DATA, "line %lu: %s", line, msg);
	zt_die(ZT_EXIT_DATA, "%s: line %lu: %s", name, line, msg);
}

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
 * (perf's periods divided by one fixed period), or a sum of periods.
 */
static void agree(struct zt_weight *w, const char *path)
{
	char a[96], b[96];
	const char *why, *unit;
	uint64_t div;
	int samples;

	why = zt_weight_samples(w, &div);
	samples = why == NULL;
	unit = samples ? "samples" : zt_weight_unit(w);
	if (!weight.set) {
		weight.set = 1;
		weight.samples = samples;
		weight.div = div;
		snprintf(weight.unit, sizeof weight.unit, "%s", unit);
		snprintf(weight.punit, sizeof weight.punit, "%s", zt_weight_unit(w));
		if (why)
			snprintf(weight.why, sizeof weight.why, "%s", why);
		weight.first = path;
		return;
	}
	if (samples == weight.samples && strcmp(unit, weight.unit) == 0 &&
	    (!samples || div == weight.div))
		return;
	describe(a, sizeof a, weight.samples, weight.div, weight.unit);
	describe(b, sizeof b, samples, div, unit);
	zt_die(ZT_EXIT_DATA, "'%s' weighs its stacks in %s, '%s' in %s: they cannot be "
	       "added; read them one at a time", weight.first, a, path, b);
}

/* Read one input into p, whichever of the two formats it is. */
static void read_input(const char *path, enum zt_by by, struct zt_profile *p,
		       struct zt_facts *facts)
{
	struct zt_ps_item it;
	struct zt_weight w = { 0 };
	int folded = -1;	/* not known until the first record line */
	uint64_t stacks = 0;
	unsigned long records = 0;
	const char *err;
	char *s;
	size_t len;

	in = zt_input_open(path);
	while ((s = zt_input_line(in, &len))) {
		unsigned long ln = zt_input_lineno(in);

		if (len > 0 && s[0] == '#') {
			if ((err = zt_facts_line(facts, s, len)) ||
			    (folded != 0 && (err = zt_weight_comment(&w, s, len))))
				die_at(in, ln, err);
			continue;
		}
		if (folded < 0 && len > 0) {
			size_t sl;
			uint64_t c;

			struct zt_ps_header h;

			/* Folded when it parses as folded, or fails as neither
			   format: then the folded reader says what is wrong. */
			folded = s[0] != ' ' && s[0] != '\t' &&
				 (!zt_folded_parse(s, len, &sl, &c) ||
				  !zt_ps_parse_header(s, len, &h));
			if (folded && by != ZT_BY_FUNCTION)
				zt_die(ZT_EXIT_DATA, "%s: folded stacks carry no %ss; "
				       "--by=%s needs perf script input",
				       zt_input_name(in), bynames[by], bynames[by]);
			if (!folded) {
				r = zt_ps_reader_new(NULL);
				pp = zt_psprof_new(p, by);
				if (lines)
					zt_psprof_set_lines(pp, lines);
				w = (struct zt_weight){ 0 };	/* records say */
			}
		}
		if (folded > 0) {
			size_t sl;
			uint64_t c;

			if ((err = zt_folded_parse(s, len, &sl, &c)))
				die_at(in, ln, err);
			if (zt_profile_samples(p) > UINT64_MAX - c)
				die_at(in, ln, "total count does not fit in 64 bits");
			zt_profile_add_folded(p, s, sl, c);
			zt_weight_count(&w, c);
			stacks++;
			continue;
		}
		if (folded < 0)
			continue;	/* blank lines before the first record */
		if (!zt_ps_line(r, s, len, ln, &it))
			continue;
		if (it.kind == ZT_PS_ERROR)
			die_at(in, ln, it.text.p);
		if (it.kind == ZT_PS_END)
			records++;
		if (it.kind == ZT_PS_HEADER)
			zt_weight_record(&w, it.header.event.p, it.header.event.n,
					 it.header.period);
		if (zt_psprof_item(pp, &it) < 0)
			die_at(in, ln, "total count does not fit in 64 bits");
	}
	if (zt_input_lineno(in) == 0)
		die_at(in, 0, "empty file");
	if (r) {
		zt_ps_finish(r, zt_input_lineno(in), &it);
		if (it.unterminated)
			zt_warn("%s: line %lu: last record has no blank line after it; "
				"dropped, as stackcollapse-perf.pl drops it",
				zt_input_name(in), it.unterminated);
		if ((by == ZT_BY_LINE || lines) && !zt_psprof_saw_lines(pp))
			zt_die(ZT_EXIT_DATA, "%s: no source lines in the input; --%s needs "
			       "perf script -F +srcline or zt-symbolize --lines",
			       zt_input_name(in), lines ? "list" : "by=line");
	} else if (lines) {
		zt_die(ZT_EXIT_DATA, "%s: folded stacks carry no source lines; --list needs "
		       "perf script -F +srcline or zt-symbolize --lines", zt_input_name(in));
	}
	if (stacks == 0 && records == 0)
		die_at(in, 0, "no samples");
	agree(&w, path);
	zt_psprof_free(pp);
	zt_ps_reader_free(r);
	zt_input_close(in);
	pp = NULL;
	r = NULL;
	in = NULL;
}

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

/*
 * "user 0.84 s sampled, system 4.46 s not sampled": which of the program's
 * CPU time the timer saw. perf-task-clock counts user space only
 * (exclude_kernel); the POSIX timers count both.
 */
static void cpu_split(const struct zt_facts *f)
{
	double u = (double)f->cpu_user_ns / 1e9, sy = (double)f->cpu_sys_ns / 1e9;

	if (!f->have_cpu_split)
		return;
	if (strcmp(f->timer, "perf-task-clock") == 0)
		printf("; user %.3f s sampled, system %.3f s not sampled", u, sy);
	else if (f->timer[0] && strcmp(f->timer, "unknown") != 0)
		printf("; user %.3f s and system %.3f s both sampled", u, sy);
	else
		printf("; user %.3f s, system %.3f s", u, sy);
}

static void header(const struct zt_facts *f, const struct zt_profile *p)
{
	uint64_t n = zt_profile_samples(p), kept = zt_profile_kept(p);
	double err = sqrt((double)n);

	if (weight.samples) {
		printf("samples: %llu (sampling error ±%.0f, %.1f%%)", (unsigned long long)n,
		       err, n ? 100 * err / (double)n : 0);
		if (weight.div > 1)
			printf(", each a period of %llu %s", (unsigned long long)weight.div,
			       weight.punit);
		putchar('\n');
	} else if (strcmp(weight.unit, "ns") == 0) {
		printf("time: %.3f s, the sum of the periods; not samples: %s\n",
		       (double)n / 1e9, weight.why);
	} else {
		printf("weight: %llu %s, the sum of the periods; not samples: %s\n",
		       (unsigned long long)n, weight.unit, weight.why);
	}
	if (f->have_cpu_ns)
		printf("cpu time: %.3f s (measured)", (double)f->cpu_ns / 1e9);
	else if (f->hz && weight.samples)
		printf("cpu time: %.3f s (estimated, %llu samples at %llu Hz)",
		       (double)n / (double)f->hz, (unsigned long long)n,
		       (unsigned long long)f->hz);
	else if (!weight.samples && strcmp(weight.unit, "ns") == 0)
		printf("cpu time: %.3f s (the sum of the periods)", (double)n / 1e9);
	else
		printf("cpu time: unknown (the input gives no sampling rate)");
	cpu_split(f);
	putchar('\n');
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
	if (zt_filter_active(filter))
		printf("kept: %llu of %llu %s (%.2f%%) by --focus, --ignore and --hide; "
		       "percentages are of all\n", (unsigned long long)kept,
		       (unsigned long long)n, weight.unit, pct(kept, n));
}

static void json_u64(const char *key, int known, uint64_t v)
{
	printf(", \"%s\": ", key);
	if (known)
		printf("%llu", (unsigned long long)v);
	else
		printf("null");
}

static void json(const struct zt_profile *p, const uint32_t *ids, uint32_t k,
		 const struct zt_facts *f, enum zt_by by, const struct zt_view *v)
{
	uint64_t n = zt_profile_samples(p);

	printf("{\"samples\": ");
	if (weight.samples)
		printf("%llu", (unsigned long long)n);
	else
		printf("null");
	printf(", \"sampling_error\": ");
	if (weight.samples)
		zt_json_number(stdout, sqrt((double)n));
	else
		printf("null");
	printf(", \"unit\": ");
	zt_json_string(stdout, weight.unit, strlen(weight.unit));
	printf(", \"total\": %llu", (unsigned long long)n);
	printf(", \"period\": ");
	if (weight.div > 1)
		printf("%llu", (unsigned long long)weight.div);
	else
		printf("null");
	printf(", \"not_samples\": ");
	if (weight.samples)
		printf("null");
	else
		zt_json_string(stdout, weight.why, strlen(weight.why));
	printf(", \"kept\": %llu", (unsigned long long)zt_profile_kept(p));
	json_u64("hz", f->hz != 0, f->hz);
	printf(", \"cpu_seconds\": ");
	if (f->have_cpu_ns)
		zt_json_number(stdout, (double)f->cpu_ns / 1e9);
	else if (f->hz && weight.samples)
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
	printf(", \"by\": \"%s\", \"functions\": [", bynames[by]);
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
	if (peekre) {
		printf(", \"peek\": ");
		zt_view_peek(stdout, v, peekre, ids, k);
	}
	if (listre) {
		printf(", \"list\": ");
		zt_view_list(stdout, v, listre, lines, srcdir);
	}
	printf("}\n");
}

static void table(const struct zt_profile *p, const uint32_t *ids, uint32_t k,
		  long rows, enum zt_by by, const struct zt_view *v)
{
	uint64_t n = zt_profile_samples(p), sum = 0;
	char b1[32], b2[32];

	printf("\n%10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum", "cum%",
	       bynames[by]);
	for (uint32_t i = 0; i < k && (rows == 0 || i < rows); i++) {
		uint64_t self = zt_profile_self(p, ids[i]), total = zt_profile_total(p, ids[i]);
		size_t nl;
		const char *name = zt_profile_name(p, ids[i], &nl);

		sum += self;
		zt_view_value(v, self, b1, sizeof b1);
		zt_view_value(v, total, b2, sizeof b2);
		printf("%10s %6.2f%% %6.2f%% %10s %6.2f%%  ", b1, pct(self, n), pct(sum, n), b2,
		       pct(total, n));
		fwrite(name, 1, nl, stdout);
		putchar('\n');
	}
	if (rows && k > (uint32_t)rows)
		printf("(%lu more rows; -n 0 shows all)\n", (unsigned long)(k - (uint32_t)rows));
}

/* Compile a regex option into slot k of *f, or exit 2 naming it. */
static void regex_opt(struct zt_filter **f, enum zt_filter_kind k, const char *opt,
		      const char *re)
{
	char err[256];

	if (!*f)
		*f = zt_filter_new(zt_profile_name_fn, profile);
	if (zt_filter_set(*f, k, re, err, sizeof err) < 0) {
		zt_warn("%s: bad regex '%s': %s", opt, re, err);
		usage(stderr, ZT_EXIT_USAGE);
	}
}

enum { OPT_FOCUS = 256, OPT_IGNORE, OPT_HIDE, OPT_PEEK, OPT_LIST, OPT_SRCDIR };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "hide", required_argument, NULL, OPT_HIDE },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "json", no_argument, NULL, 'j' },
		{ "list", required_argument, NULL, OPT_LIST },
		{ "nodes", required_argument, NULL, 'n' },
		{ "peek", required_argument, NULL, OPT_PEEK },
		{ "sort", required_argument, NULL, 's' },
		{ "source-dir", required_argument, NULL, OPT_SRCDIR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum zt_by by = ZT_BY_FUNCTION;
	struct zt_facts facts = { 0 };
	struct zt_view view = { 0 };
	struct zt_profile *p;
	uint32_t *ids, nids;
	long rows = 20;
	int asjson = 0, cum = 0, c;
	char *end;

	zt_setprog(argv[0]);
	p = profile = zt_profile_new();
	while ((c = getopt_long(argc, argv, "b:hjn:s:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			for (by = 0; by < 4 && strcmp(optarg, bynames[by]) != 0; by++)
				;
			if (by == 4) {
				zt_warn("--by wants function, module, line or thread, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			break;
		case 'j': asjson = 1; break;
		case 'n':
			rows = strtol(optarg, &end, 10);
			if (*end || end == optarg || rows < 0) {
				zt_warn("-n wants a number of rows, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			break;
		case 's':
			if (strcmp(optarg, "flat") != 0 && strcmp(optarg, "cum") != 0) {
				zt_warn("--sort wants flat or cum, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			cum = strcmp(optarg, "cum") == 0;
			break;
		case OPT_FOCUS: regex_opt(&filter, ZT_FOCUS, "--focus", optarg); break;
		case OPT_IGNORE: regex_opt(&filter, ZT_IGNORE, "--ignore", optarg); break;
		case OPT_HIDE: regex_opt(&filter, ZT_HIDE, "--hide", optarg); break;
		case OPT_PEEK: regex_opt(&peekre, ZT_FOCUS, "--peek", optarg); break;
		case OPT_LIST: regex_opt(&listre, ZT_FOCUS, "--list", optarg); break;
		case OPT_SRCDIR: srcdir = optarg; break;
		case 'h': usage(stdout, ZT_EXIT_OK); break;
		case 'V': zt_version(); return ZT_EXIT_OK;
		default: usage(stderr, ZT_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (listre && by != ZT_BY_FUNCTION) {
		zt_warn("--list shows functions; it cannot go with --by=%s", bynames[by]);
		usage(stderr, ZT_EXIT_USAGE);
	}
	if (srcdir && !listre) {
		zt_warn("--source-dir is for --list");
		usage(stderr, ZT_EXIT_USAGE);
	}

	zt_profile_set_filter(p, filter);
	if (peekre)
		zt_profile_track_edges(p);
	if (listre)
		lines = zt_profile_new();
	for (int i = 0; i < (argc ? argc : 1); i++)
		read_input(argc ? argv[i] : "-", by, p, &facts);
	if (weight.samples && weight.div > 1) {
		zt_profile_divide(p, weight.div);
		if (lines)
			zt_profile_divide(lines, weight.div);
	}
	view.p = p;
	view.all = zt_profile_samples(p);
	view.ns = !weight.samples && strcmp(weight.unit, "ns") == 0;
	view.json = asjson;
	ids = zt_profile_sorted_by(p, &nids, cum);
	if (asjson) {
		json(p, ids, nids, &facts, by, &view);
	} else {
		header(&facts, p);
		if (peekre || listre) {
			putchar('\n');
			if (peekre && !zt_view_peek(stdout, &view, peekre, ids, nids))
				zt_warn("--peek: no %s matches", bynames[by]);
			if (listre && !zt_view_list(stdout, &view, listre, lines, srcdir))
				zt_warn("--list: no function with source lines matches");
		} else {
			table(p, ids, nids, rows, by, &view);
		}
	}
	zt_fshut(stdout, "<stdout>");
	free(ids);
	zt_filter_free(filter);
	zt_filter_free(peekre);
	zt_filter_free(listre);
	zt_profile_free(lines);
	zt_profile_free(p);
	return ZT_EXIT_OK;
}
