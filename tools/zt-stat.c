/*
 * zt-stat — where the time went, as a table like `pprof -top`.
 *
 *   zt-symbolize < run.raw | zt-stat
 *   zt-stat --by=module run.sym
 *   perf script | zt-stat -n 10
 *
 * Reads folded stacks, zt-symbolize's stream or any perf script output,
 * telling them apart by the first line that is not a comment. Counting is
 * in lib/profile.c and lib/psprofile.c; zt's `# zt` facts (rate, timer,
 * samples lost, CPU time) come from lib/ztfacts.c.
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
#include "ztfacts.h"

/*
 * What a run holds, in file scope so that it stays reachable when an error
 * exits the program (LeakSanitizer would call locals leaked).
 */
static struct zt_profile *profile;
static struct zt_input *in;
static struct zt_ps_reader *r;
static struct zt_psprof *pp;

static const char *const bynames[] = { "function", "module", "line", "thread" };

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: zt-stat [-n rows] [--by=function|module|line|thread] [--json] [file ...]\n");
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

/* Read one input into p, whichever of the two formats it is. */
static void read_input(const char *path, enum zt_by by, struct zt_profile *p,
		       struct zt_facts *facts)
{
	struct zt_ps_item it;
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
			if ((err = zt_facts_line(facts, s, len)))
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
		if (by == ZT_BY_LINE && !zt_psprof_saw_lines(pp))
			zt_die(ZT_EXIT_DATA, "%s: no source lines in the input; --by=line needs "
			       "perf script -F +srcline or zt-symbolize --lines",
			       zt_input_name(in));
	}
	if (stacks == 0 && records == 0)
		die_at(in, 0, "no samples");
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

static void header(const struct zt_facts *f, uint64_t n)
{
	double err = sqrt((double)n);

	printf("samples: %llu (sampling error ±%.0f, %.1f%%)\n", (unsigned long long)n,
	       err, n ? 100 * err / (double)n : 0);
	if (f->have_cpu_ns)
		printf("cpu time: %.3f s (measured)", (double)f->cpu_ns / 1e9);
	else if (f->hz)
		printf("cpu time: %.3f s (estimated, %llu samples at %llu Hz)",
		       (double)n / (double)f->hz, (unsigned long long)n,
		       (unsigned long long)f->hz);
	else
		printf("cpu time: unknown (the input gives no sampling rate)");
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
}

static void json(const struct zt_profile *p, const uint32_t *ids, uint32_t k,
		 const struct zt_facts *f, enum zt_by by)
{
	uint64_t n = zt_profile_samples(p);

	printf("{\"samples\": %llu, \"sampling_error\": ", (unsigned long long)n);
	zt_json_number(stdout, sqrt((double)n));
	printf(", \"hz\": ");
	if (f->hz)
		printf("%llu", (unsigned long long)f->hz);
	else
		printf("null");
	printf(", \"cpu_seconds\": ");
	if (f->have_cpu_ns)
		zt_json_number(stdout, (double)f->cpu_ns / 1e9);
	else if (f->hz)
		zt_json_number(stdout, (double)n / (double)f->hz);
	else
		printf("null");
	printf(", \"cpu_seconds_measured\": %s", f->have_cpu_ns ? "true" : "false");
	printf(", \"timer\": ");
	if (f->timer[0])
		zt_json_string(stdout, f->timer, strlen(f->timer));
	else
		printf("null");
	printf(", \"lost\": ");
	if (f->have_lost)
		printf("%llu", (unsigned long long)f->lost);
	else
		printf("null");
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
	printf("%s]}\n", k ? "\n" : "");
}

static void table(const struct zt_profile *p, const uint32_t *ids, uint32_t k,
		  long rows, enum zt_by by)
{
	uint64_t n = zt_profile_samples(p), sum = 0;

	printf("\n%10s %7s %7s %10s %7s  %s\n", "flat", "flat%", "sum%", "cum", "cum%",
	       bynames[by]);
	for (uint32_t i = 0; i < k && (rows == 0 || i < rows); i++) {
		uint64_t self = zt_profile_self(p, ids[i]), total = zt_profile_total(p, ids[i]);
		size_t nl;
		const char *name = zt_profile_name(p, ids[i], &nl);

		sum += self;
		printf("%10llu %6.2f%% %6.2f%% %10llu %6.2f%%  ", (unsigned long long)self,
		       pct(self, n), pct(sum, n), (unsigned long long)total, pct(total, n));
		fwrite(name, 1, nl, stdout);
		putchar('\n');
	}
	if (rows && k > (uint32_t)rows)
		printf("(%lu more rows; -n 0 shows all)\n", (unsigned long)(k - (uint32_t)rows));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum zt_by by = ZT_BY_FUNCTION;
	struct zt_facts facts = { 0 };
	struct zt_profile *p;
	uint32_t *ids, nids;
	long rows = 20;
	int asjson = 0, c;
	char *end;

	zt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "b:hjn:V", longopts, NULL)) != -1) {
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
		case 'h': usage(stdout, ZT_EXIT_OK); break;
		case 'V': zt_version(); return ZT_EXIT_OK;
		default: usage(stderr, ZT_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;

	p = profile = zt_profile_new();
	for (int i = 0; i < (argc ? argc : 1); i++)
		read_input(argc ? argv[i] : "-", by, p, &facts);
	ids = zt_profile_sorted(p, &nids);
	if (asjson) {
		json(p, ids, nids, &facts, by);
	} else {
		header(&facts, zt_profile_samples(p));
		table(p, ids, nids, rows, by);
	}
	zt_fshut(stdout, "<stdout>");
	free(ids);
	zt_profile_free(p);
	return ZT_EXIT_OK;
}
