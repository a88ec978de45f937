/*
 * fuzz-labels.c — libFuzzer target for the label facts of a stream ("# zt label
 * KEY VALUE", "# zt host NAME": zt_factlines_label, lib/factlines.c) and what
 * zt-fold --root=label:NAME makes of them (lib/perfscriptfold.c): each line of
 * the input is parsed alone, then the whole input is read as a stream
 * (lib/stage.c, as zt-fold reads one) and folded with its root the input's
 * value of a label, and the folded lines must read back. Build with
 * `make fuzz`; run
 *   tests/fuzz/bin/fuzz-labels tests/fuzz/corpus-labels
 * The first byte picks the label: "service", "host" or "k".
 */
#define FUZZ_NAME "fuzz-labels"
#include "fuzz.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "factlines.h"
#include "perfscriptfold.h"
#include "folded.h"
#include "rawfmt.h"
#include "stage.h"
#include "util.h"

/* One line, copied to a buffer of its exact size. */
static void one_line(const uint8_t *data, size_t len)
{
	static const char label[] = "# zt label ", host[] = "# zt host ";
	char *s = malloc(len ? len : 1);
	const char *k, *v;
	size_t kn, vn;

	memcpy(s, data, len);
	if (zt_factlines_label(s, len, &k, &kn, &v, &vn)) {
		/* The value runs to the line's end, within it. */
		CHECK(v >= s && v <= s + len && v + vn == s + len);
		if (len > sizeof host - 1 && memcmp(s, host, sizeof host - 1) == 0) {
			CHECK(kn == 4 && memcmp(k, "host", 4) == 0 && v == s + sizeof host - 1);
		} else {
			CHECK(len > sizeof label - 1 && memcmp(s, label, sizeof label - 1) == 0);
			CHECK(k == s + sizeof label - 1 && k + kn <= v && !memchr(k, ' ', kn));
			CHECK(v == k + kn || (v == k + kn + 1 && k[kn] == ' '));
		}
	} else {
		CHECK(!(len > sizeof host - 1 && memcmp(s, host, sizeof host - 1) == 0));
		CHECK(!(len > sizeof label - 1 && memcmp(s, label, sizeof label - 1) == 0));
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "service", "host", "k" };
	struct zt_framenames_opts o = { 0 };
	struct zt_stage_events ev = { 0 };
	struct zt_symopts so = { .sysroot = "/nonexistent-zt-fuzz" };
	char err[ZT_ERR_MAX] = "", *text = NULL, *msg;
	size_t i = 0, len = 0;
	struct zt_stage *st;
	struct zt_perfscriptfold *f;
	struct zt_input *in;
	FILE *mem;
	int fd, rc;

	if (size == 0)
		return 0;
	o.root.how = ZT_ROOT_LABEL;
	o.root.name = names[data[0] % 3];
	data++;
	size--;
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (data + i)) : size - i;

		one_line(data + i, n);
		i += n + 1;
	}
	if ((fd = fuzz_memfd(data, size)) < 0)
		abort();
	in = zt_input_fdopen(fd, "fuzz");
	st = zt_stage_open_input(in, err, sizeof err);
	if (!st) {
		CHECK(err[0]);
		return 0;
	}
	if (zt_stage_kind(st) == ZT_STAGE_FOLDED || zt_stage_kind(st) == ZT_STAGE_DIFF) {
		zt_stage_close(st);
		return 0;
	}
	f = zt_perfscriptfold_new(&o);
	rc = zt_stage_records(st, &so, err, sizeof err);
	zt_perfscriptfold_next_input(f);
	if (rc == 0)
		rc = zt_stage_fold(st, f, &ev, err, sizeof err);
	CHECK(rc == 0 || err[0]);
	msg = zt_stage_events_end(&ev);
	free(msg);
	mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	if (rc == 0)
		zt_perfscriptfold_write(f, mem);
	fclose(mem);
	/* Every line zt-fold wrote reads back as a folded stack whose root
	   frame is "[no NAME]", "[empty NAME]" or a value with no ';' or space. */
	for (char *line = text, *nl; line < text + len; line = nl + 1) {
		size_t sl, root;
		uint64_t count;

		nl = memchr(line, '\n', (size_t)(text + len - line));
		CHECK(nl);
		if (line[0] == '#')
			continue;
		CHECK(zt_folded_parse(line, (size_t)(nl - line), &sl, &count) == 0);
		/* A stack may be its root alone: "ROOT COUNT". */
		root = strcspn(line, ";\n");
		if (root > sl)
			root = sl;
		CHECK(root > 0 && root <= ZT_LABEL_VALUE_MAX);
		if (line[0] == '[' && line[root - 1] == ']' && memchr(line, ' ', root)) {
			size_t nn = strlen(o.root.name);

			CHECK((root == nn + 5 && memcmp(line, "[no ", 4) == 0) ||
			      (root == nn + 8 && memcmp(line, "[empty ", 7) == 0));
			CHECK(memcmp(line + root - 1 - nn, o.root.name, nn) == 0);
		} else {
			CHECK(!memchr(line, ' ', root));
		}
	}
	free(text);
	zt_perfscriptfold_free(f);
	zt_stage_close(st);
	return 0;
}
