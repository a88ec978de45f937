/*
 * out.h — block-buffered writing of the text streams (the symbolized
 * stream, folded stacks), with decimal and hexadecimal writers of zt's own.
 *
 * stdio's printf and putc cost a format parse or a lock per call; a stream
 * of millions of frames spends most of its time there. A zt_out collects
 * bytes in its own buffer and hands them to its FILE in blocks of exactly
 * ZT_OUT_BLOCK bytes, each one write(2) to the FILE's descriptor after
 * what the FILE itself holds (a failed write is redone through the FILE, so
 * that its error flag, which zt_fshut checks, still tells a full disk).
 * With no FILE it is a growing arena: for text kept and copied later.
 */
#ifndef ZT_OUT_H
#define ZT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ZT_OUT_BLOCK ((size_t)1 << 17)

struct zt_out {
	FILE *f;		/* NULL: an arena that only grows */
	char *buf;
	size_t len, cap;
};

/* An output to f (NULL: an arena). Zeroing the struct makes an arena too. */
void zt_out_init(struct zt_out *o, FILE *f);
/* Write what is buffered to the FILE (nothing for an arena). */
void zt_out_flush(struct zt_out *o);
/* Flush, then free the buffer. */
void zt_out_free(struct zt_out *o);

/* Room for n more bytes: flushes a FILE's block, or grows an arena. */
void zt_out_room(struct zt_out *o, size_t n);

/* zt_out_write when the n bytes do not fit what is left of the buffer. */
void zt_out_write_slow(struct zt_out *o, const void *p, size_t n);

static inline void zt_out_write(struct zt_out *o, const void *p, size_t n)
{
	if (o->cap - o->len < n) {
		zt_out_write_slow(o, p, n);
		return;
	}
	if (n == 0)	/* an empty arena has no buffer to copy into */
		return;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void zt_out_str(struct zt_out *o, const char *s)
{
	zt_out_write(o, s, strlen(s));
}

static inline void zt_out_byte(struct zt_out *o, char c)
{
	if (o->cap == o->len)
		zt_out_room(o, 1);
	o->buf[o->len++] = c;
}

/* v in decimal at p (at most 20 bytes, no NUL); returns the byte after it. */
char *zt_fmt_dec(char *p, uint64_t v);
/* v in decimal, at least width digits (zero-padded), as "%0*" PRIu64. */
void zt_out_dec(struct zt_out *o, uint64_t v, int width);
/* v in lowercase hex, right-aligned in width columns with spaces (0: no
 * padding), as "%*" PRIx64. */
void zt_out_hex(struct zt_out *o, uint64_t v, int width);

#endif
