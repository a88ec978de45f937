/*
 * out.c — block-buffered text output and its number writers (out.h).
 */
#include "out.h"
#include "util.h"

#include <stdlib.h>

void zt_out_init(struct zt_out *o, FILE *f)
{
	o->f = f;
	o->buf = NULL;
	o->len = o->cap = 0;
}

void zt_out_flush(struct zt_out *o)
{
	if (o->f && o->len) {
		/* A short write sets the FILE's error flag, which zt_fshut reports. */
		(void)fwrite(o->buf, 1, o->len, o->f);
		o->len = 0;
	}
}

void zt_out_free(struct zt_out *o)
{
	zt_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

void zt_out_room(struct zt_out *o, size_t n)
{
	if (o->cap - o->len >= n)
		return;
	if (o->f) {
		zt_out_flush(o);
		if (o->cap >= n)
			return;
		o->cap = n > ZT_OUT_BLOCK ? n : ZT_OUT_BLOCK;
		free(o->buf);
		o->buf = zt_malloc(o->cap);
		return;
	}
	zt_grow(&o->buf, &o->cap, o->len + n, 1);
}

void zt_out_dec(struct zt_out *o, uint64_t v, int width)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[24], *p = t + sizeof t;

	/* Two digits a step. */
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + v % 100 * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (t + sizeof t - p < width && p > t)
		*--p = '0';
	zt_out_write(o, p, (size_t)(t + sizeof t - p));
}

void zt_out_hex(struct zt_out *o, uint64_t v, int width)
{
	static const char digit[] = "0123456789abcdef";
	char t[24];
	int n = 0;

	do {
		t[sizeof t - 1 - n++] = digit[v & 15];
		v >>= 4;
	} while (v);
	while (n < width && n < (int)sizeof t)
		t[sizeof t - 1 - n++] = ' ';
	zt_out_write(o, t + sizeof t - n, (size_t)n);
}
