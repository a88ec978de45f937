/*
 * test-finish.c — collect/finish.c: a dump whose process ended without the
 * collector's end, finished by zt-collect from the whole lines that reached
 * its files (formats/raw.md, "Finished by zt-collect"), and what cannot be
 * finished, removed.
 */
#include "unit.h"
#include "finish.h"
#include "util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file at path, whole, into buf; its length, or -1. */
static long slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

UNIT_TEST(finish_keeps_whole_lines_and_adds_the_summary)
{
	static const char want[] =
		"zt-prof 4\npid 31\nhz 997\nsamples\n"
		"31 1 @10 401136 4011a2\n32 2 @20 401136\n"
		"maps @5\n00400000-00401000 r-xp 00000000 08:01 42 /x\nbuildids\n"
		"summary\nfinished zt-collect\nsamples 3\n"
		"cpu-ns 1250500000\ncpu-user-start-ns 0\ncpu-sys-start-ns 0\n"
		"cpu-user-ns 1000500000\ncpu-sys-ns 250000000\nend\n";
	char out[256], side[300], text[2048];
	struct rusage ru = { .ru_utime = { 1, 500 }, .ru_stime = { 0, 250000 } };
	struct zt_finish u = { .ru = &ru };

	/* Two threads' samples, the last line cut short by the kill. */
	CHECK(unit_make("finish-zt.raw.tmp.31",
			"zt-prof 4\npid 31\nhz 997\nsamples\n"
			"31 1 @10 401136 4011a2\n32 2 @20 401136\n31 1 @30 4011", "true") == 0);
	CHECK(unit_make("finish-zt.raw.tmp.31.maps", "maps @5\n00400000-00401000 r-xp "
			"00000000 08:01 42 /x\nbuildids\n4011", "true") == 0);
	snprintf(out, sizeof out, "%s/finish-zt.raw", unit_dir());
	CHECK(zt_finish_dump(out, 31, &u) == 0);
	CHECK_EQ_U(u.samples, 3);
	CHECK_EQ_U(u.threads, 2);
	CHECK(slurp(out, text, sizeof text) > 0);
	/* The cut lines are left out; the side file's whole lines follow. */
	if (strcmp(text, want) != 0)
		fprintf(stderr, "  got:\n%s", text);
	CHECK(strcmp(text, want) == 0);
	snprintf(side, sizeof side, "%s.tmp.31.maps", out);
	CHECK(access(side, F_OK) != 0);
	snprintf(side, sizeof side, "%s.tmp.31", out);
	CHECK(access(side, F_OK) != 0);

	/* Compressed when asked: gzip's magic bytes. */
	CHECK(unit_make("finish-zt.raw.tmp.32", "zt-prof 4\npid 32\nsamples\n32 1 @1 4011\n",
			"true") == 0);
	u = (struct zt_finish){ .gzip = 1 };
	CHECK(zt_finish_dump(out, 32, &u) == 0);
	CHECK(slurp(out, text, sizeof text) > 2 && (unsigned char)text[0] == 0x1f &&
	      (unsigned char)text[1] == 0x8b);

	/* No such file: 1, and nothing made. */
	u = (struct zt_finish){ .gzip = 0 };
	CHECK(zt_finish_dump(out, 99, &u) == 1);
}

static void finish_headless(void *arg)
{
	*(int *)arg = zt_finish_dump((const char *)arg + sizeof(int), 41,
				     &(struct zt_finish){ .gzip = 0 });
}

UNIT_TEST(finish_refuses_a_dump_without_its_header_and_removes_it)
{
	struct { int rc; char out[256]; } a = { 0, "" };
	char err[600], tmp[300];
	const char *prog = zt_prog;

	CHECK(unit_make("finish-h.raw.tmp.41", "zt-prof 4\npid 4", "true") == 0);
	snprintf(a.out, sizeof a.out, "%s/finish-h.raw", unit_dir());
	zt_prog = "zt-collect";
	unit_stderr(finish_headless, &a, err, sizeof err);
	zt_prog = prog;
	CHECK(a.rc == -1);
	CHECK(strstr(err, "zt-collect: cannot finish the dump '") == err);
	CHECK(strstr(err, "finish-h.raw.tmp.41' of pid 41: it ended before the dump's header "
		     "was whole; removed\n") != NULL);
	snprintf(tmp, sizeof tmp, "%s.tmp.41", a.out);
	CHECK(access(tmp, F_OK) != 0);
}

UNIT_TEST(finish_remove_spares_a_dump_that_could_not_be_renamed)
{
	char out[256], tmp[300];

	snprintf(out, sizeof out, "%s/finish-r.raw", unit_dir());
	snprintf(tmp, sizeof tmp, "%s.tmp.51", out);
	CHECK(unit_make("finish-r.raw.tmp.51", "zt-prof 4\n", "true") == 0);
	zt_finish_remove(out, 51, "51 started 0 0 x\n51 rename-failed 13 4\n", 0);
	CHECK(access(tmp, F_OK) == 0);
	zt_finish_remove(out, 51, "51 started 0 0 x\n", 0);
	CHECK(access(tmp, F_OK) != 0);
}

/* A .bufs file of slot_size bytes a slot, its one slot holding lines (spill.h's layout). */
static void make_bufs(const char *path, const char *lines)
{
	unsigned char slot[4096] = { 0 };
	uint64_t head[8] = { 0x6c6c697073747aull, sizeof slot, strlen(lines), 0, 0, 0, 0, 0 };
	FILE *f = fopen(path, "w");

	memcpy(slot, head, sizeof head);
	memcpy(slot + sizeof head, lines, strlen(lines));
	CHECK(f && fwrite(slot, 1, sizeof slot, f) == sizeof slot);
	fclose(f);
}

UNIT_TEST(finish_takes_the_buffers_left_only_from_the_dumps_owner)
{
	char out[256], bufs[300], text[2048];
	struct zt_finish u = { .gzip = 0 };

	snprintf(out, sizeof out, "%s/finish-b.raw", unit_dir());
	snprintf(bufs, sizeof bufs, "%s.tmp.61.bufs", out);
	CHECK(unit_make("finish-b.raw.tmp.61", "zt-prof 4\npid 61\nsamples\n61 1 @1 401136\n",
			"true") == 0);
	make_bufs(bufs, "61 2 @2 401136\n61 1 @3 $a64 ^100 401136\n");
	CHECK(zt_finish_dump(out, 61, &u) == 0);
	/* Its sample lines after the file's; the allocation line is not a CPU sample. */
	CHECK(slurp(out, text, sizeof text) > 0);
	CHECK(strstr(text, "61 1 @1 401136\n61 2 @2 401136\n61 1 @3 $a64 ^100 401136\nsummary\n"));
	CHECK(strstr(text, "\nsamples 3\nfinished-buffers 1\nfinished-buffers-unknown 0\n"));
	CHECK(u.buffers_known && u.buffers == 1 && u.buffers_unknown == 0);
	CHECK(access(bufs, F_OK) != 0);

	/* Another user's file at that name (the collector could not make its own): not taken. */
	if (geteuid() != 0)
		return;
	CHECK(unit_make("finish-b.raw.tmp.62", "zt-prof 4\npid 62\nsamples\n62 1 @1 401136\n",
			"true") == 0);
	snprintf(bufs, sizeof bufs, "%s.tmp.62.bufs", out);
	make_bufs(bufs, "62 500 @2 401136\n");
	CHECK(chown(bufs, 65534, 65534) == 0);
	u = (struct zt_finish){ .gzip = 0 };
	CHECK(zt_finish_dump(out, 62, &u) == 0);
	CHECK(slurp(out, text, sizeof text) > 0);
	CHECK(!strstr(text, "62 500"));
	CHECK(!strstr(text, "finished-buffers"));
	CHECK(!u.buffers_known && u.samples == 1);
	CHECK(access(bufs, F_OK) != 0);
}
