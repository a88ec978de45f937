/*
 * test-folded.c — the folded line parser: what it accepts and how it names
 * each problem; the reader's items and placed errors, and its '#' lines
 * (weights, facts); the differential layout written and read back; the
 * order of stacks.
 */
#include "unit.h"
#include "factlines.h"
#include "folded.h"
#include "foldedsort.h"
#include "input.h"
#include "util.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *parse(const char *s, size_t *sl, uint64_t *c)
{
	return zt_folded_parse(s, strlen(s), sl, c);
}

UNIT_TEST(folded_parses_stack_and_count)
{
	size_t sl = 0;
	uint64_t c = 0;

	CHECK(parse("a;b;c 42", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 5);
	CHECK_EQ_U(c, 42);
	CHECK(parse("a b;c\t7", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 5);
	CHECK_EQ_U(c, 7);
	CHECK(parse("a;;b 0", &sl, &c) == NULL);
	CHECK(parse("a; \t3", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 3);
	CHECK(parse("a 18446744073709551615", &sl, &c) == NULL);
	CHECK(c == UINT64_MAX);
}

UNIT_TEST(folded_names_each_problem)
{
	size_t sl;
	uint64_t c;

	CHECK_STR(parse("a;b", &sl, &c), "missing count");
	CHECK_STR(parse("a;b ", &sl, &c), "missing count");
	CHECK_STR(parse("a;b -1", &sl, &c), "negative count");
	CHECK_STR(parse("a;b 1.5", &sl, &c), "fractional count (counts are whole numbers of samples)");
	CHECK_STR(parse("a;b x1", &sl, &c), "count is not a number");
	CHECK_STR(parse("a;b 1e3", &sl, &c), "count is not a number");
	CHECK_STR(parse("a;b 1\r", &sl, &c), "line ends in CR (CRLF line endings are not accepted)");
	CHECK_STR(parse("", &sl, &c), "empty line");
	CHECK_STR(parse(" 3", &sl, &c), "empty stack");
	CHECK_STR(parse("a 18446744073709551616", &sl, &c), "count does not fit in 64 bits");
	CHECK_STR(zt_folded_parse("a\0b 1", 5, &sl, &c), "NUL byte in text (a binary file?)");
}

UNIT_TEST(folded_cmp_is_byte_order_shorter_first)
{
	CHECK(zt_folded_cmp("a;b", 3, "a;b", 3) == 0);
	CHECK(zt_folded_cmp("a", 1, "a;b", 3) < 0);
	CHECK(zt_folded_cmp("a;b", 3, "a", 1) > 0);
	CHECK(zt_folded_cmp("a;b", 3, "a;c", 3) < 0);
	/* Bytes are unsigned, as sort(1) with LC_ALL=C compares them. */
	CHECK(zt_folded_cmp("\xc3\xa9", 2, "z", 1) > 0);
	CHECK(zt_folded_cmp("A", 1, "a", 1) < 0);
	/* A NUL inside counts as a byte, not as the end. */
	CHECK(zt_folded_cmp("a\0b", 3, "a\0c", 3) < 0);
	CHECK(zt_folded_cmp("", 0, "a", 1) < 0);
	CHECK(zt_folded_cmp("", 0, "", 0) == 0);
	/* A space sorts before ';': "a b" before "a;b", as flamegraph.pl's sort. */
	CHECK(zt_folded_cmp("a b", 3, "a;b", 3) < 0);
}

static struct zt_input *from_text(const char *text)
{
	int fd = memfd_create("in", 0);
	size_t n = strlen(text);

	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		abort();
	lseek(fd, 0, SEEK_SET);
	return zt_input_fdopen(fd, "'f'");
}

UNIT_TEST(folded_next_gives_items_then_the_end_and_places_errors)
{
	struct zt_folded_item it;
	struct zt_input *in = from_text("# zt weight: samples\na;b 3\nc 1\n");
	uint64_t stacks = 0;
	char err[ZT_ERR_MAX] = "";

	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 1);
	CHECK(it.kind == ZT_FOLDED_COMMENT);
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 1);
	CHECK(it.kind == ZT_FOLDED_STACK && it.stacklen == 3 && it.count == 3);
	CHECK_EQ_U(it.lineno, 2);
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 1);
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 0);
	CHECK_EQ_U(stacks, 2);
	CHECK_STR(err, "");
	zt_input_close(in);

	in = from_text("a;b 3\na;b\n");
	stacks = 0;
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 1);
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == -1);
	CHECK_STR(err, "'f': line 2: missing count");
	zt_input_close(in);

	in = from_text("");
	stacks = 0;
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == -1);
	CHECK_STR(err, "'f': empty file");
	zt_input_close(in);

	in = from_text("# only a comment\n");
	stacks = 0;
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == 1);
	CHECK(zt_folded_next(in, &it, &stacks, err, sizeof err) == -1);
	CHECK_STR(err, "'f': no stacks");
	zt_input_close(in);
}

/* The first zt_folded_read of text, without or with none_ok. */
static int first_read(const char *text, int none_ok, char *err, size_t errlen)
{
	struct zt_folded_reader r;
	struct zt_folded_item it;
	struct zt_input *in = from_text(text);
	int got;

	zt_folded_reader_init(&r, in);
	r.none_ok = none_ok;
	got = zt_folded_read(&r, &it, err, errlen);
	zt_input_close(in);
	return got;
}

UNIT_TEST(folded_reader_takes_weight_and_fact_lines_and_gives_stacks)
{
	struct zt_folded_reader r;
	struct zt_folded_item it;
	struct zt_facts facts = { 0 };
	struct zt_input *in = from_text("# zt hz 997\n# zt weight: ns\na;b 3\n# x\nc 1\n");
	char err[ZT_ERR_MAX] = "";

	zt_folded_reader_init(&r, in);
	r.weighed = 1;
	r.facts = &facts;
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(it.kind == ZT_FOLDED_STACK && it.stacklen == 3 && it.count == 3);
	CHECK_EQ_U(it.lineno, 3);
	CHECK(r.wall && r.w.kind == ZT_WEIGHT_WALL);
	CHECK_EQ_U(facts.hz, 997);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(it.count == 1 && it.lineno == 5);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 0);
	CHECK_EQ_U(r.stacks, 2);
	CHECK_EQ_U(r.w.n, 2);
	CHECK_STR(err, "");
	zt_input_close(in);

	/* Weighed, a bad declaration is an error at its line; not weighed, it
	   is a comment, and only 'ns' is noticed. */
	in = from_text("a;b 3\n# zt weight: ns\nc 1\n");
	zt_folded_reader_init(&r, in);
	r.weighed = 1;
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == -1);
	CHECK_STR(err, "'f': line 2: '# zt weight:' after the first stack (it goes before "
		  "every stack)");
	zt_input_close(in);
	in = from_text("# zt weight: grams\n# zt weight:  ns\na 1\n");
	zt_folded_reader_init(&r, in);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(r.wall && r.w.kind == ZT_WEIGHT_SAMPLES);
	zt_input_close(in);

	/* No stacks: an error, or with none_ok the end. */
	CHECK(first_read("# only a comment\n", 0, err, sizeof err) == -1);
	CHECK_STR(err, "'f': no stacks");
	CHECK(first_read("# only a comment\n", 1, err, sizeof err) == 0);

	/* A '#' line in CRLF is a malformed line, not a comment. */
	CHECK(first_read("# note\r\na 1\n", 0, err, sizeof err) == -1);
	CHECK_STR(err, "'f': line 1: line ends in CR (CRLF line endings are not accepted)");
}

UNIT_TEST(folded_diff_lines_are_written_and_read_back)
{
	char *text = NULL;
	size_t textlen = 0, sl = 0, stacklen;
	uint64_t before = 0, after;
	FILE *f = open_memstream(&text, &textlen);

	zt_folded_diff_write(f, "a;b 1", 3, 7, 18446744073709551615u);
	zt_folded_diff_write(f, "c", 1, 0, 2);
	fclose(f);
	CHECK_STR(text, "a;b 7 18446744073709551615\nc 0 2\n");

	/* As zt_folded_next gives the line: the stack before the last count. */
	CHECK(zt_folded_parse(text, 26, &stacklen, &after) == NULL);
	CHECK(zt_folded_diff_before(text, stacklen, &sl, &before) == NULL);
	CHECK_EQ_U(sl, 3);
	CHECK_EQ_U(before, 7);
	CHECK_EQ_U(after, UINT64_MAX);
	/* A folded line: no first count. */
	CHECK_STR(zt_folded_diff_before("a;b", 3, &sl, &before), "missing count");
	CHECK_STR(zt_folded_diff_before("", 0, &sl, &before), "missing count");
	CHECK_STR(zt_folded_diff_before("f2", 2, &sl, &before), "missing count");
	CHECK_STR(zt_folded_diff_before("a -1", 4, &sl, &before), "negative count");
	free(text);
}

/* A file to open by path: foldedsort reads a sorted file twice. */
static void write_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
}

/* path's stacks as zt-diff reads a named input: opened, then streamed or
   loaded. */
static struct zt_foldedsort *open_src(const char *path, const struct zt_foldedsort_opts *o,
				      uint64_t *total, char *err, size_t errlen)
{
	struct zt_input *in = zt_input_open(path, err, errlen);
	struct zt_folded_reader rd;
	struct zt_foldedsort *s;

	*total = 0;
	if (!in)
		return NULL;
	zt_folded_reader_init(&rd, in);
	s = zt_foldedsort_from(&rd, path, o, total, err, errlen);
	zt_input_close(in);
	return s;
}

UNIT_TEST(foldedsort_gives_stacks_in_folded_cmp_order_summed_sorted_or_not)
{
	static const char *const texts[] = {
		"a 1\na b 2\na;b 3\nb 4\n",		/* sorted: streamed */
		"b 4\na;b 1\na 1\na;b 2\na b 2\n",	/* loaded, summed, sorted */
	};

	for (int t = 0; t < 2; t++) {
		char path[] = "/tmp/zt-unit-foldedsort-XXXXXX", err[ZT_ERR_MAX] = "";
		const char *stack, *prev = NULL;
		char prevbuf[16];
		size_t len, prevlen = 0;
		uint64_t total, count, sum = 0;
		struct zt_foldedsort *s;
		int n = 0;

		write_file(path, texts[t]);
		s = open_src(path, NULL, &total, err, sizeof err);
		CHECK(s != NULL);
		CHECK_EQ_U(total, 10);
		while (s && zt_foldedsort_next(s, &stack, &len, &count, err, sizeof err) == 1) {
			if (prev)
				CHECK(zt_folded_cmp(prev, prevlen, stack, len) < 0);
			memcpy(prevbuf, stack, len < sizeof prevbuf ? len : sizeof prevbuf);
			prev = prevbuf;
			prevlen = len;
			sum += count;
			n++;
		}
		CHECK_EQ_U(n, 4);
		CHECK_EQ_U(sum, 10);
		zt_foldedsort_close(s);
		unlink(path);
	}
}

UNIT_TEST(foldedsort_open_places_its_errors)
{
	char path[] = "/tmp/zt-unit-foldedsort-XXXXXX", err[128], want[128];
	uint64_t total;

	write_file(path, "a 1\nb\n");
	CHECK(open_src(path, NULL, &total, err, sizeof err) == NULL);
	snprintf(want, sizeof want, "'%s': line 2: missing count", path);
	CHECK_STR(err, want);
	unlink(path);
	CHECK(open_src(path, &(struct zt_foldedsort_opts){ .strip = 1 }, &total, err,
		       sizeof err) == NULL);
	snprintf(want, sizeof want, "cannot open '%s': No such file or directory", path);
	CHECK_STR(err, want);
}

UNIT_TEST(folded_reroot_renames_drops_and_keeps_a_lone_root)
{
	struct zt_reroot ren = { ZT_ROOT_RENAME, "prog" }, drop = { ZT_ROOT_DROP, NULL };
	struct zt_reroot opt = { ZT_ROOT_KEEP, NULL };
	char out[64];
	size_t n;

	n = zt_folded_reroot(&ren, "gzip;main;deflate", 17, out);
	CHECK(n == 17 && memcmp(out, "prog;main;deflate", n) == 0);
	n = zt_folded_reroot(&ren, "gzip", 4, out);
	CHECK(n == 4 && memcmp(out, "prog", n) == 0);
	n = zt_folded_reroot(&drop, "gzip;main;deflate", 17, out);
	CHECK(n == 12 && memcmp(out, "main;deflate", n) == 0);
	n = zt_folded_reroot(&drop, "gzip", 4, out);		/* nothing would be left */
	CHECK(n == 4 && memcmp(out, "gzip", n) == 0);
	n = zt_folded_reroot(NULL, "a;b", 3, out);
	CHECK(n == 3 && memcmp(out, "a;b", n) == 0);
	CHECK(zt_folded_root_option(&opt, "x") == NULL && opt.how == ZT_ROOT_RENAME);
	CHECK(zt_folded_root_option(&opt, "x") == NULL);		/* the same again */
	CHECK(zt_folded_root_option(&opt, "y") != NULL);
	CHECK(zt_folded_root_option(&opt, NULL) != NULL);
	opt.how = ZT_ROOT_KEEP;
	CHECK(zt_folded_root_option(&opt, "a b") != NULL);
	CHECK(zt_folded_root_option(&opt, "") != NULL);
	CHECK(zt_folded_root_option(&opt, NULL) == NULL && opt.how == ZT_ROOT_DROP);
}
