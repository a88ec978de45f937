/*
 * chreply.c — ClickHouse's replies and zt-ingest's URL in messages
 * (chreply.h).
 */
#include "chreply.h"
#include "util.h"

#include <string.h>

void zt_ch_reply_take(struct zt_ch_reply *r, const char *p, size_t n)
{
	/* What fits of the piece, so that the reply kept is its start, in
	   one piece: a piece past the limit is cut, and the rest are
	   left out (a piece dropped whole, and a smaller one after it
	   taken, would splice two parts of a reply into one). */
	if (r->len >= ZT_CH_REPLY_MAX - 1)
		return;
	if (n > ZT_CH_REPLY_MAX - 1 - r->len)
		n = ZT_CH_REPLY_MAX - 1 - r->len;
	zt_grow(&r->buf, &r->cap, r->len + n + 1, 1);
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	r->buf[r->len] = '\0';
}

void zt_ch_reply_reset(struct zt_ch_reply *r)
{
	r->len = 0;
	if (r->buf)
		r->buf[0] = '\0';
}

int zt_ch_decimal(const char *s, size_t n, uint64_t *v)
{
	*v = 0;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || *v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

int zt_ch_reply_count(const struct zt_ch_reply *r, uint64_t *n)
{
	size_t len = r->len;

	while (len > 0 && r->buf[len - 1] == '\n')
		len--;
	if (!r->buf)
		return -1;
	return zt_ch_decimal(r->buf, len, n);
}

void zt_ch_reply_said(const struct zt_ch_reply *r, char *out, size_t cap)
{
	size_t j = 0;

	for (size_t i = 0; r->buf && i < r->len && j + 1 < cap && j < 300; i++) {
		unsigned char c = (unsigned char)r->buf[i];

		if (c == '\n' && j > 0)
			break;
		out[j++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	out[j] = '\0';
	while (j > 0 && out[j - 1] == ' ')
		out[--j] = '\0';
}

char *zt_ch_shown_url(const char *url)
{
	const char *host = strstr(url, "://"), *at, *slash;
	char *s;

	host = host ? host + 3 : url;
	slash = strpbrk(host, "/?#");
	/* The last '@' of the authority: a password may hold one too. */
	at = memrchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	if (!at)
		return zt_strdup(url);
	s = zt_malloc((size_t)(host - url) + strlen(at + 1) + 1);
	memcpy(s, url, (size_t)(host - url));
	strcpy(s + (host - url), at + 1);
	return s;
}
