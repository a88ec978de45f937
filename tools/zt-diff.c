/*
 * zt-diff — compare two folded profiles.
 *
 *   zt-diff before.folded after.folded | flamegraph.pl > diff.svg
 *   zt-diff --report before.folded after.folded
 *
 * By default it writes difffolded.pl's format, `stack before after`, sorted,
 * merge-joining the two inputs (lib/foldsrc.c). --report says which
 * functions' shares changed by more than sampling noise: an exact
 * conditional binomial test per function (self and total), with
 * Benjamini–Hochberg control of false discoveries (lib/stats.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "foldsrc.h"
#include "input.h"
#include "json.h"
#include "profile.h"
#include "stats.h"
#include "util.h"

/*
 * What a run holds, in file scope so that it stays reachable when an error
 * exits the program (LeakSanitizer would call locals leaked).
 */
static struct zt_foldsrc *src[2];
static struct zt_profile *prof[2];
static struct zt_input *in;

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: zt-diff [-n] [-s] before after\n"
		   "       zt-diff --report [--json] [-s] [-q level] [-t rows] before after\n");
	exit(status);
}

static int cmpstack(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : (na > nb) - (na < nb);
}

/* difffolded.pl -n: floor(count * total2 / total1), computed exactly. */
static uint64_t scale(uint64_t c, uint64_t t1, uint64_t t2)
{
	unsigned __int128 v;

	if (t1 == 0 || t1 == t2)
		return c;
	v = (unsigned __int128)c * t2 / t1;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static void difffolded(const char *a, const char *b, int normalize, int strip)
{
	uint64_t t1, t2, c1, c2;
	struct zt_foldsrc *s1 = src[0] = zt_foldsrc_open(a, strip, &t1);
	struct zt_foldsrc *s2 = src[1] = zt_foldsrc_open(b, strip, &t2);
	const char *k1, *k2;
	size_t n1, n2;
	int h1 = zt_foldsrc_next(s1, &k1, &n1, &c1);
	int h2 = zt_foldsrc_next(s2, &k2, &n2, &c2);

	while (h1 || h2) {
		int c = !h1 ? 1 : !h2 ? -1 : cmpstack(k1, n1, k2, n2);

		if (c <= 0)
			fwrite(k1, 1, n1, stdout);
		else
			fwrite(k2, 1, n2, stdout);
		printf(" %llu %llu\n",
		       (unsigned long long)(c <= 0 ? (normalize ? scale(c1, t1, t2) : c1) : 0),
		       (unsigned long long)(c >= 0 ? c2 : 0));
		if (c <= 0)
			h1 = zt_foldsrc_next(s1, &k1, &n1, &c1);
		if (c >= 0)
			h2 = zt_foldsrc_next(s2, &k2, &n2, &c2);
	}
	zt_foldsrc_close(s1);
	zt_foldsrc_close(s2);
}

/* "zt-diff: 'file': line 12: problem"; "line 12: ..." on stdin. */
static void die_at(struct zt_input *in, unsigned long line, const char *msg)
{
	const char *name = zt_input_name(in);

	if (line == 0)
		zt_die(ZT_EXIT_DATA, "%s: %s", name, msg);
	if (strcmp(name, "<stdin>") == 0)
		zt_die(ZT_EXIT_DATA, "line %lu: %s", line, msg);
	zt_die(ZT_EXIT_DATA, "%s: line %lu: %s", name, line, msg);
}

/* Read a whole folded file into a profile of functions. */
static struct zt_profile *load_profile(const char *path, int strip, int side)
{
	struct zt_profile *p = prof[side] = zt_profile_new();
	struct zt_folded_item it;
	uint64_t stacks = 0;
	char *buf = NULL;
	size_t cap = 0;

	in = zt_input_open(path);
	for (;;) {
		zt_folded_next(in, &it, &stacks);
		if (it.kind == ZT_FOLDED_ERROR) {
			free(buf);
			die_at(in, it.lineno, it.error);
		}
		if (it.kind == ZT_FOLDED_EOF)
			break;
		if (it.kind != ZT_FOLDED_STACK)
			continue;
		if (zt_profile_samples(p) > UINT64_MAX - it.count) {
			free(buf);
			die_at(in, it.lineno, "total count does not fit in 64 bits");
		}
		if (strip) {
			zt_grow(&buf, &cap, it.stacklen * 2 + 8, 1);
			zt_profile_add_folded(p, buf, zt_strip_hex(it.stack, it.stacklen, buf), it.count);
		} else {
			zt_profile_add_folded(p, it.stack, it.stacklen, it.count);
		}
	}
	free(buf);
	zt_input_close(in);
	in = NULL;
	return p;
}

struct row {
	const char *name;
	size_t namelen;
	uint64_t self[2], total[2];
	double pself, ptotal;
	int sig;
	double change;		/* the larger absolute change of the two shares */
};

static int byrow(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double ax = fabs(x->change), ay = fabs(y->change);

	if (x->sig != y->sig)
		return y->sig - x->sig;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return cmpstack(x->name, x->namelen, y->name, y->namelen);
}

static double share(uint64_t k, uint64_t n)
{
	return n ? (double)k / (double)n : 0;
}

static void print_ci(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	double lo, hi;
	char b[64];

	zt_diff_ci(k1, n1, k2, n2, ZT_Z95, &lo, &hi);
	snprintf(b, sizeof b, "[%+.2f%%, %+.2f%%]", 100 * lo, 100 * hi);
	printf(" %-20s", b);
}

static void print_json(const struct row *r, size_t nr, uint64_t n1, uint64_t n2,
		       double q)
{
	printf("{\"before_samples\": %llu, \"after_samples\": %llu, \"fdr_q\": ",
	       (unsigned long long)n1, (unsigned long long)n2);
	zt_json_number(stdout, q);
	printf(", \"tests\": %zu, \"functions\": [", 2 * nr);
	for (size_t i = 0; i < nr; i++) {
		double lo, hi, slo, shi;

		zt_diff_ci(r[i].total[0], n1, r[i].total[1], n2, ZT_Z95, &lo, &hi);
		zt_diff_ci(r[i].self[0], n1, r[i].self[1], n2, ZT_Z95, &slo, &shi);
		printf("%s\n  {\"name\": ", i ? "," : "");
		zt_json_string(stdout, r[i].name, r[i].namelen);
		printf(", \"self_before\": %llu, \"self_after\": %llu, "
		       "\"total_before\": %llu, \"total_after\": %llu",
		       (unsigned long long)r[i].self[0], (unsigned long long)r[i].self[1],
		       (unsigned long long)r[i].total[0], (unsigned long long)r[i].total[1]);
		printf(", \"self_share_before\": ");
		zt_json_number(stdout, share(r[i].self[0], n1));
		printf(", \"self_share_after\": ");
		zt_json_number(stdout, share(r[i].self[1], n2));
		printf(", \"self_change_ci95\": [");
		zt_json_number(stdout, slo);
		printf(", ");
		zt_json_number(stdout, shi);
		printf("], \"self_p\": ");
		zt_json_number(stdout, r[i].pself);
		printf(", \"total_share_before\": ");
		zt_json_number(stdout, share(r[i].total[0], n1));
		printf(", \"total_share_after\": ");
		zt_json_number(stdout, share(r[i].total[1], n2));
		printf(", \"total_change_ci95\": [");
		zt_json_number(stdout, lo);
		printf(", ");
		zt_json_number(stdout, hi);
		printf("], \"total_p\": ");
		zt_json_number(stdout, r[i].ptotal);
		printf(", \"significant\": %s}", r[i].sig ? "true" : "false");
	}
	printf("%s]}\n", nr ? "\n" : "");
}

static void report(const char *a, const char *b, int strip, double q,
		   long rows, int json)
{
	struct zt_profile *p[2] = { load_profile(a, strip, 0), load_profile(b, strip, 1) };
	uint64_t n1 = zt_profile_samples(p[0]), n2 = zt_profile_samples(p[1]);
	uint32_t k0 = zt_profile_nkeys(p[0]), k1 = zt_profile_nkeys(p[1]);
	struct row *r = zt_calloc((size_t)k0 + k1 + 1, sizeof *r);
	double *pv;
	int *rej;
	size_t nr = 0, nsig = 0;

	if (n1 == 0 || n2 == 0)
		zt_die(ZT_EXIT_DATA, "'%s' holds no samples", n1 == 0 ? a : b);
	/* Every function of either profile, once. */
	for (int side = 0; side < 2; side++) {
		for (uint32_t id = 0; id < zt_profile_nkeys(p[side]); id++) {
			size_t n;
			const char *name = zt_profile_name(p[side], id, &n);
			int64_t other = zt_profile_find(p[!side], name, n);

			if (side == 1 && other >= 0)
				continue;
			r[nr].name = name;
			r[nr].namelen = n;
			r[nr].self[side] = zt_profile_self(p[side], id);
			r[nr].total[side] = zt_profile_total(p[side], id);
			if (other >= 0) {
				r[nr].self[!side] = zt_profile_self(p[!side], (uint32_t)other);
				r[nr].total[!side] = zt_profile_total(p[!side], (uint32_t)other);
			}
			nr++;
		}
	}
	pv = zt_calloc(2 * nr + 1, sizeof *pv);
	rej = zt_calloc(2 * nr + 1, sizeof *rej);
	for (size_t i = 0; i < nr; i++) {
		double ds = share(r[i].self[1], n2) - share(r[i].self[0], n1);
		double dt = share(r[i].total[1], n2) - share(r[i].total[0], n1);

		r[i].pself = pv[2 * i] = zt_share_test(r[i].self[0], n1, r[i].self[1], n2);
		r[i].ptotal = pv[2 * i + 1] = zt_share_test(r[i].total[0], n1, r[i].total[1], n2);
		r[i].change = fabs(ds) > fabs(dt) ? ds : dt;
	}
	zt_bh(pv, 2 * nr, q, rej);
	for (size_t i = 0; i < nr; i++) {
		r[i].sig = rej[2 * i] || rej[2 * i + 1];
		nsig += (size_t)r[i].sig;
	}
	qsort(r, nr, sizeof *r, byrow);

	if (json) {
		print_json(r, nr, n1, n2, q);
	} else {
		printf("before: %llu samples, after: %llu samples\n",
		       (unsigned long long)n1, (unsigned long long)n2);
		printf("%zu of %zu functions changed beyond sampling noise "
		       "(exact binomial tests, Benjamini-Hochberg FDR %g over %zu tests)\n\n",
		       nsig, nr, q, 2 * nr);
		printf("%8s %8s %8s %-20s %8s %8s %8s %-20s %-12s %s\n",
		       "self1", "self2", "change", "95% CI", "total1", "total2",
		       "change", "95% CI", "verdict", "function");
		for (size_t i = 0; i < nr && (rows <= 0 || (long)i < rows); i++) {
			const struct row *x = &r[i];
			double s1 = share(x->self[0], n1), s2 = share(x->self[1], n2);
			double t1 = share(x->total[0], n1), t2 = share(x->total[1], n2);

			printf("%7.2f%% %7.2f%% %+7.2f%%", 100 * s1, 100 * s2, 100 * (s2 - s1));
			print_ci(x->self[0], n1, x->self[1], n2);
			printf(" %7.2f%% %7.2f%% %+7.2f%%", 100 * t1, 100 * t2, 100 * (t2 - t1));
			print_ci(x->total[0], n1, x->total[1], n2);
			printf(" %-12s ", x->sig ? "significant" : "within noise");
			fwrite(x->name, 1, x->namelen, stdout);
			putchar('\n');
		}
		if (rows > 0 && nr > (size_t)rows)
			printf("(%zu more functions; --top 0 shows all)\n", nr - (size_t)rows);
	}
	free(pv);
	free(rej);
	free(r);
	zt_profile_free(p[0]);
	zt_profile_free(p[1]);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "normalize", no_argument, NULL, 'n' },
		{ "strip-hex", no_argument, NULL, 's' },
		{ "report", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "fdr", required_argument, NULL, 'q' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int normalize = 0, strip = 0, rep = 0, json = 0, c;
	double q = 0.05;
	long rows = 20;
	char *end;
	static char obuf[1 << 16];

	zt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "hjnq:rst:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'n': normalize = 1; break;
		case 'q':
			q = strtod(optarg, &end);
			if (*end || end == optarg || !(q > 0 && q < 1)) {
				zt_warn("--fdr wants a level between 0 and 1, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			break;
		case 'r': rep = 1; break;
		case 's': strip = 1; break;
		case 't':
			rows = strtol(optarg, &end, 10);
			if (*end || end == optarg || rows < 0) {
				zt_warn("--top wants a count of rows, not '%s'", optarg);
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
	if (argc != 2) {
		zt_warn(argc < 2 ? "two profiles are needed, before and after"
				 : "too many operands");
		usage(stderr, ZT_EXIT_USAGE);
	}
	if (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0) {
		zt_warn("only one of the profiles can be stdin");
		usage(stderr, ZT_EXIT_USAGE);
	}
	if (json && !rep) {
		zt_warn("--json goes with --report");
		usage(stderr, ZT_EXIT_USAGE);
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	if (rep)
		report(argv[0], argv[1], strip, q, rows, json);
	else
		difffolded(argv[0], argv[1], normalize, strip);
	zt_fshut(stdout, "<stdout>");
	return ZT_EXIT_OK;
}
