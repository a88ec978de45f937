/*
 * test-input.c — the line reader: plain and gzip input read the same, a last
 * line without '\n', long lines, and the hash of the lines read.
 */
#include "unit.h"
#include "hash.h"
#include "input.h"
#include "util.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

static struct zt_input *from_bytes(const void *p, size_t n)
{
	int fd = memfd_create("in", 0);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	lseek(fd, 0, SEEK_SET);
	return zt_input_fdopen(fd, "<test>");
}

UNIT_TEST(input_reads_plain_lines_and_a_last_line_without_newline)
{
	struct zt_input *in = from_bytes("a\nbb\r\n\nlast", 11);
	size_t len;
	char *l;

	l = zt_input_line(in, &len);
	CHECK_STR(l, "a");
	l = zt_input_line(in, &len);
	CHECK_STR(l, "bb\r");
	CHECK_EQ_U(len, 3);
	l = zt_input_line(in, &len);
	CHECK_STR(l, "");
	l = zt_input_line(in, &len);
	CHECK_STR(l, "last");
	CHECK_EQ_U(zt_input_lineno(in), 4);
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK(!zt_input_gzipped(in));
	zt_input_close(in);
}

UNIT_TEST(input_reads_gzip_transparently)
{
	char text[] = "zt-prof 1\nhz 997\n";
	unsigned char gz[256];
	z_stream z;
	struct zt_input *in;
	size_t len;

	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)text;
	z.avail_in = (unsigned)strlen(text);
	z.next_out = gz;
	z.avail_out = sizeof gz;
	deflate(&z, Z_FINISH);
	in = from_bytes(gz, z.total_out);
	deflateEnd(&z);
	CHECK_STR(zt_input_line(in, &len), "zt-prof 1");
	CHECK_STR(zt_input_line(in, &len), "hz 997");
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK(zt_input_gzipped(in));
	zt_input_close(in);
}

/* gzip of text, as one member, into out; returns its size. */
static size_t gz(const char *text, unsigned char *out, size_t cap)
{
	z_stream z;
	size_t n;

	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)text;
	z.avail_in = (unsigned)strlen(text);
	z.next_out = out;
	z.avail_out = (unsigned)cap;
	deflate(&z, Z_FINISH);
	n = z.total_out;
	deflateEnd(&z);
	return n;
}

UNIT_TEST(input_reads_lines_up_to_the_limit_and_refuses_longer)
{
	size_t n = ZT_LINE_MAX;
	char *big = malloc(2 * n + 8);
	struct zt_input *in;
	size_t len;
	char *l;

	/* A line of exactly the limit, then one a byte longer. */
	memset(big, 'x', 2 * n + 8);
	big[n] = '\n';
	big[2 * n + 2] = '\n';
	memcpy(big + 2 * n + 3, "y\n", 2);
	in = from_bytes(big, 2 * n + 5);
	l = zt_input_line(in, &len);
	CHECK_EQ_U(len, n);
	CHECK(l && l[0] == 'x' && l[n - 1] == 'x');
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK_STR(zt_input_error(in), "<test>: line 2: longer than 1048576 bytes");
	CHECK(zt_input_line(in, &len) == NULL);
	zt_input_close(in);
	free(big);
}

UNIT_TEST(input_refuses_a_long_last_line_without_newline_and_long_gzip_lines)
{
	static unsigned char z[4096];
	char text[300];
	struct zt_input *in;
	size_t len;

	memset(text, 'a', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	in = from_bytes(text, strlen(text));
	zt_input_set_max_line(in, 100);
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK_STR(zt_input_error(in), "<test>: line 1: longer than 100 bytes");
	zt_input_close(in);

	in = from_bytes(z, gz(text, z, sizeof z));
	zt_input_set_max_line(in, 299);
	CHECK_STR(zt_input_line(in, &len), text);
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK(zt_input_error(in) == NULL);
	zt_input_close(in);

	in = from_bytes(z, gz(text, z, sizeof z));
	zt_input_set_max_line(in, 298);
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK_STR(zt_input_error(in), "<test>: line 1: longer than 298 bytes");
	zt_input_close(in);
}

/*
 * A small line limit makes a buffer smaller than a read chunk: the unread
 * rest moved to its front must stay inside it (it was moved up to an
 * alignment boundary past the buffer's end, found by fuzz-stage:
 * crashes/stage-heap-overflow-small-max-line-align), and every line of
 * the limit's length must still come whole.
 */
UNIT_TEST(input_with_a_small_line_limit_keeps_its_lines_inside_its_buffer)
{
	char text[40 * 8 + 1], want[12];
	struct zt_input *in;
	size_t len;
	int n = 0;

	/* Lines of 7 bytes in a buffer of 18: a line is cut at each read. */
	for (int i = 0; i < 40; i++)
		snprintf(text + 8 * i, 9, "%07d\n", i);
	in = from_bytes(text, strlen(text));
	zt_input_set_max_line(in, 8);
	for (const char *l; (l = zt_input_line(in, &len)) != NULL; n++) {
		snprintf(want, sizeof want, "%07d", n);
		CHECK_EQ_U(len, 7);
		CHECK_STR(l, want);
	}
	CHECK(zt_input_error(in) == NULL);
	CHECK_EQ_U(n, 40);
	zt_input_close(in);
}

UNIT_TEST(input_reads_gzip_members_one_after_another)
{
	unsigned char z[512];
	struct zt_input *in;
	size_t n, len;

	n = gz("a\nb", z, sizeof z);
	n += gz("c\nd\n", z + n, sizeof z - n);
	in = from_bytes(z, n);
	CHECK_STR(zt_input_line(in, &len), "a");
	CHECK_STR(zt_input_line(in, &len), "bc");
	CHECK_STR(zt_input_line(in, &len), "d");
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK(zt_input_error(in) == NULL);
	CHECK(zt_input_gzipped(in));
	zt_input_close(in);
}

UNIT_TEST(input_refuses_bytes_after_gzip_and_truncated_or_corrupt_gzip)
{
	unsigned char z[512];
	struct zt_input *in;
	size_t n, len;

	n = gz("a\nb\n", z, sizeof z);
	memcpy(z + n, "junk", 4);
	in = from_bytes(z, n + 4);
	CHECK_STR(zt_input_line(in, &len), "a");
	CHECK_STR(zt_input_line(in, &len), "b");
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK_STR(zt_input_error(in), "<test>: bytes after the end of the gzip data, after line 2");
	zt_input_close(in);

	/* One stray byte, too short to be another member's magic. */
	z[n] = 0x1f;
	in = from_bytes(z, n + 1);
	while (zt_input_line(in, &len))
		;
	CHECK_STR(zt_input_error(in), "<test>: bytes after the end of the gzip data, after line 2");
	zt_input_close(in);

	in = from_bytes(z, n - 6);
	while (zt_input_line(in, &len))
		;
	CHECK_STR(zt_input_error(in), "<test>: truncated gzip data after line 2");
	zt_input_close(in);

	z[12] ^= 0xff;
	in = from_bytes(z, n);
	while (zt_input_line(in, &len))
		;
	CHECK(zt_input_error(in) != NULL);
	CHECK(strstr(zt_input_error(in), "<test>: corrupt gzip data after line 0: ") ==
	      zt_input_error(in));
	CHECK(strstr(zt_input_error(in), "<fd:") == NULL);
	zt_input_close(in);
}

UNIT_TEST(input_open_returns_null_and_says_why)
{
	char err[ZT_ERR_MAX] = "";

	CHECK(zt_input_open("/nonexistent/zt-unit", err, sizeof err) == NULL);
	CHECK_STR(err, "cannot open '/nonexistent/zt-unit': No such file or directory");
}

/* The hash zt_input_line's reader would make of every line of in. */
static uint64_t hash_loop(struct zt_input *in, uint64_t seed)
{
	uint64_t h = seed;
	size_t n;
	char *l;

	while ((l = zt_input_line(in, &n)))
		h = zt_hash(l, n + 1, h);
	return h;
}

UNIT_TEST(input_hash_of_lines_read_is_the_loops_plain_gzip_and_skipped)
{
	const char text[] = "zt-prof 1\nhz 997\r\n\n\nlast";
	unsigned char gzb[256];
	struct zt_input *in;
	uint64_t want, h = 0;
	size_t n, len;
	const char *p;

	in = from_bytes(text, sizeof text - 1);
	want = hash_loop(in, 0x7a74);
	zt_input_close(in);
	/* Read line by line, hashed as it goes (zt-ingest's dump id). */
	in = from_bytes(text, sizeof text - 1);
	zt_input_hash_start(in, 0x7a74);
	while (zt_input_line(in, &len))
		;
	CHECK(zt_input_hash(in, &h) == 0);
	CHECK(h == want);
	zt_input_close(in);
	/* The same text in gzip, its first three lines skipped whole. */
	in = from_bytes(gzb, gz(text, gzb, sizeof gzb));
	zt_input_hash_start(in, 0x7a74);
	CHECK_STR(zt_input_line(in, &len), "zt-prof 1");
	p = zt_input_ahead(in, 64, &n);
	CHECK(n >= 9 && memcmp(p, "hz 997\r\n\n", 9) == 0);
	zt_input_skip(in, 9, 2);
	CHECK_STR(zt_input_line(in, &len), "");
	CHECK_STR(zt_input_line(in, &len), "last");
	CHECK(zt_input_line(in, &len) == NULL);
	CHECK(zt_input_hash(in, &h) == 0);
	CHECK(h == want);
	zt_input_close(in);
	/* Lines read before the hash started: no hash to give. */
	in = from_bytes(text, sizeof text - 1);
	CHECK(zt_input_hash(in, &h) < 0);
	CHECK_STR(zt_input_line(in, &len), "zt-prof 1");
	zt_input_hash_start(in, 0x7a74);
	CHECK(zt_input_hash(in, &h) < 0);
	zt_input_close(in);
}
