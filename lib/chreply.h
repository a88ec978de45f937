/*
 * chreply.h — what zt-ingest reads of ClickHouse's HTTP interface (the
 * server's replies, and the URL it prints), as functions of bytes alone:
 * no network, so that tests/fuzz/fuzz-chreply.c reaches every one.
 */
#ifndef ZT_CHREPLY_H
#define ZT_CHREPLY_H

#include <stddef.h>
#include <stdint.h>

/* A reply as it arrives, in pieces (curl's write callback). */
struct zt_ch_reply {
	char *buf;		/* NUL-terminated once anything was taken */
	size_t len, cap;
};

/* A reply is a count or a message: the first ZT_CH_REPLY_MAX bytes say all of it. */
#define ZT_CH_REPLY_MAX 65536

/* Take the n bytes at p of the reply, as far as they fit within ZT_CH_REPLY_MAX. */
void zt_ch_reply_take(struct zt_ch_reply *r, const char *p, size_t n);

/* Empty r for the next request (its memory is kept). */
void zt_ch_reply_reset(struct zt_ch_reply *r);

/*
 * The reply to a SELECT count(): decimal digits, then any newlines. 0 with
 * the number in *n, -1 when the reply is not that.
 */
int zt_ch_reply_count(const struct zt_ch_reply *r, uint64_t *n);

/*
 * The first line of a server's message into out (cap bytes), every
 * control character made a space, at most 300 bytes, no trailing spaces.
 */
void zt_ch_reply_said(const struct zt_ch_reply *r, char *out, size_t cap);

/* url without "user:password@", for messages (the caller frees it). */
char *zt_ch_shown_url(const char *url);

/* The decimal number s[0..n), into *v: 0, or -1 when it is not one. */
int zt_ch_decimal(const char *s, size_t n, uint64_t *v);

#endif
