/*
 * fuzz-chreply.c — libFuzzer target for what zt-ingest reads of
 * ClickHouse's replies (lib/chreply.c): a reply taken in pieces as curl
 * hands them over, read as a count and as a message, and the URL printed
 * without its user and password. Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-chreply tests/fuzz/corpus-chreply
 * The first byte cuts the reply into pieces (its low 4 bits, plus one, times
 * its high 4 bits plus one, times 64 when the second byte is odd, give a
 * piece's size; 0x00: one piece), the pieces going to zt_ch_reply_take;
 * the reply is the rest of the input, repeated 1 + the second byte / 2
 * times (up to 128: past ZT_CH_REPLY_MAX with inputs of libFuzzer's
 * default size). Every check below is of what zt-ingest relies on.
 */
#define FUZZ_NAME "fuzz-chreply"
#include "fuzz.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chreply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_ch_reply r = { 0 };
	size_t piece, reps, total, want;
	char out[320], *copy, *shown, *host, *at, *all;
	uint64_t n;

	if (size < 2)
		return 0;
	piece = data[0] ? (size_t)((data[0] & 15) + 1) * (size_t)((data[0] >> 4) + 1) : 0;
	if (data[1] & 1)
		piece *= 64;
	reps = 1 + (size_t)data[1] / 2;
	data += 2;
	size -= 2;
	total = size * reps;
	if (!piece)
		piece = total ? total : 1;
	all = malloc(total ? total : 1);
	for (size_t i = 0; i < reps; i++)
		memcpy(all + i * size, data, size);
	want = total < ZT_CH_REPLY_MAX - 1 ? total : ZT_CH_REPLY_MAX - 1;
	/* Pieces of the same reply, each copied to a buffer of its size. */
	for (int round = 0; round < 2; round++) {
		size_t done = 0;

		zt_ch_reply_reset(&r);
		while (done < total) {
			size_t k = total - done < piece ? total - done : piece;
			char *p = malloc(k);

			memcpy(p, all + done, k);
			zt_ch_reply_take(&r, p, k);
			free(p);
			done += k;
		}
		/* What is kept is the reply's start, as much as the limit
		   holds, in one piece, NUL-terminated. */
		CHECK(r.len == want);
		CHECK(r.len == 0 || memcmp(r.buf, all, r.len) == 0);
		CHECK(!r.buf || r.buf[r.len] == '\0');
	}
	free(all);
	if (zt_ch_reply_count(&r, &n) == 0) {
		size_t digits = 0;
		uint64_t v = 0;

		while (digits < r.len && r.buf[digits] >= '0' && r.buf[digits] <= '9')
			v = v * 10 + (uint64_t)(r.buf[digits++] - '0');
		CHECK(digits > 0 && v == n);
		for (size_t i = digits; i < r.len; i++)
			CHECK(r.buf[i] == '\n');
	}
	zt_ch_reply_said(&r, out, sizeof out);
	CHECK(strlen(out) <= 300);
	for (size_t i = 0; out[i]; i++)
		CHECK((unsigned char)out[i] >= 0x20 && out[i] != 0x7f);
	CHECK(!out[0] || out[strlen(out) - 1] != ' ');
	zt_ch_reply_said(&r, out, 8);
	CHECK(strlen(out) < 8);
	/* The input as a URL (up to its first NUL). */
	copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	shown = zt_ch_shown_url(copy);
	CHECK(strlen(shown) <= strlen(copy));
	/* What is left out is "user:password@": the authority up to its last '@'. */
	host = strstr(copy, "://");
	host = host ? host + 3 : copy;
	at = memrchr(host, '@', strcspn(host, "/?#"));
	if (!at) {
		CHECK(strcmp(shown, copy) == 0);
	} else {
		CHECK(memcmp(shown, copy, (size_t)(host - copy)) == 0);
		CHECK(strcmp(shown + (host - copy), at + 1) == 0);
		CHECK(!memchr(shown + (host - copy), '@', strcspn(shown + (host - copy), "/?#")));
	}
	free(shown);
	free(copy);
	free(r.buf);
	return 0;
}
