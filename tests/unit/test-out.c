/*
 * test-out.c — lib/out.c, the block output of the text streams: its
 * decimal and hex writers give printf's digits, a FILE gets every byte in
 * order across blocks, and zt_escape_out escapes as zt_escape_fput does.
 */
#include "unit.h"
#include "escape.h"
#include "out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What o holds, NUL-terminated, and o emptied. */
static const char *text(struct zt_out *o)
{
	static char buf[256];

	if (o->len)
		memcpy(buf, o->buf, o->len);
	buf[o->len] = '\0';
	o->len = 0;
	return buf;
}

UNIT_TEST(out_numbers_are_printf_s)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 12345, 999999, 1000000,
				      4294967296ull, 18446744073709551615ull };
	struct zt_out o = { 0 };
	char want[64];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		zt_out_dec(&o, v[i], 0);
		snprintf(want, sizeof want, "%" PRIu64, v[i]);
		CHECK_STR(text(&o), want);
		zt_out_dec(&o, v[i], 6);
		snprintf(want, sizeof want, "%06" PRIu64, v[i]);
		CHECK_STR(text(&o), want);
		zt_out_hex(&o, v[i], 16);
		snprintf(want, sizeof want, "%16" PRIx64, v[i]);
		CHECK_STR(text(&o), want);
		zt_out_hex(&o, v[i], 0);
		snprintf(want, sizeof want, "%" PRIx64, v[i]);
		CHECK_STR(text(&o), want);
	}
	zt_out_free(&o);
}

UNIT_TEST(out_to_a_file_keeps_every_byte_in_order_across_blocks)
{
	char *buf = NULL, big[3 * ZT_OUT_BLOCK / 2];
	size_t len = 0, want = 0;
	FILE *f = open_memstream(&buf, &len);
	struct zt_out o;
	int bad = 0;

	memset(big, 'x', sizeof big);
	zt_out_init(&o, f);
	for (int i = 0; i < 100000; i++) {
		zt_out_dec(&o, (uint64_t)i % 10, 0);
		want++;
	}
	zt_out_write(&o, big, sizeof big);	/* larger than a block */
	want += sizeof big;
	zt_out_byte(&o, '!');
	want++;
	zt_out_free(&o);
	fclose(f);
	CHECK_EQ_U(len, want);
	for (int i = 0; i < 100000; i++)
		bad += buf[i] != '0' + i % 10;
	CHECK_EQ_U(bad, 0);
	CHECK(buf[len - 1] == '!' && buf[len - 2] == 'x');
	free(buf);
}

UNIT_TEST(escape_out_escapes_as_escape_fput)
{
	static const char *const s[] = { "", "plain", "\nsamples\n1 99\t\\\033[2J\x7f",
					 "/a b (c);d", "end\\", "\x01\x1f ok \x7f" };
	struct zt_out o = { 0 };

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		for (int k = 0; k < 3; k++) {
			static const char *const extra[] = { NULL, " ()", ";" };
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);

			zt_escape_fput(f, s[i], extra[k]);
			fclose(f);
			zt_escape_out(&o, s[i], extra[k]);
			CHECK_STR(text(&o), buf);
			free(buf);
		}
	zt_out_free(&o);
}
