/*
 * views.c — pprof's -peek and -list over zt's profiles (see views.h).
 */
#include "views.h"
#include "folded.h"
#include "json.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void zt_views_bytes(uint64_t x, char *buf, size_t cap)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = (double)x;
	int u = -1;

	if (x < 1024) {
		snprintf(buf, cap, "%lluB", (unsigned long long)x);
		return;
	}
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, cap, "%.2f%s", d, units[u]);
}

void zt_views_value(const struct zt_view *v, uint64_t x, char *buf, size_t cap)
{
	double d = (double)x;

	if (v->bytes)
		zt_views_bytes(x, buf, cap);
	else if (v->ns && x == 0)
		snprintf(buf, cap, "0");
	else if (v->ns && x >= 1000000000)
		snprintf(buf, cap, "%.2fs", d / 1e9);
	else if (v->ns && x >= 1000000)
		snprintf(buf, cap, "%.2fms", d / 1e6);
	else if (v->ns && x >= 1000)
		snprintf(buf, cap, "%.2fus", d / 1e3);
	else if (v->ns)
		snprintf(buf, cap, "%lluns", (unsigned long long)x);
	else
		snprintf(buf, cap, "%llu", (unsigned long long)x);
}

static double pct(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

static void name_json(FILE *out, const struct zt_profile *p, uint32_t id)
{
	size_t n;
	const char *s = zt_profile_name(p, id, &n);

	zt_json_string(out, s, n);
}

static void edges_json(FILE *out, const struct zt_view *v, const struct zt_edge *e,
		       size_t n, int callers)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		name_json(out, v->p, callers ? e[i].caller : e[i].callee);
		fprintf(out, ", \"count\": %llu}", (unsigned long long)e[i].count);
	}
}

static void edges_text(FILE *out, const struct zt_view *v, const struct zt_edge *e,
		       size_t n, int callers, uint64_t cum)
{
	char b[32];
	size_t nl;
	const char *s;

	for (size_t i = 0; i < n; i++) {
		zt_views_value(v, e[i].count, b, sizeof b);
		s = zt_profile_name(v->p, callers ? e[i].caller : e[i].callee, &nl);
		fprintf(out, "%50s %6.2f%% |   ", b, pct(e[i].count, cum));
		fwrite(s, 1, nl, out);
		fputc('\n', out);
	}
}

size_t zt_views_peek(FILE *out, const struct zt_view *v, struct zt_filter *re,
		     const uint32_t *ids, uint32_t nids)
{
	static const char rule[] = "----------------------------------------------------------+-------------\n";
	size_t matched = 0, nin, nout, nl;
	uint64_t sum = 0;
	char b1[32], b2[32];

	if (v->json)
		fputc('[', out);
	else
		fprintf(out, "%s%10s %7s %7s %10s %7s %7s %6s + context\n%s", rule, "flat",
			"flat%", "sum%", "cum", "cum%", "calls", "calls%", rule);
	for (uint32_t i = 0; i < nids; i++) {
		uint32_t id = ids[i];
		uint64_t self = zt_profile_self(v->p, id), cum = zt_profile_total(v->p, id);
		struct zt_edge *in, *outs;
		const char *s;

		if (!zt_filter_match(re, ZT_FOCUS, id))
			continue;
		in = zt_profile_edges(v->p, id, 1, &nin);
		outs = zt_profile_edges(v->p, id, 0, &nout);
		if (v->json) {
			fprintf(out, "%s\n  {\"name\": ", matched ? "," : "");
			name_json(out, v->p, id);
			fprintf(out, ", \"self\": %llu, \"total\": %llu, \"callers\": [",
				(unsigned long long)self, (unsigned long long)cum);
			edges_json(out, v, in, nin, 1);
			fprintf(out, "], \"callees\": [");
			edges_json(out, v, outs, nout, 0);
			fprintf(out, "]}");
		} else {
			sum += self;
			edges_text(out, v, in, nin, 1, cum);
			zt_views_value(v, self, b1, sizeof b1);
			zt_views_value(v, cum, b2, sizeof b2);
			fprintf(out, "%10s %6.2f%% %6.2f%% %10s %6.2f%%                | ", b1,
				pct(self, v->all), pct(sum, v->all), b2, pct(cum, v->all));
			s = zt_profile_name(v->p, id, &nl);
			fwrite(s, 1, nl, out);
			fputc('\n', out);
			edges_text(out, v, outs, nout, 0, cum);
			fputs(rule, out);
		}
		free(in);
		free(outs);
		matched++;
	}
	if (v->json)
		fprintf(out, "%s]", matched ? "\n" : "");
	return matched;
}

/* One source line of a matched function, from a key "FUNCTION\tPATH:LINE". */
struct srcline {
	uint32_t func;
	const char *path;
	size_t pathlen;
	unsigned long line;
	uint64_t self, total;
};

static int byfunc(const void *a, const void *b, void *arg)
{
	const struct srcline *x = a, *y = b;
	const struct zt_profile *sortp = arg;
	uint64_t tx = zt_profile_total(sortp, x->func), ty = zt_profile_total(sortp, y->func);
	size_t nx, ny;
	const char *sx, *sy;
	int c;

	if (x->func != y->func) {
		if (tx != ty)
			return tx > ty ? -1 : 1;
		sx = zt_profile_name(sortp, x->func, &nx);
		sy = zt_profile_name(sortp, y->func, &ny);
		return zt_folded_cmp(sx, nx, sy, ny);
	}
	if ((c = zt_folded_cmp(x->path, x->pathlen, y->path, y->pathlen)))
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

/* The lines of a source file, or NULL; the caller frees *text and the array. */
static char **read_source(const char *path, const char *srcdir, size_t *n, char **text)
{
	char *buf = NULL, **lines = NULL, *p;
	size_t cap = 0, len = 0, caplines = 0;
	const char *rest = path;
	struct stat st;
	FILE *f = NULL;

	*n = 0;
	f = fopen(path, "r");
	while (!f && srcdir && rest) {
		char *full;
		size_t fl;

		while (*rest == '/' || (rest[0] == '.' && rest[1] == '/'))
			rest += rest[0] == '/' ? 1 : 2;
		fl = strlen(srcdir) + strlen(rest) + 2;
		full = zt_malloc(fl);
		snprintf(full, fl, "%s/%s", srcdir, rest);
		f = fopen(full, "r");
		free(full);
		rest = strchr(rest, '/');
	}
	if (!f)
		return NULL;
	/* A regular file only: a path from the input could name a FIFO or
	   /dev/zero. */
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	for (;;) {
		zt_grow(&buf, &cap, len + 65536, 1);
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	for (p = buf; p < buf + len;) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p));
		zt_grow(&lines, &caplines, *n + 1, sizeof *lines);
		lines[(*n)++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	*text = buf;
	return lines;
}

static void list_block(FILE *out, const struct zt_view *v, const struct srcline *s,
		       size_t n, const char *srcdir, size_t block)
{
	char path[4096], *text = NULL, **src, b1[32], b2[32];
	size_t nsrc = 0, nl, k;
	uint32_t func = s[0].func;
	uint64_t self = zt_profile_self(v->p, func), cum = zt_profile_total(v->p, func);
	const char *name = zt_profile_name(v->p, func, &nl);
	unsigned long from, to;

	snprintf(path, sizeof path, "%.*s", (int)s[0].pathlen, s[0].path);
	src = read_source(path, srcdir, &nsrc, &text);
	if (!src && v->warn) {
		char msg[sizeof path + 128];

		zt_errf(msg, sizeof msg, "cannot read '%s': %s%s", path,
			errno == EINVAL ? "not a regular file" : strerror(errno),
			srcdir ? "" : " (--source-dir names where the sources are)");
		v->warn(msg);
	}
	from = s[0].line > 3 ? s[0].line - 3 : 1;
	to = s[n - 1].line + 3;
	if (src && to > nsrc)
		to = nsrc > s[n - 1].line ? nsrc : s[n - 1].line;
	if (!src)
		from = s[0].line, to = s[n - 1].line;
	if (v->json) {
		fprintf(out, "%s\n  {\"name\": ", block ? "," : "");
		zt_json_string(out, name, nl);
		fprintf(out, ", \"file\": ");
		zt_json_string(out, s[0].path, s[0].pathlen);
		fprintf(out, ", \"self\": %llu, \"total\": %llu, \"source\": %s, \"lines\": [",
			(unsigned long long)self, (unsigned long long)cum, src ? "true" : "false");
	} else {
		fprintf(out, "ROUTINE ======================== ");
		fwrite(name, 1, nl, out);
		fprintf(out, " in %s\n", path);
		zt_views_value(v, self, b1, sizeof b1);
		zt_views_value(v, cum, b2, sizeof b2);
		fprintf(out, "%10s %10s (flat, cum) %.2f%% of total\n", b1, b2, pct(cum, v->all));
	}
	k = 0;
	for (unsigned long l = from, first = 1; l <= to; l++) {
		uint64_t ls = 0, lt = 0;
		const char *t = src && l <= nsrc ? src[l - 1] : NULL;

		while (k < n && s[k].line < l)
			k++;
		if (k < n && s[k].line == l)
			ls = s[k].self, lt = s[k].total;
		if (!src && !lt)
			continue;
		if (v->json) {
			fprintf(out, "%s{\"line\": %lu, \"self\": %llu, \"total\": %llu, \"text\": ",
				first ? "" : ", ", l, (unsigned long long)ls, (unsigned long long)lt);
			if (t)
				zt_json_string(out, t, strlen(t));
			else
				fputs("null", out);
			fputc('}', out);
		} else {
			if (ls)
				zt_views_value(v, ls, b1, sizeof b1);
			else
				strcpy(b1, ".");
			if (lt)
				zt_views_value(v, lt, b2, sizeof b2);
			else
				strcpy(b2, ".");
			fprintf(out, "%10s %10s %6lu:%s\n", b1, b2, l, t ? t : "");
		}
		first = 0;
	}
	if (v->json)
		fputs("]}", out);
	free(src);
	free(text);
}

size_t zt_views_list(FILE *out, const struct zt_view *v, struct zt_filter *re,
		     const struct zt_profile *lp, const char *srcdir)
{
	uint32_t nk = zt_profile_nkeys(lp);
	struct srcline *s = zt_calloc(nk ? nk : 1, sizeof *s);
	size_t n = 0, blocks = 0, funcs = 0;

	for (uint32_t id = 0; id < nk; id++) {
		size_t kl;
		const char *key = zt_profile_name(lp, id, &kl), *tab, *colon;
		int64_t func;
		char *end;
		unsigned long line;

		if (!zt_profile_total(lp, id) || !(tab = memchr(key, '\t', kl)))
			continue;
		colon = memrchr(tab, ':', kl - (size_t)(tab - key));
		if (!colon || colon == tab + 1)
			continue;
		line = strtoul(colon + 1, &end, 10);
		if (end != key + kl || line == 0)
			continue;	/* "??" or no number: nothing to show */
		func = zt_profile_find(v->p, key, (size_t)(tab - key));
		if (func < 0 || !zt_filter_match(re, ZT_FOCUS, (uint32_t)func))
			continue;
		s[n++] = (struct srcline){ (uint32_t)func, tab + 1, (size_t)(colon - tab - 1), line,
					   zt_profile_self(lp, id), zt_profile_total(lp, id) };
	}
	qsort_r(s, n, sizeof *s, byfunc, (void *)v->p);
	if (v->json)
		fputc('[', out);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && s[j].func == s[i].func && s[j].pathlen == s[i].pathlen &&
				memcmp(s[j].path, s[i].path, s[i].pathlen) == 0; j++)
			;
		if (i == 0 || s[i].func != s[i - 1].func)
			funcs++;
		list_block(out, v, s + i, j - i, srcdir, blocks++);
	}
	if (v->json)
		fprintf(out, "%s]", blocks ? "\n" : "");
	free(s);
	return funcs;
}
