/*
 * test-raw.c — the raw dump reader: the seed's v1 example, a v2 dump, and
 * malformed dumps reported with their line numbers.
 */
#include "unit.h"
#include "input.h"
#include "raw.h"
#include "rawfmt.h"
#include "util.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* An input holding text, named as the tools name stdin ("line N: ..."). */
static struct zt_input *named_text(const char *text, const char *name)
{
	int fd = memfd_create("raw", 0);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	lseek(fd, 0, SEEK_SET);
	return zt_input_fdopen(fd, name);
}

static struct zt_input *from_text(const char *text)
{
	return named_text(text, "<stdin>");
}

/* Parse text; returns 0 or -1 and leaves the message in err. */
static int parse(const char *text, struct zt_raw *d, char *err, size_t n)
{
	struct zt_input *in = from_text(text);
	int rc;

	memset(d, 0, sizeof *d);
	err[0] = '\0';
	rc = zt_raw_read(in, d, err, n);
	zt_input_close(in);
	return rc;
}

static const char v1[] =
	"zt-prof 1\n"
	"hz 997\n"
	"dropped 3\n"
	"maps\n"
	"00400000-00401000 r--p 00000000 08:01 42   /tmp/spin\n"
	"00401000-00402000 r-xp 00001000 08:01 42   /tmp/spin\n"
	"samples\n"
	"401136 40117b 4011a2\n"
	"401150\n"
	"401136 40117b 4011a2\n";

UNIT_TEST(raw_reads_the_seed_v1_example)
{
	struct zt_raw d;
	char err[256];

	CHECK(parse(v1, &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.version, 1);
	CHECK_EQ_U(d.hz, 997);
	CHECK_EQ_U(d.lost, 3);
	CHECK_EQ_U(d.nmaps, 2);
	CHECK_STR(d.maps[1].path, "/tmp/spin");
	CHECK_EQ_U(d.maps[1].offset, 0x1000);
	CHECK_EQ_U(d.nsamples, 3);
	CHECK_EQ_U(d.nstacks, 2);	/* identical samples merged */
	CHECK_EQ_U(d.stacks[0].count, 2);
	CHECK_EQ_U(d.stacks[0].naddr, 3);
	CHECK_EQ_U(d.addr[d.stacks[0].first + 2], 0x4011a2);
	CHECK(d.exact[d.stacks[0].first] == 1);
	CHECK(d.exact[d.stacks[0].first + 1] == 0);
	CHECK_EQ_U(d.stacks[1].count, 1);
	zt_raw_free(&d);
}

static const char v2[] =
	"zt-prof 2\n"
	"pid 77\n"
	"exe /tmp/spin\n"
	"hz 499\n"
	"timer posix-cpu\n"
	"rate-cap kernel-tick\n"
	"some-future-key whatever\n"
	"samples\n"
	"77 2 401136 40117b\n"
	"78 1 401136 40117b\n"
	"77 1 401136 40117b\n"
	"maps\n"
	"00401000-00402000 r-xp 00001000 08:01 42   /tmp/spin (deleted)\n"
	"buildids\n"
	"401000 A38A785B /tmp/spin\n"
	"threads\n"
	"77 spin\n"
	"78 worker one\n"
	"summary\n"
	"samples 4\n"
	"lost 2 write-error=2\n"
	"cpu-ns 1000\n"
	"end\n";

UNIT_TEST(raw_reads_a_v2_dump)
{
	struct zt_raw d;
	char err[256];

	CHECK(parse(v2, &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.version, 2);
	CHECK(d.complete);
	CHECK_EQ_U(d.pid, 77);
	CHECK_STR(d.exe, "/tmp/spin");
	CHECK_STR(d.timer, "posix-cpu");
	CHECK_STR(d.rate_cap, "kernel-tick");
	CHECK_EQ_U(d.nsamples, 4);
	CHECK_EQ_U(d.nstacks, 2);
	CHECK_EQ_U(d.stacks[0].tid, 77);
	CHECK_EQ_U(d.stacks[0].count, 3);
	CHECK_EQ_U(d.lost, 2);
	CHECK_STR(d.lost_detail, "write-error=2");
	CHECK_EQ_U(d.cpu_ns, 1000);
	CHECK(d.maps[0].deleted);
	CHECK_STR(d.maps[0].path, "/tmp/spin");
	CHECK_STR(d.maps[0].buildid, "a38a785b");
	CHECK_STR(zt_raw_thread_name(&d, 78), "worker one");
	zt_raw_free(&d);
}

static const char v3[] =
	"zt-prof 3\n"
	"pid 7\n"
	"unwind cfi\n"
	"samples\n"
	"7 2 401136 40117b =401000 4011a2 -\n"
	"7 1 401136 40117b =401000 4011a2\n"
	"7 1 401136 40117b =401000 4011a2 -\n"
	"summary\n"
	"partial 3\n"
	"end\n";

UNIT_TEST(raw_reads_a_v3_dump_with_partial_stacks)
{
	struct zt_raw d;
	char err[256];

	CHECK(parse(v3, &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.version, 3);
	CHECK_STR(d.unwind, "cfi");
	CHECK(d.have_partial);
	CHECK_EQ_U(d.partial, 3);
	/* A partial stack is not the same stack as the whole one. */
	CHECK_EQ_U(d.nstacks, 2);
	CHECK(d.stacks[0].partial);
	CHECK_EQ_U(d.stacks[0].count, 3);
	CHECK_EQ_U(d.stacks[0].naddr, 4);
	CHECK(!d.stacks[1].partial);
	CHECK_EQ_U(d.stacks[1].count, 1);
	/* "=hex" after a signal frame is an exact pc. */
	CHECK(d.exact[d.stacks[0].first + 2] == 1);
	CHECK_EQ_U(d.addr[d.stacks[0].first + 2], 0x401000);
	zt_raw_free(&d);
}

/* Each bad dump and the start of the message it must give. */
static const struct { const char *text, *msg; } bad[] = {
	{ "", "empty input" },
	{ "perf.data\n", "line 1: not a zt raw dump" },
	{ "zt-prof 9\n", "line 1: raw dump version '9'" },
	{ "zt-prof 3\nsamples\n1 1 4011 - 4012\nend\n", "line 3: sample: '-' is not the last word" },
	{ "zt-prof 3\nsamples\n1 1 -\nend\n", "line 3: sample has no addresses" },
	{ "zt-prof 2\nsamples\n1 1 4011 -\nend\n", "line 3: sample: bad address '-'" },
	{ "zt-prof 1\nhz x\n", "line 2: hz is not a number" },
	{ "zt-prof 1\nhz 20000\n", "line 2: hz 20000 is out of range" },
	{ "zt-prof 1\nsamples\n40zz\n", "line 3: sample: bad address '40zz'" },
	{ "zt-prof 1\nsamples\n11112222333344445\n", "line 3: sample: bad address" },
	{ "zt-prof 1\nmaps\n0040-0030 r-xp 0 08:01 1 /x\n", "line 3: empty or reversed" },
	{ "zt-prof 1\nmaps\nnot a maps line\n", "line 3: bad address range" },
	{ "zt-prof 1\nthreads\n", "line 2: section 'threads' is not part of version 1" },
	{ "zt-prof 2\nsamples\n1 1 4011\n", "line 3: truncated dump" },
	{ "zt-prof 2\nsamples\n1 0 4011\nend\n", "line 3: sample: count is zero" },
	{ "zt-prof 2\nsamples\nx 1 4011\nend\n", "line 3: sample: thread id is not a number" },
	{ "zt-prof 2\nsamples\n1 1\nend\n", "line 3: sample has no addresses" },
	{ "zt-prof 2\nend\nsamples\n", "line 3: data after 'end'" },
	{ "zt-prof 2\r\nend\n", "line 1: CRLF" },
	{ "zt-prof 2\nsamples\n1 1 40\r\nend\n", "line 3: CRLF" },
	{ "zt-prof 2\nbuildids\n1000 xyz /a\nend\n", "line 3: buildids: bad build-id" },
	{ "zt-prof 4\nmaps @x\nend\n", "line 2: maps: time is not a number" },
	{ "zt-prof 4\nmaps @\nend\n", "line 2: maps: time is not a number" },
	{ "zt-prof 3\nsamples\nmaps @5\nend\n", "line 3: sample: thread id is not a number" },
	{ "zt-prof 4\nbuildids\n1000 @z ab /a\nend\n", "line 3: buildids: time is not a number" },
	{ "zt-prof 4\nbuildids\n1000 @5\nend\n", "line 3: buildids: bad build-id" },
	{ "zt-prof 4\nmaps @5\n= @4\nend\n", "line 3: maps: no earlier snapshot at @4" },
	{ "zt-prof 4\nmaps @5\n= 4\nend\n", "line 3: maps: bad reference" },
	{ "zt-prof 4\nmaps @4\nmaps @5\n= @4\n= @4\nend\n",
	  "line 5: maps: a section with '= @NS' holds nothing else" },
	{ "zt-prof 4\nmaps @4\nmaps @5\n= @4\n00400000-00401000 r-xp 0 08:01 1 /x\nend\n",
	  "line 5: maps: a section with '= @NS' holds nothing else" },
	{ "zt-prof 4\nmaps @4\n00400000-00401000 r-xp 0 08:01 1 /x\n= @4\nend\n",
	  "line 4: maps: a section with '= @NS' holds nothing else" },
};

/*
 * Version 4: two libraries mapped in turn at 0x7000, each snapshot with
 * its time; samples before, between and after the changes, and one
 * without a time.
 */
static const char v4[] =
	"zt-prof 4\n"
	"samples\n"
	"5 1 @100 7010\n"		/* under snapshot 0: liba */
	"5 1 @250 7010\n"		/* under snapshot 1 (nothing there) or 2: libb */
	"5 1 @400 7010\n"		/* after the last: libb */
	"5 1 @50 9010\n"		/* before the first: the first that has it */
	"5 1 7010\n"			/* no time: the last mapping read */
	"maps @200\n"
	"00009000-0000a000 r-xp 00000000 08:01 9   /jit-was-here\n"
	"maps @10\n"
	"00007000-00008000 r-xp 00000000 08:01 1   /liba.so\n"
	"maps @300\n"
	"00007000-00008000 r-xp 00000000 08:01 2   /libb.so\n"
	"buildids\n"
	"7000 @20 aaaa /liba.so\n"
	"7000 @310 bbbb /libb.so\n"
	"end\n";

UNIT_TEST(raw_v4_names_each_sample_from_the_maps_of_its_time)
{
	struct zt_raw d;
	char err[256];
	const char *want[] = { "/liba.so", "/libb.so", "/libb.so", "/jit-was-here", "/libb.so" };
	const char *wantid[] = { "aaaa", "bbbb", "bbbb", NULL, "bbbb" };

	CHECK(parse(v4, &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.version, 4);
	CHECK_EQ_U(d.nsnaps, 3);
	CHECK_EQ_U(d.nbytime, 3);
	/* Same addresses, taken under different maps: five stacks. */
	CHECK_EQ_U(d.nstacks, 5);
	CHECK_EQ_U(d.ntimed, 4);
	for (size_t i = 0; i < d.ntimed + 1 && i < 5; i++) {
		const struct zt_stack *st = i < d.ntimed ? &d.stacks[d.timed[i].stack] :
							 &d.stacks[d.nstacks - 1];
		const struct zt_map *m = zt_raw_map_at(&d, d.addr[st->first], st->gen);

		CHECK(m != NULL);
		if (!m)
			continue;
		CHECK_STR(m->path, want[i]);
		if (wantid[i])
			CHECK_STR(m->buildid ? m->buildid : "(none)", wantid[i]);
	}
	CHECK(d.stacks[d.nstacks - 1].gen == ZT_RAW_GEN_ANY);
	zt_raw_free(&d);
}

/* "= @ns": a snapshot that came back is the earlier one's mappings again. */
UNIT_TEST(raw_v4_same_refers_to_an_earlier_snapshot)
{
	struct zt_raw d;
	char err[256];
	const struct zt_map *m;

	CHECK(parse("zt-prof 4\nsamples\n5 1 @50 7010\n5 1 @150 7010\n5 1 @250 7010\n"
		    "maps @10\n00007000-00008000 r-xp 00000000 08:01 1   /liba.so\n"
		    "maps @100\n00007000-00008000 r-xp 00000000 08:01 2   /libb.so\n"
		    "maps @200\n= @10\nend\n", &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.nsnaps, 3);
	CHECK_EQ_U(d.nmaps, 3);
	CHECK_EQ_U(d.nstacks, 3);
	for (size_t i = 0; i < d.ntimed; i++) {
		const struct zt_stack *st = &d.stacks[d.timed[i].stack];

		m = zt_raw_map_at(&d, 0x7010, st->gen);
		CHECK(m != NULL);
		if (m)
			CHECK_STR(m->path, i == 1 ? "/libb.so" : "/liba.so");
	}
	zt_raw_free(&d);
}

/* A version 3 dump with two maps sections keeps the old rule: the last wins. */
UNIT_TEST(raw_v3_maps_sections_still_add_up)
{
	struct zt_raw d;
	char err[256];

	CHECK(parse("zt-prof 3\nsamples\n5 1 @100 7010\nmaps\n"
		    "00007000-00008000 r-xp 00000000 08:01 1   /liba.so\nmaps\n"
		    "00007000-00008000 r-xp 00000000 08:01 2   /libb.so\nend\n",
		    &d, err, sizeof err) == 0);
	CHECK_EQ_U(d.nsnaps, 2);
	CHECK(d.stacks[0].gen == ZT_RAW_GEN_ANY);
	CHECK_STR(zt_raw_map_at(&d, 0x7010, d.stacks[0].gen)->path, "/libb.so");
	zt_raw_free(&d);
}

UNIT_TEST(raw_names_the_line_of_every_malformed_dump)
{
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct zt_raw d;
		char err[256];
		int rc = parse(bad[i].text, &d, err, sizeof err);

		CHECK(rc == -1);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0) {
			char m[600];

			snprintf(m, sizeof m, "case %zu: got \"%s\", want \"%s...\"", i, err, bad[i].msg);
			unit_fail(__FILE__, __LINE__, m);
		}
		zt_raw_free(&d);
	}
}

UNIT_TEST(raw_reads_binary_as_an_error)
{
	struct zt_raw d;
	char err[256];
	int fd = memfd_create("raw", 0);
	struct zt_input *in;

	if (write(fd, "zt-prof 1\nsam\0ples\n", 20) != 20)
		abort();
	lseek(fd, 0, SEEK_SET);
	in = zt_input_fdopen(fd, "<stdin>");
	memset(&d, 0, sizeof d);
	CHECK(zt_raw_read(in, &d, err, sizeof err) == -1);
	CHECK(strncmp(err, "line 2: binary data", 19) == 0);
	zt_input_close(in);
	zt_raw_free(&d);
}

/* A named input's messages start with its name, as zt_err_at places them. */
UNIT_TEST(raw_names_the_file_first)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "", "'t.raw': empty input, not a zt raw dump" },
		{ "zt-prof 2\nsamples\n1 1 xyz\nend\n", "'t.raw': line 3: sample: bad address 'xyz'" },
		{ "zt-prof 2\nsamples\n1 1 4011\n", "'t.raw': line 3: truncated dump" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct zt_input *in = named_text(cases[i].text, "'t.raw'");
		struct zt_raw d;
		char err[ZT_ERR_MAX] = "";

		memset(&d, 0, sizeof d);
		CHECK(zt_raw_read(in, &d, err, sizeof err) == -1);
		if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
			CHECK_STR(err, cases[i].msg);
		zt_input_close(in);
		zt_raw_free(&d);
	}
}

/* The reader takes the writer's names: a dump spelled with them reads back. */
UNIT_TEST(raw_reads_the_keys_rawfmt_names)
{
	static const char text[] =
		ZT_RAW_MAGIC " " ZT_STR(ZT_RAW_VERSION) "\n"
		ZT_RAW_PID " 7\n"
		ZT_RAW_HZ " " ZT_STR(ZT_HZ_MAX) "\n"
		ZT_RAW_TIMER " " ZT_RAW_TIMER_POSIX "\n"
		ZT_RAW_RATE_CAP " " ZT_RAW_CAP_KERNEL_TICK "\n"
		ZT_RAW_UNWIND " " ZT_RAW_UNWIND_CFI "\n"
		ZT_RAW_START_NS " 1000\n"
		ZT_RAW_SAMPLES "\n"
		"7 2 @5 10 =20 30 -\n"
		ZT_RAW_THREADS "\n"
		"7 main\n"
		ZT_RAW_SUMMARY "\n"
		ZT_RAW_LOST " 4 " ZT_RAW_LOST_WRITE "=4\n"
		ZT_RAW_PARTIAL " 2\n"
		ZT_RAW_CPU_NS " 9\n"
		ZT_RAW_PROGRAM_SIGPROF " " ZT_RAW_SIGPROF_HANDLER "\n"
		ZT_RAW_END "\n";
	struct zt_raw d;
	char err[ZT_ERR_MAX] = "";

	CHECK(parse(text, &d, err, sizeof err) == 0);
	CHECK_STR(err, "");
	CHECK_EQ_U(d.version, ZT_RAW_VERSION);
	CHECK_EQ_U(d.pid, 7);
	CHECK_EQ_U(d.hz, ZT_HZ_MAX);
	CHECK_STR(d.timer, ZT_RAW_TIMER_POSIX);
	CHECK_STR(d.rate_cap, ZT_RAW_CAP_KERNEL_TICK);
	CHECK_STR(d.unwind, ZT_RAW_UNWIND_CFI);
	CHECK_EQ_U(d.start_ns, 1000);
	CHECK_EQ_U(d.nstacks, 1);
	CHECK(d.stacks[0].partial);
	CHECK_EQ_U(d.stacks[0].count, 2);
	CHECK_EQ_U(d.ntimed, 1);
	CHECK_EQ_U(d.timed[0].ns, 5);
	CHECK(d.exact[d.stacks[0].first + 1] == 1);
	CHECK(d.exact[d.stacks[0].first + 2] == 0);
	CHECK_STR(zt_raw_thread_name(&d, 7), "main");
	CHECK_EQ_U(d.lost, 4);
	CHECK_STR(d.lost_detail, ZT_RAW_LOST_WRITE "=4");
	CHECK_EQ_U(d.partial, 2);
	CHECK_EQ_U(d.cpu_ns, 9);
	CHECK_STR(d.conflict, ZT_RAW_SIGPROF_HANDLER);
	CHECK(d.complete);
	zt_raw_free(&d);
}
