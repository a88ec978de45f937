/*
 * fuzz-perfscript.c — libFuzzer target for the perf script reader and the
 * folding behind zt-fold and zt-stat (lib/perfscript.c, lib/framenames.c,
 * lib/perfscriptfold.c, lib/perfscriptprofile.c), the `# zt` facts
 * (lib/factlines.c), weights (lib/weight.c), filters (lib/filter.c) and
 * zt-stat's views (lib/views.c). Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-perfscript tests/fuzz/corpus-perfscript
 * The first byte picks the options; the rest is split into lines, each
 * copied to a buffer of its exact size so that AddressSanitizer sees any
 * read past a line's end; a header line under 64 bytes (scanned by SSE2
 * masks) must parse as the same line padded past 64 bytes (scanned byte by
 * byte). The same bytes are then read as a file, with and without repeats
 * (zt_ps_reader_set_repeats: a record seen before is found by lib/critbit.c
 * and not read again): both must fold to the same bytes, or fail with the
 * same message.
 */
#define FUZZ_NAME "fuzz-perfscript"
#include "fuzz.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfscriptfold.h"
#include "input.h"
#include "perfscript.h"
#include "profile.h"
#include "perfscriptprofile.h"
#include "views.h"
#include "weight.h"
#include "event.h"
#include "factlines.h"

/* The folded bytes of data read as a file, into *out; the reader's result. */
static int fold_file(const uint8_t *data, size_t size, const struct zt_framenames_opts *o,
		     unsigned flags, int repeats, char **out, size_t *outlen, char *err,
		     size_t errlen)
{
	int fd = fuzz_memfd(data, size), got;
	struct zt_input *in;
	struct zt_ps_reader *r;
	struct zt_perfscriptfold *fold;
	struct zt_ps_item it;
	FILE *f;

	if (fd < 0)
		abort();
	in = zt_input_fdopen(fd, "fuzz");
	/* A small buffer, so that records straddle it and runs are quick. */
	zt_input_set_max_line(in, 4096);
	r = zt_ps_reader_new(in);
	zt_ps_reader_set_repeats(r, repeats);
	fold = zt_perfscriptfold_new(o);
	if (flags & 1)
		zt_filter_set(zt_perfscriptfold_filter(fold), ZT_FOCUS, "[a-m]", err, errlen);
	if (flags & 4)
		zt_filter_set(zt_perfscriptfold_filter(fold), ZT_HIDE, "[0-9e]", err, errlen);
	err[0] = '\0';
	while ((got = zt_ps_next(r, &it, err, errlen)) > 0)
		if (zt_perfscriptfold_item(fold, &it)) {
			snprintf(err, errlen, "line %lu: overflow", it.lineno);
			got = -1;
			break;
		}
	if (!(f = open_memstream(out, outlen)))
		abort();
	if (got == 0) {
		fprintf(f, "%lu records, line %lu, unterminated %lu\n",
			(unsigned long)zt_perfscriptfold_records(fold), it.lineno,
			it.unterminated);
		zt_perfscriptfold_write(fold, f);
	}
	fclose(f);
	zt_perfscriptfold_free(fold);
	zt_ps_reader_free(r);
	zt_input_close(in);
	return got;
}

/* Reading with repeats changes nothing that is folded or said. */
static void same_with_repeats(const uint8_t *data, size_t size, unsigned flags)
{
	struct zt_framenames_opts o = { .pid = flags & 1, .tid = flags & 2, .kernel = flags & 4,
				      .jit = flags & 8, .addrs = flags & 16, .srcline = flags & 32 };
	char *a, *b, ea[256], eb[256];
	size_t na, nb;
	int ga = fold_file(data, size, &o, flags, 0, &a, &na, ea, sizeof ea);
	int gb = fold_file(data, size, &o, flags, 1, &b, &nb, eb, sizeof eb);

	if (ga != gb || na != nb || memcmp(a, b, na) != 0 || (ga < 0 && strcmp(ea, eb) != 0))
		abort();
	free(a);
	free(b);
}

/*
 * A header of 16 to 63 bytes is scanned by SSE2 masks, a longer one byte by
 * byte: padded with spaces past 64 bytes, a line that ends in neither a
 * space nor a digit nor '/' (where the ids may end) parses the same.
 */
static void same_padded(const char *line, size_t len)
{
	char pad[128];
	struct zt_ps_header a, b;
	int ga, gb;
	unsigned char last = len ? (unsigned char)line[len - 1] : ' ';

	if (len < 16 || len >= 64 || last == ' ' || (last >= '\t' && last <= '\r') ||
	    (last >= '0' && last <= '9') || last == '/')
		return;
	memset(pad, ' ', sizeof pad);
	memcpy(pad, line, len);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	ga = zt_ps_parse_header(line, len, &a);
	gb = zt_ps_parse_header(pad, sizeof pad, &b);
	if (ga != gb)
		abort();
	if (ga == 1 && (a.comm.p - line != b.comm.p - pad || a.comm.n != b.comm.n ||
			a.pid.p - line != b.pid.p - pad || a.pid.n != b.pid.n ||
			a.tid.p - line != b.tid.p - pad || a.tid.n != b.tid.n ||
			a.event.n != b.event.n || (a.event.n && a.event.p - line != b.event.p - pad) ||
			a.period != b.period))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct zt_framenames_opts o = { 0 };
	struct zt_perfscriptfold *fold;
	struct zt_ps_reader *r;
	struct zt_profile *p;
	struct zt_psprof *pp;
	struct zt_ps_item it;
	struct zt_facts facts = { 0 };
	struct zt_weight w = { 0 };
	struct zt_filter *pf, *peek;
	struct zt_profile *lp;
	unsigned long lineno = 0;
	uint64_t div;
	char err[128];
	size_t i = 1;
	int failed = 0, got;

	if (size < 1)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	o.pid = data[0] & 1;
	o.tid = data[0] & 2;
	o.kernel = data[0] & 4;
	o.jit = data[0] & 8;
	o.addrs = data[0] & 16;
	o.srcline = data[0] & 32;
	fold = zt_perfscriptfold_new(&o);
	r = zt_ps_reader_new(NULL);
	/* --event: a view from the last byte (lib/event.h), the default most often. */
	if (size > 1 && data[size - 1] % 4 == 0)
		zt_ps_reader_set_view(r, data[size - 1] / 4 % ZT_VIEWS);
	p = zt_profile_new();
	lp = zt_profile_new();
	pp = zt_psprof_new(p, (enum zt_by)((data[0] >> 6) & 3));
	pf = zt_filter_new(zt_profile_name_fn, p);
	peek = zt_filter_new(zt_profile_name_fn, p);
	if (data[0] & 1) {
		zt_filter_set(zt_perfscriptfold_filter(fold), ZT_FOCUS, "[a-m]", err, sizeof err);
		zt_filter_set(pf, ZT_FOCUS, "[a-m]", err, sizeof err);
	}
	if (data[0] & 2) {
		zt_filter_set(zt_perfscriptfold_filter(fold), ZT_IGNORE, "^x|y$", err, sizeof err);
		zt_filter_set(pf, ZT_IGNORE, "^x|y$", err, sizeof err);
	}
	if (data[0] & 4) {
		zt_filter_set(zt_perfscriptfold_filter(fold), ZT_HIDE, "[0-9e]", err, sizeof err);
		zt_filter_set(pf, ZT_HIDE, "[0-9e]", err, sizeof err);
	}
	zt_filter_set(peek, ZT_FOCUS, "a|^$", err, sizeof err);
	zt_profile_set_filter(p, pf);
	zt_profile_track_edges(p);
	if (((data[0] >> 6) & 3) == ZT_BY_FUNCTION)
		zt_psprof_set_lines(pp, lp);
	while (i < size && !failed) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = malloc(len ? len : 1);

		memcpy(line, data + i, len);
		same_padded(line, len);
		got = zt_ps_line(r, line, len, ++lineno, &it, err, sizeof err);
		if (got < 0) {
			/* Placed by the line alone: the reader has no input. */
			if (strncmp(err, "line ", 5) != 0)
				abort();
			failed = 1;
		}
		if (got > 0) {
			if (zt_perfscriptfold_item(fold, &it))
				failed = 1;
			else
				zt_psprof_item(pp, &it);
			if (it.kind == ZT_PS_COMMENT)
				zt_factlines_line(&facts, it.text.p, it.text.n);
			if (it.kind == ZT_PS_HEADER)
				zt_weight_record(&w, it.header.event.p, it.header.event.n,
						 it.header.period);
		}
		free(line);
		i += len + 1;
	}
	if (!failed) {
		uint32_t n;
		uint32_t *ids = zt_profile_sorted_by(p, &n, data[0] & 8);
		struct zt_view v = { p, zt_profile_samples(p), data[0] & 16, data[0] & 32 };
		char line[160];

		zt_ps_finish(r, lineno, &it);
		zt_perfscriptfold_write(fold, devnull);
		zt_perfscriptfold_weight_line(fold, line, sizeof line);
		if (zt_profile_kept(p) > zt_profile_samples(p))
			abort();
		for (uint32_t j = 0; j < n; j++)
			if (zt_profile_self(p, ids[j]) > zt_profile_total(p, ids[j]))
				abort();
		if (!zt_weight_samples(&w, &div) && div > 1)
			zt_profile_divide(p, div);
		zt_views_peek(devnull, &v, peek, ids, n);
		zt_views_list(devnull, &v, peek, lp, NULL);
		free(ids);
	}
	same_with_repeats(data + 1, size - 1, data[0]);
	zt_filter_free(pf);
	zt_filter_free(peek);
	zt_psprof_free(pp);
	zt_profile_free(lp);
	zt_profile_free(p);
	zt_ps_reader_free(r);
	zt_perfscriptfold_free(fold);
	return 0;
}
