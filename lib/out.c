/*
 * out.c — block-buffered text output and its number writers (out.h).
 */
#include "out.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A pipe written through is grown to ZT_OUT_PIPE bytes (the most an
 * unprivileged process may ask by default, /proc/sys/fs/pipe-max-size):
 * at Linux's 64 KiB a 100 MB stream stops its writer and wakes its reader
 * 1,600 times, each a pair of context switches; at 1 MiB about 100. A pipe
 * already as large, or one that cannot grow (a per-user limit reached), is
 * left as it is; the bytes written are the same either way.
 */
#define ZT_OUT_PIPE (1 << 20)

static void grow_pipe(FILE *f)
{
#ifdef F_SETPIPE_SZ
	struct stat st;
	int fd = fileno(f), cur;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	cur = fcntl(fd, F_GETPIPE_SZ);
	if (cur > 0 && cur < ZT_OUT_PIPE)
		(void)fcntl(fd, F_SETPIPE_SZ, ZT_OUT_PIPE);
#else
	(void)f;
#endif
}

void zt_out_init(struct zt_out *o, FILE *f)
{
	o->f = f;
	o->buf = NULL;
	o->len = o->cap = 0;
	if (f)
		grow_pipe(f);
}

/*
 * The block, straight to the FILE's descriptor: fwrite would put its first
 * bytes through the FILE's buffer, two write(2)s a block. A write that
 * fails is done again through the FILE, which fails too and keeps the
 * error in its flag for zt_fshut (and the exit check of zt_setprog).
 */
static void write_block(FILE *f, const char *p, size_t n)
{
	int fd = fileno(f);

	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	if (n > 0)
		(void)fwrite(p, 1, n, f);
}

void zt_out_flush(struct zt_out *o)
{
	if (o->f && o->len) {
		/* What the FILE holds goes first. */
		(void)fflush(o->f);
		write_block(o->f, o->buf, o->len);
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

void zt_out_write_slow(struct zt_out *o, const void *p, size_t n)
{
	const char *s = p;

	if (!o->f) {
		zt_out_room(o, n);
	} else {
		if (!o->buf) {
			o->cap = ZT_OUT_BLOCK;
			o->buf = zt_malloc(o->cap);
		}
		/* Whole blocks: the buffer filled to the last byte, then written. */
		while (n > o->cap - o->len) {
			size_t k = o->cap - o->len;

			memcpy(o->buf + o->len, s, k);
			o->len = o->cap;
			zt_out_flush(o);
			s += k;
			n -= k;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static const char pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v's digits, ending at end; returns the first. */
static char *dec_back(char *end, uint64_t v)
{
	char *p = end;

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
	return p;
}

char *zt_fmt_dec(char *p, uint64_t v)
{
	char t[24], *d;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	d = dec_back(t + sizeof t, v);
	memcpy(p, d, (size_t)(t + sizeof t - d));
	return p + (t + sizeof t - d);
}

void zt_out_dec(struct zt_out *o, uint64_t v, int width)
{
	char t[24], *p = dec_back(t + sizeof t, v);

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
