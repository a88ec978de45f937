/*
 * test-input.c — the line reader: plain and gzip input read the same, a last
 * line without '\n', and long lines.
 */
#include "unit.h"
#include "input.h"

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

UNIT_TEST(input_reads_lines_longer_than_its_buffer)
{
	size_t n = 3u << 20;
	char *big = malloc(n + 3);
	struct zt_input *in;
	size_t len;
	char *l;

	memset(big, 'x', n);
	memcpy(big + n, "\ny\n", 3);
	in = from_bytes(big, n + 3);
	l = zt_input_line(in, &len);
	CHECK_EQ_U(len, n);
	CHECK(l && l[0] == 'x' && l[n - 1] == 'x');
	CHECK_STR(zt_input_line(in, &len), "y");
	zt_input_close(in);
	free(big);
}
