/*
 * framenames.c — frame naming as stackcollapse-perf.pl (FlameGraph 41fee1f)
 * does it: offsets stripped, [unknown] replaced by the module, names tidied,
 * Java names condensed, annotations appended. The rules are listed in
 * tests/data/perf-script/README.md and formats/folded.md.
 */
#include "framenames.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void zt_framenames_buf_add(struct zt_framenames_buf *b, const void *p, size_t n)
{
	zt_grow(&b->buf, &b->cap, b->len + n + 1, 1);
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void zt_framenames_root(const struct zt_ps_header *h,
			const struct zt_framenames_opts *o, struct zt_framenames_buf *out)
{
	size_t start = out->len;

	if (o->root.how == ZT_ROOT_RENAME) {
		zt_framenames_buf_add(out, o->root.name, strlen(o->root.name));
		return;
	}
	zt_framenames_buf_add(out, h->comm.p, h->comm.n);
	if (o->pid || o->tid) {
		zt_framenames_buf_add(out, "-", 1);
		if (h->pid.n)
			zt_framenames_buf_add(out, h->pid.p, h->pid.n);
		else
			zt_framenames_buf_add(out, "?", 1);
	}
	if (o->tid) {
		zt_framenames_buf_add(out, "/", 1);
		zt_framenames_buf_add(out, h->tid.p, h->tid.n);
	}
	for (size_t i = start; i < out->len; i++)
		if (out->buf[i] == ' ')
			out->buf[i] = '_';
}

static int has(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* m:/tmp/perf-\d+\.map: anywhere in the module path. */
static int is_jit_map(const char *m, size_t n)
{
	const char *p = m, *end = m + n;

	while ((p = memmem(p, (size_t)(end - p), "/tmp/perf-", 10))) {
		const char *d = p + 10, *q = d;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > d && end - q >= 4 && memcmp(q, ".map", 4) == 0)
			return 1;
		p++;
	}
	return 0;
}

/* Where /\((?!anonymous namespace\))/ first matches, or n. */
static size_t noise_paren(const char *s, size_t n)
{
	static const char anon[] = "anonymous namespace)";
	const size_t alen = sizeof anon - 1;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '(' && !(n - i - 1 >= alen &&
				     memcmp(s + i + 1, anon, alen) == 0))
			return i;
	return n;
}

/* /\.\(.*\)\./ — a Go method such as net/http.(*Client).Do. */
static int is_go_method(const char *s, size_t n)
{
	const char *open = memmem(s, n, ".(", 2);

	if (!open)
		return 0;
	for (size_t j = n; j-- > (size_t)(open - s) + 2;)
		if (j + 1 < n && s[j] == ')' && s[j + 1] == '.')
			return 1;
	return 0;
}

/* Tidy and annotate one name, appending it and its '\0' to out. */
static void add_name(const char *s, size_t n, const struct zt_ps_frame *f,
		     const struct zt_framenames_opts *o, int java, int inlined,
		     struct zt_framenames_buf *out)
{
	size_t start = out->len, i, j;
	char *t;

	zt_framenames_buf_add(out, s, n);
	t = out->buf + start;
	for (i = 0; i < n; i++)
		if (t[i] == ';')
			t[i] = ':';
	if (!is_go_method(t, n))
		n = noise_paren(t, n);
	for (i = j = 0; i < n; i++)
		if (t[i] != '"' && t[i] != '\'')
			t[j++] = t[i];
	n = j;
	if (java && n > 0 && t[0] == 'L' && memchr(t, '/', n)) {
		memmove(t, t + 1, n - 1);
		n--;
	}
	out->len = start + n;
	if (inlined) {
		if (!has(out->buf + start, n, "_[i]"))
			zt_framenames_buf_add(out, "_[i]", 4);
	} else if (o->kernel && f->mod.n > 0 &&
		   !(f->mod.n == 9 && memcmp(f->mod.p, "[unknown]", 9) == 0) &&
		   (f->mod.p[0] == '[' ||
		    (f->mod.n >= 7 &&
		     memcmp(f->mod.p + f->mod.n - 7, "vmlinux", 7) == 0))) {
		zt_framenames_buf_add(out, "_[k]", 4);
	} else if (o->jit && is_jit_map(f->mod.p, f->mod.n)) {
		if (!has(out->buf + start, n, "_[j]"))
			zt_framenames_buf_add(out, "_[j]", 4);
	}
	zt_framenames_buf_add(out, "", 1);	/* its NUL: buf_add keeps room for it */
	out->buf[out->len - 1] = '\0';
}

int zt_framenames_frame(const struct zt_ps_frame *f,
			const struct zt_framenames_opts *o, int java,
			struct zt_framenames_buf *out, int *unknown)
{
	const char *s = f->sym.p, *end, *piece, *arrow, *plus;
	size_t n = f->sym.n, last;
	int count = 0;
	struct zt_framenames_buf tmp = { 0 };

	*unknown = 0;
	/* s/\+0x[\da-f]+$// — only the last "+0x" can be followed by hex alone. */
	for (plus = NULL, piece = s; (piece = memmem(piece, (size_t)(s + n - piece), "+0x", 3)); piece++)
		plus = piece;
	if (plus && plus + 3 < s + n) {
		const char *q = plus + 3;
		while (q < s + n && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
			q++;
		if (q == s + n)
			n = (size_t)(plus - s);
	}
	if (n > 0 && s[0] == '(')
		return 0;		/* a process name */
	end = s + n;
	/* split /->/, dropping trailing empty fields as Perl does */
	while (end - s >= 2 && end[-2] == '-' && end[-1] == '>')
		end -= 2;
	if (end == s)
		return 0;
	for (piece = s;; piece = arrow + 2) {
		arrow = memmem(piece, (size_t)(end - piece), "->", 2);
		last = arrow ? (size_t)(arrow - piece) : (size_t)(end - piece);
		if (last == 9 && memcmp(piece, "[unknown]", 9) == 0) {
			const char *m = f->mod.p, *slash;
			size_t mn = f->mod.n;

			tmp.len = 0;
			zt_framenames_buf_add(&tmp, "[", 1);
			if (mn == 9 && memcmp(m, "[unknown]", 9) == 0) {
				zt_framenames_buf_add(&tmp, "unknown", 7);
			} else {
				slash = memrchr(m, '/', mn);
				if (slash) {
					mn -= (size_t)(slash + 1 - m);
					m = slash + 1;
				}
				zt_framenames_buf_add(&tmp, m, mn);
			}
			if (o->addrs) {
				zt_framenames_buf_add(&tmp, " <", 2);
				zt_framenames_buf_add(&tmp, f->pc.p, f->pc.n);
				zt_framenames_buf_add(&tmp, ">", 1);
			}
			zt_framenames_buf_add(&tmp, "]", 1);
			add_name(tmp.buf, tmp.len, f, o, java, count > 0, out);
			*unknown = 1;
		} else {
			add_name(piece, last, f, o, java, count > 0, out);
		}
		count++;
		if (!arrow)
			break;
	}
	free(tmp.buf);
	return count;
}

void zt_framenames_srcline(const char *s, size_t n, struct zt_framenames_buf *out)
{
	struct zt_framenames_buf t = { 0 };
	size_t i = 0, a, b;

	/* s/\[.*?\]//g */
	while (i < n) {
		const char *close;
		if (s[i] == '[' && (close = memchr(s + i + 1, ']', n - i - 1))) {
			i = (size_t)(close - s) + 1;
			continue;
		}
		zt_framenames_buf_add(&t, s + i, 1);
		i++;
	}
	a = 0;
	b = t.len;
	while (a < b && t.buf[a] && strchr(" \t\r\n\f\v", t.buf[a]))
		a++;
	while (b > a && t.buf[b - 1] && strchr(" \t\r\n\f\v", t.buf[b - 1]))
		b--;
	if (b > a) {
		zt_framenames_buf_add(out, ":", 1);
		zt_framenames_buf_add(out, t.buf + a, b - a);
	}
	free(t.buf);
}
