/*
 * test-status.c — collect/status.c: zt-collect's reading of the status
 * pipe's "PID WHAT ERRNO COUNT [NAME]" lines, and the messages of the
 * failures that cost a dump.
 */
#include "unit.h"
#include "status.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

static const char tree[] =
	"100 started 0 0 prog\n"
	"200 started 0 0 wor ker\n"
	"300 started 0 0 sh\n"
	"200 exit-cpu-ns 0 1500\n"
	"200 ok 0 12\n"
	"100 exit-cpu-ns 0 7\n"
	"300 started 0 0 sh\n"
	"200 exit-cpu-ns 0 2500\n"
	"1000 rename-failed 13 5\n";

UNIT_TEST(status_last_word_and_line_of_a_process)
{
	char what[65];

	CHECK_STR(zt_status_last(tree, 200, what, sizeof what), "exit-cpu-ns");
	CHECK_STR(zt_status_last(tree, 300, what, sizeof what), "started");
	CHECK(zt_status_last(tree, 400, what, sizeof what) == NULL);
	CHECK(zt_status_last("", 100, what, sizeof what) == NULL);
	CHECK_STR(zt_status_last_line(tree, 300), "started 0 0 sh\n200 exit-cpu-ns 0 2500\n"
		  "1000 rename-failed 13 5\n");
	/* "100 " inside "1000 " is not process 100's line. */
	CHECK_STR(zt_status_last_line(tree, 100), "exit-cpu-ns 0 7\n300 started 0 0 sh\n"
		  "200 exit-cpu-ns 0 2500\n1000 rename-failed 13 5\n");
	CHECK(zt_status_last_line(tree, 10) == NULL);
}

UNIT_TEST(status_said_matches_whole_words_at_a_line_start)
{
	CHECK(zt_status_said(tree, 1000, "rename-failed"));
	CHECK(!zt_status_said(tree, 100, "rename-failed"));
	CHECK(zt_status_said(tree, 100, "started"));	/* the first line */
	CHECK(zt_status_said(tree, 200, "ok"));
	CHECK(!zt_status_said(tree, 200, "o"));
}

UNIT_TEST(status_started_processes_once_each_in_order)
{
	pid_t *pids;
	size_t n = zt_status_started(tree, 100, &pids);

	CHECK_EQ_U(n, 2);
	if (n == 2) {
		CHECK_EQ_U(pids[0], 200);
		CHECK_EQ_U(pids[1], 300);
	}
	free(pids);
	CHECK_EQ_U(zt_status_started("", 1, &pids), 0);
	free(pids);
}

UNIT_TEST(status_started_name_is_one_plain_word)
{
	char name[24];

	CHECK_STR(zt_status_started_name("started 0 0 sh\n", name, sizeof name), "sh");
	CHECK_STR(zt_status_started_name("started 0 0 wor ker\n", name, sizeof name), "wor");
	CHECK_STR(zt_status_started_name("started 0 0 a\x01\x7f" "b", name, sizeof name), "a??b");
	CHECK_STR(zt_status_started_name("started 0 0\n", name, sizeof name), "?");
	CHECK_STR(zt_status_started_name("ok 0 3\n", name, sizeof name), "?");
}

UNIT_TEST(status_exit_cpu_keeps_the_last_of_each_process)
{
	struct zt_exit_cpu *v;
	size_t n = zt_status_exit_cpu(tree, &v);

	CHECK_EQ_U(n, 2);
	if (n == 2) {
		CHECK(v[0].pid == 200 && v[0].ns == 2500);
		CHECK(v[1].pid == 100 && v[1].ns == 7);
	}
	free(v);
}

struct failure_call {
	const char *status, *out;
	pid_t pid;
	int rc;
};

static void call_failure(void *arg)
{
	struct failure_call *c = arg;

	c->rc = zt_status_failure(c->status, c->pid, c->out);
}

static void call_descendants(void *arg)
{
	struct failure_call *c = arg;

	c->rc = zt_status_descendants_failed(c->status, c->pid, c->out);
}

UNIT_TEST(status_failure_says_why_no_dump_was_written)
{
	const char *prog = zt_prog;
	struct failure_call c = { "7 started 0 0 x\n7 write-failed 28 17\n", "/d/zt.raw", 7, 0 };
	char err[300];

	zt_prog = "zt-collect";
	unit_stderr(call_failure, &c, err, sizeof err);
	CHECK(c.rc == 1);
	CHECK_STR(err, "zt-collect: cannot write the dump '/d/zt.raw.tmp.7': No space left on "
		  "device: no dump was written, 17 samples lost\n");

	c.status = "7 started 0 0 x\n7 seccomp-refuses-timer_create 0 0\n";
	unit_stderr(call_failure, &c, err, sizeof err);
	CHECK(c.rc == 1);
	CHECK_STR(err, "zt-collect: the program runs under a seccomp filter that would kill zt's "
		  "timer_create system call: it ran unsampled, and no dump was written\n");

	/* A failure that costs no dump is said, and is no failure. */
	c.status = "7 gzip-failed 12 0\n7 ok 0 3\n8 open-failed 2 0\n";
	unit_stderr(call_failure, &c, err, sizeof err);
	CHECK(c.rc == 0);
	CHECK_STR(err, "zt-collect: cannot compress '/d/zt.raw': Cannot allocate memory: the "
		  "dump was kept uncompressed\n");

	/* With -f, each other process once, its dump named FILE.PID. */
	c.status = "7 ok 0 3\n8 open-failed 2 0\n8 open-failed 2 0\n9 ok 0 1\n";
	unit_stderr(call_descendants, &c, err, sizeof err);
	CHECK(c.rc == 1);
	CHECK_STR(err, "zt-collect: cannot create '/d/zt.raw.8.tmp.8': No such file or "
		  "directory: the program ran unsampled\n");
	zt_prog = prog;
}

UNIT_TEST(status_rename_failed_publishes_the_whole_dump)
{
	const char *prog = zt_prog;
	char out[256], want[700], err[700];
	struct failure_call c = { "5 started 0 0 x\n5 rename-failed 13 9\n", out, 5, 0 };

	CHECK(unit_make("status-zt.raw.tmp.5", "zt-prof 4\n", "true") == 0);
	CHECK(unit_make("status-zt.raw.tmp.5.maps", "", "true") == 0);
	snprintf(out, sizeof out, "%s/status-zt.raw", unit_dir());
	zt_prog = "zt-collect";
	unit_stderr(call_failure, &c, err, sizeof err);
	zt_prog = prog;
	CHECK(c.rc == 0);
	snprintf(want, sizeof want, "zt-collect: note: the program could not rename its dump "
		 "'%s.tmp.5' to '%s' (Permission denied: it changed its credentials?); "
		 "zt-collect published it\n", out, out);
	CHECK(strcmp(err, want) == 0);
	CHECK(access(out, F_OK) == 0);
	snprintf(want, sizeof want, "%s.tmp.5.maps", out);
	CHECK(access(want, F_OK) != 0);
}
