/*
 * test-factlines.c — the `# zt` lines: what zt_factlines_write writes from a
 * dump, zt_factlines_line reads back; and values from the dump cannot forge a
 * line.
 */
#include "unit.h"
#include "raw.h"
#include "factlines.h"

#include <stdlib.h>

/* Write d's facts to memory; the caller frees the text. */
static char *written(const struct zt_raw *d, const char *const *warn, size_t nwarn)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	zt_factlines_write(f, d, warn, nwarn);
	fclose(f);
	return text;
}

/* Read every line of text as zt-stat does; 0, or -1 on a refused line. */
static int read_back(char *text, struct zt_facts *f)
{
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			return -1;	/* every fact is a whole line */
		if (zt_factlines_line(f, line, (size_t)(nl - line)))
			return -1;
	}
	return 0;
}

UNIT_TEST(facts_written_lines_parse_back)
{
	struct zt_tname threads[] = { { 42, (char *)"main" } };
	struct zt_raw d = {
		.version = 3, .hz = 997, .timer = (char *)"posix-cpu",
		.rate_cap = (char *)"kernel-tick", .nsamples = 8012, .lost = 3,
		.lost_detail = (char *)"write-error=3", .have_cpu = 1, .cpu_ns = 8034000000u,
		.cpu_user_ns = 7000000000u, .cpu_sys_ns = 1034000000u,
		.have_pid = 1, .pid = 42, .threads = threads, .nthreads = 1,
	};
	struct zt_facts f = { 0 };
	char *text = written(&d, NULL, 0);

	CHECK(strncmp(text, "# zt version 3\n# zt hz 997\n", 27) == 0);
	CHECK(read_back(text, &f) == 0);
	CHECK_EQ_U(f.hz, 997);
	CHECK_STR(f.timer, "posix-cpu");
	CHECK_STR(f.rate_cap, "kernel-tick");
	CHECK(f.have_samples);
	CHECK_EQ_U(f.samples, 8012);
	CHECK(f.have_lost);
	CHECK_EQ_U(f.lost, 3);
	CHECK_STR(f.lost_reason, "write-error=3");
	CHECK(f.have_cpu_ns);
	CHECK_EQ_U(f.cpu_ns, 8034000000u);
	CHECK(f.have_cpu_split);
	CHECK_EQ_U(f.cpu_user_ns, 7000000000u);
	CHECK_EQ_U(f.cpu_sys_ns, 1034000000u);
	free(text);
}

UNIT_TEST(facts_a_dump_value_cannot_forge_a_line)
{
	const char *warn[] = { "'/x\n# zt hz 1': missing" };
	struct zt_raw d = {
		.version = 2, .hz = 499, .timer = (char *)"perf\n# zt lost 99",
		.exe = (char *)"/a\rb",
	};
	struct zt_facts f = { 0 };
	char *text = written(&d, warn, 1);

	CHECK(strstr(text, "# zt timer perf\\012# zt lost 99\n") != NULL);
	CHECK(strstr(text, "# zt exe /a\\015b\n") != NULL);
	CHECK(strstr(text, "# zt warning '/x\\012# zt hz 1': missing\n") != NULL);
	CHECK(read_back(text, &f) == 0);
	CHECK_EQ_U(f.hz, 499);
	CHECK_EQ_U(f.lost, 0);
	/* A version 1 dump names no timer. */
	free(text);
	d.timer = NULL;
	text = written(&d, NULL, 0);
	CHECK(strstr(text, "# zt timer unknown\n") != NULL);
	free(text);
}

UNIT_TEST(facts_partial_and_cut_stacks_add_up_over_inputs)
{
	struct zt_raw d = {
		.version = 4, .hz = 997, .max_depth = 512, .truncated = 9, .partial = 10,
		.have_partial = 1,
	};
	struct zt_facts f = { 0 };
	char *text = written(&d, NULL, 0);

	CHECK(strstr(text, "# zt max-depth 512\n# zt truncated 9\n") != NULL);
	CHECK(strstr(text, "# zt partial 10\n") != NULL);
	CHECK(read_back(text, &f) == 0);
	CHECK(read_back(text, &f) == 0);	/* a second input */
	CHECK(f.have_partial);
	CHECK_EQ_U(f.partial, 20);
	CHECK_EQ_U(f.truncated, 18);
	CHECK_EQ_U(f.max_depth, 512);
	CHECK(zt_factlines_line(&f, "# zt truncated x", 16) != NULL);
	free(text);
}
