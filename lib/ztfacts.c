/*
 * ztfacts.c — parsing `# zt` comment lines.
 */
#include "ztfacts.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* The value's first word as a number. */
static int num(const char *v, size_t n, uint64_t *out)
{
	char b[32];
	size_t k = 0;

	while (k < n && v[k] != ' ')
		k++;
	if (k == 0 || k >= sizeof b)
		return -1;
	memcpy(b, v, k);
	b[k] = '\0';
	return zt_parse_u64(b, 10, out);
}

static void word(char *dst, size_t cap, const char *v, size_t n)
{
	size_t k = n < cap - 1 ? n : cap - 1;

	memcpy(dst, v, k);
	dst[k] = '\0';
}

const char *zt_facts_line(struct zt_facts *f, const char *s, size_t n)
{
	const char *key, *v, *sp;
	size_t klen, vlen;
	uint64_t x;

	if (n < 5 || memcmp(s, "# zt ", 5) != 0)
		return NULL;
	key = s + 5;
	sp = memchr(key, ' ', n - 5);
	if (!sp)
		return NULL;
	klen = (size_t)(sp - key);
	v = sp + 1;
	vlen = n - (size_t)(v - s);

#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (IS("hz")) {
		if (num(v, vlen, &x) < 0)
			return "'# zt hz' wants a number";
		if (!f->hz)
			f->hz = x;
	} else if (IS("timer")) {
		if (!f->timer[0])
			word(f->timer, sizeof f->timer, v, vlen);
	} else if (IS("lost")) {
		const char *r = memchr(v, ' ', vlen);
		if (num(v, vlen, &x) < 0)
			return "'# zt lost' wants a number";
		f->have_lost = 1;
		f->lost += x;
		if (r && !f->lost_reason[0])
			word(f->lost_reason, sizeof f->lost_reason, r + 1,
			     vlen - (size_t)(r + 1 - v));
	} else if (IS("cpu-ns")) {
		if (num(v, vlen, &x) < 0)
			return "'# zt cpu-ns' wants a number";
		f->have_cpu_ns = 1;
		f->cpu_ns += x;
	} else if (IS("cpu-user-ns") || IS("cpu-sys-ns")) {
		int user = key[4] == 'u';

		if (num(v, vlen, &x) < 0)
			return user ? "'# zt cpu-user-ns' wants a number"
				    : "'# zt cpu-sys-ns' wants a number";
		*(user ? &f->cpu_user_ns : &f->cpu_sys_ns) += x;
		f->cpu_split_seen |= user ? 1u : 2u;
		f->have_cpu_split = f->cpu_split_seen == 3;
	} else if (IS("rate-cap")) {
		/* Why the rate is capped: "kernel-tick" (the POSIX timer). */
		if (!f->rate_cap[0])
			word(f->rate_cap, sizeof f->rate_cap, v, vlen);
	} else if (IS("samples")) {
		if (num(v, vlen, &x) < 0)
			return "'# zt samples' wants a number";
		f->have_samples = 1;
		f->samples += x;
	}
#undef IS
	return NULL;
}
