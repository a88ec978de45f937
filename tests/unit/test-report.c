/*
 * test-report.c — collect/report.c: zt-collect's closing lines from a dump
 * whose figures are known, word for word (the bats tests read the same
 * lines from real runs), and the notes on dumps it could not read.
 */
#include "unit.h"
#include "report.h"
#include "util.h"

#include <stdlib.h>

/* One second of perf-task-clock samples: 0.99 s user, 0.01 s system. */
static const char dump[] =
	"zt-prof 4\n"
	"pid 4242\n"
	"exe /nonexistent/spin\n"
	"hz 997\n"
	"timer perf-task-clock\n"
	"unwind auto\n"
	"samples\n"
	"4242 1000 401136 4011a2\n"
	"summary\n"
	"samples 1000\n"
	"lost 0\n"
	"truncated 0\n"
	"partial 10\n"
	"cpu-ns 1000000000\n"
	"sampled-user-ns 990000000\n"
	"sampled-sys-ns 10000000\n"
	"cpu-user-start-ns 0\n"
	"cpu-sys-start-ns 0\n"
	"cpu-user-ns 990000000\n"
	"cpu-sys-ns 10000000\n"
	"end\n";

static const char *statically(const char *path)
{
	(void)path;
	return "it is statically linked: LD_PRELOAD cannot reach it";
}

struct call {
	struct zt_report r;
	int rc;
};

static void call_program(void *arg)
{
	struct call *c = arg;

	c->rc = zt_report_program(&c->r, "spin", "/nonexistent/spin");
}

static void call_tree(void *arg)
{
	struct call *c = arg;
	struct timespec start = { 0, 0 };

	zt_report_tree(&c->r, &start);
}

/* What fn printed on stderr, into buf, with the program named zt-collect. */
static void capture(void (*fn)(void *), struct call *c, char *buf, size_t cap)
{
	const char *prog = zt_prog;

	zt_prog = "zt-collect";
	unit_stderr(fn, c, buf, cap);
	zt_prog = prog;
}

static struct call run(const char *out, const char *status)
{
	static struct rusage ru = { .ru_utime = { 1, 0 }, .ru_stime = { 0, 20000 } };

	return (struct call){ { out, NULL, 4242, &ru, 1.5, status, statically }, 0 };
}

UNIT_TEST(report_program_line_of_a_perf_dump)
{
	char out[256], err[600];
	struct call c;

	CHECK(unit_make("report-zt.raw", dump, "true") == 0);
	snprintf(out, sizeof out, "%s/report-zt.raw", unit_dir());
	c = run(out, "4242 started 0 0 spin\n4242 ok 0 1000\n");
	capture(call_program, &c, err, sizeof err);
	CHECK(c.rc == 0);
	CHECK(strncmp(err, "zt-collect: 1000 samples in 0.990 user CPU-s and 1.500 s wall-clock: "
		      "1010.1 Hz of 997 requested, timer perf-task-clock, 0 lost; system 0.010 s "
		      "(1.0% of CPU time) not sampled, wrote '", 152) == 0);
	/* Then its notes: the partial stacks. */
	CHECK(strstr(err, "report-zt.raw'; rusage: user 1.000 s, system 0.020 s\nzt-collect: "
		     "note: 10 of 1000 stacks (1.0%) could not be unwound to the thread's entry "
		     "(unwind auto); they show [truncated] at the root\n") != NULL);
	CHECK(strchr(strchr(err, '\n') + 1, '\n') == err + strlen(err) - 1);

	/* Another run's dump at the same name is never this run's. */
	c.r.child = 4243;
	capture(call_program, &c, err, sizeof err);
	CHECK(c.rc == -1);
	CHECK(strstr(err, "holds another run's dump (pid 4242), not this run's") != NULL);
}

UNIT_TEST(report_program_without_a_dump_says_why)
{
	char err[300];
	struct call c = run("/nonexistent/zt.raw", "");

	capture(call_program, &c, err, sizeof err);
	CHECK(c.rc == -1);
	CHECK_STR(err, "zt-collect: 'spin' left no dump at '/nonexistent/zt.raw': it is "
		  "statically linked: LD_PRELOAD cannot reach it\n");

	/* The status pipe's reason comes first. */
	c = run("/nonexistent/zt.raw", "4242 open-failed 13 0\n");
	capture(call_program, &c, err, sizeof err);
	CHECK(c.rc == -1);
	CHECK_STR(err, "zt-collect: cannot create '/nonexistent/zt.raw.tmp.4242': Permission "
		  "denied: the program ran unsampled\n");
}

UNIT_TEST(report_tree_totals_and_leaves_over)
{
	char out[256], err[600];
	struct call c;
	const char *tail;

	CHECK(unit_make("report-tree.raw", dump, "true") == 0);
	snprintf(out, sizeof out, "%s/report-tree.raw", unit_dir());
	c = run(out, "4242 ok 0 1000\n");
	capture(call_tree, &c, err, sizeof err);
	CHECK(strncmp(err, "zt-collect: with -f, 1 dump: 1000 samples in 0.990 user CPU-s and "
		      "1.500 s wall-clock: 1010.1 Hz, system 0.010 s not sampled; of the tree's "
		      "1.020 CPU-s (rusage), 0.020 (2.0%) unaccounted, 1.0% of stacks partial; "
		      "wrote '", 198) == 0);
	tail = strstr(err, "report-tree.raw' (spin, 1000 samples)\n");
	CHECK(tail && tail[strlen(tail) - 1] == '\n' && strchr(err, '\n') == err + strlen(err) - 1);
}

UNIT_TEST(report_finished_note)
{
	char note[400];

	struct zt_finish u = { .samples = 12, .threads = 1 };

	zt_report_finished("'x' (pid 9, exit status 0)", "/d/zt.raw", &u, note, sizeof note);
	CHECK(strstr(note, ": note: 'x' (pid 9, exit status 0) ended without zt's exit path; "
		     "zt-collect finished its dump '/d/zt.raw' from what reached the file: 12 "
		     "samples of 1 thread; not counted: the samples of the last second or less of "
		     "each thread (at most one buffer a thread), the threads' names") != NULL);
	u = (struct zt_finish){ .samples = 3, .threads = 2, .buffers_known = 1, .buffers = 2 };
	zt_report_finished("w", "f", &u, note, sizeof note);
	CHECK(strstr(note, "from what reached the file and the buffers it left: 3 samples of 2 "
		     "threads; not counted: the threads' names") != NULL);
	u.buffers_unknown = 1;
	zt_report_finished("w", "f", &u, note, sizeof note);
	CHECK(strstr(note, "; not counted: the samples of 1 buffer being written as it ended, "
		     "the threads' names") != NULL);
}
