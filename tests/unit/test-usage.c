/*
 * test-usage.c — one option table gives getopt_long's tables and --help:
 * every option parses and is documented, long-only codes are not short
 * options, and row counts are whole numbers; the tools' shared endings of
 * option parsing (--help, --version, bad usage) and their inputs.
 */
#include "unit.h"
#include "usage.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

UNIT_TEST(usage_inputs_are_the_operands_or_stdin_read_once)
{
	char a[] = "a", dash[] = "-", b[] = "b";
	char *ops[] = { a, dash, b, dash };
	char **in;
	int n = 3;

	CHECK(zt_usage_stdin_once(ops, 3) == NULL);
	CHECK_STR(zt_usage_stdin_once(ops, 4), "stdin can be read only once");
	CHECK(zt_usage_stdin_once(ops, 0) == NULL);
	in = zt_usage_inputs(ops, &n);
	CHECK(in == ops && n == 3);
	n = 0;
	in = zt_usage_inputs(ops, &n);
	CHECK(n == 1 && strcmp(in[0], "-") == 0);
}

/* What zt_usage_end and zt_usage_error write to stderr, and their status. */
UNIT_TEST(usage_end_takes_help_version_and_bad_usage)
{
	static const struct zt_opt opts[] = { ZT_USAGE_ROWS };
	static const struct zt_usage u = { "zt-x [file]", NULL, opts, NULL };
	char path[] = "/tmp/zt-unit-usage-XXXXXX", text[512];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO), status = -1;
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	CHECK(zt_usage_end(&u, '?', "", &status) == -1 && status == ZT_EXIT_USAGE);
	CHECK(zt_usage_end(&u, '?', "'d': not a directory", &status) == -1);
	CHECK(zt_usage_error(&u, "--x wants %d", 3) == -1);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, text, sizeof text - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	CHECK(strstr(text, "usage: zt-x [file]\n") == text);
	CHECK(strstr(text, ": 'd': not a directory\nusage: zt-x [file]\n") != NULL);
	CHECK(strstr(text, ": --x wants 3\nusage: zt-x [file]\n") != NULL);
	CHECK(opts[0].val == 'h' && opts[1].val == 'V' && opts[2].name == NULL);
}
