/*
 * test-usage.c — one option table gives getopt_long's tables and --help:
 * every option parses and is documented, long-only codes are not short
 * options, and row counts are whole numbers.
 */
#include "unit.h"
#include "usage.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>

enum { OPT_LONG_ONLY = 256 };

static const struct zt_opt opts[] = {
	{ 'n', "nodes", required_argument, "N", "show N rows" },
	{ 'q', "quiet", no_argument, NULL, "say less" },
	{ OPT_LONG_ONLY, "long-only", required_argument, "REGEX",
	  "a long option whose help\nruns over two lines" },
	{ 'h', "help", no_argument, NULL, "this text" },
	{ 0 },
};

static const struct zt_usage usage = { "zt-x [-q] [-n N] [file ...]", "About x.", opts, "Notes." };

/*
 * Parse args (NULL-terminated) and write each option as "c=arg " into out,
 * then "| " and the operands left, in the order getopt left them.
 */
static void parse(const char *const *args, int ordered, char *out, size_t n)
{
	char *argv[16];
	int argc = 0, c;
	size_t o = 0;

	while (args[argc] && argc < 15) {
		argv[argc] = zt_strdup(args[argc]);
		argc++;
	}
	argv[argc] = NULL;
	optind = 0;	/* glibc: start afresh */
	opterr = 0;
	out[0] = '\0';
	while ((c = ordered ? zt_usage_getopt_ordered(argc, argv, &usage)
			    : zt_usage_getopt(argc, argv, &usage)) != -1)
		o += (size_t)snprintf(out + o, n - o, "%d=%s ", c, optarg ? optarg : "");
	o += (size_t)snprintf(out + o, n - o, "|");
	for (int i = optind; i < argc; i++)
		o += (size_t)snprintf(out + o, n - o, " %s", argv[i]);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
}

UNIT_TEST(usage_getopt_parses_short_long_and_long_only_options)
{
	const char *argv[] = { "zt-x", "-n", "5", "--quiet", "--long-only=a.b", "f", NULL };
	char out[256];

	parse(argv, 0, out, sizeof out);
	CHECK_STR(out, "110=5 113= 256=a.b | f");
}

UNIT_TEST(usage_getopt_permutes_unless_ordered)
{
	const char *a1[] = { "zt-x", "f", "-n", "5", NULL };
	const char *a2[] = { "zt-x", "-q", "prog", "-n", "5", NULL };
	char out[256];

	parse(a1, 0, out, sizeof out);
	CHECK_STR(out, "110=5 | f");
	parse(a2, 1, out, sizeof out);
	CHECK_STR(out, "113= | prog -n 5");
}

UNIT_TEST(usage_long_only_code_is_not_a_short_option)
{
	const char *argv[] = { "zt-x", "-\x01", NULL };
	char out[256];

	parse(argv, 0, out, sizeof out);
	CHECK_STR(out, "63= |");	/* '?' */
}

UNIT_TEST(usage_help_documents_every_option)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	zt_usage_write(&usage, f, 1);
	fclose(f);
	CHECK_STR(buf, "usage: zt-x [-q] [-n N] [file ...]\n"
		       "\n"
		       "About x.\n"
		       "\n"
		       "  -n, --nodes=N       show N rows\n"
		       "  -q, --quiet         say less\n"
		       "      --long-only=REGEX\n"
		       "                      a long option whose help\n"
		       "                      runs over two lines\n"
		       "  -h, --help          this text\n"
		       "\n"
		       "Notes.\n");
	free(buf);
	f = open_memstream(&buf, &len);
	zt_usage_write(&usage, f, 0);
	fclose(f);
	CHECK_STR(buf, "usage: zt-x [-q] [-n N] [file ...]\n");
	free(buf);
}

UNIT_TEST(usage_rows_are_whole_numbers)
{
	char err[256];
	long rows = -1;

	CHECK(zt_usage_rows("-n", "0", &rows, err, sizeof err) == 0 && rows == 0);
	CHECK(zt_usage_rows("-n", "25", &rows, err, sizeof err) == 0 && rows == 25);
	CHECK(zt_usage_rows("-n", "many", &rows, err, sizeof err) == -1);
	CHECK_STR(err, "-n wants a number of rows, not 'many'");
	CHECK(zt_usage_rows("--top", "-1", &rows, err, sizeof err) == -1);
	CHECK(zt_usage_rows("--top", "", &rows, err, sizeof err) == -1);
	CHECK(zt_usage_rows("--top", "+3", &rows, err, sizeof err) == -1);
	CHECK(zt_usage_rows("--top", "99999999999999999999", &rows, err, sizeof err) == -1);
	CHECK(rows == 25);
}
