/*
 * test-stage.c — records folded in memory by zt_stage_folded: the stacks,
 * counts, line numbers and weight declaration the folded reader hands out
 * are those of the text zt-fold --weight=count writes of the same records,
 * and the reader's checks hold on stacks in memory as on lines.
 */
#include "unit.h"
#include "folded.h"
#include "input.h"
#include "perfscriptfold.h"
#include "stage.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static struct zt_input *from_text(const char *text, const char *name)
{
	int fd = memfd_create("in", 0);
	size_t n = strlen(text);

	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		abort();
	lseek(fd, 0, SEEK_SET);
	return zt_input_fdopen(fd, name);
}

/* Three records of two threads; the last two have the same stack. */
static const char script[] =
	"prog 10/11 1.000: 1010101 cpu-clock:\n"
	"\t401000 leaf+0x10 (/bin/prog)\n"
	"\t401100 main+0x5 (/bin/prog)\n"
	"\n"
	"prog 10/12 1.004: 1010101 cpu-clock:\n"
	"\t401200 other+0x1 (/bin/prog)\n"
	"\t401100 main+0x5 (/bin/prog)\n"
	"\n"
	"prog 10/11 1.008: 1010101 cpu-clock:\n"
	"\t401200 other+0x1 (/bin/prog)\n"
	"\t401100 main+0x5 (/bin/prog)\n"
	"\n";

/* What zt_stage_folded does, through the text zt-fold writes: the lines. */
static char *folded_text(void)
{
	struct zt_stage *s = zt_stage_open_input(from_text(script, "'t'"), NULL, 0);
	struct zt_framenames_opts co = { 0 };
	struct zt_stage_events ev = { 0 };
	struct zt_perfscriptfold *f;
	char err[ZT_ERR_MAX], wline[160], *text = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&text, &n);

	co.count = 1;
	f = zt_perfscriptfold_new(&co);
	if (!s || !mem || zt_stage_records(s, NULL, err, sizeof err) < 0 ||
	    zt_stage_fold(s, f, &ev, err, sizeof err) < 0)
		abort();
	free(zt_stage_events_end(&ev));
	zt_perfscriptfold_weight_line(f, wline, sizeof wline);
	fprintf(mem, "%s\n", wline);
	zt_perfscriptfold_write(f, mem);
	fclose(mem);
	zt_perfscriptfold_free(f);
	zt_stage_close(s);
	return text;
}

UNIT_TEST(stage_folds_records_in_memory_as_the_text_zt_fold_writes)
{
	struct zt_stage *s = zt_stage_open_input(from_text(script, "'t'"), NULL, 0);
	struct zt_input *in = NULL;
	struct zt_folded_reader mem, txt;
	struct zt_folded_item a, b;
	char err[ZT_ERR_MAX] = "", *text = folded_text();
	int ga, gb, n = 0;

	CHECK(s != NULL);
	CHECK(zt_stage_kind(s) == ZT_STAGE_SCRIPT);
	CHECK(zt_stage_folded(s, &mem, NULL, err, sizeof err) == 0);
	CHECK(!zt_stage_empty(s));
	in = from_text(text, "'t'");
	zt_folded_reader_init(&txt, in);
	mem.weighed = txt.weighed = 1;
	do {
		ga = zt_folded_read(&mem, &a, err, sizeof err);
		gb = zt_folded_read(&txt, &b, err, sizeof err);
		CHECK(ga == gb);
		if (ga == 1 && gb == 1) {
			CHECK(a.stacklen == b.stacklen && memcmp(a.stack, b.stack, a.stacklen) == 0);
			CHECK_EQ_U(a.count, b.count);
			CHECK_EQ_U(a.lineno, b.lineno);
			CHECK_EQ_U(a.linelen, 0);
			n++;
		}
	} while (ga == 1 && gb == 1);
	CHECK(n == 2);
	CHECK(mem.w.kind == txt.w.kind && mem.w.kind == ZT_WEIGHT_SAMPLES);
	CHECK_EQ_U(mem.w.n, 2);
	CHECK_STR(zt_folded_reader_name(&mem), "'t'");
	CHECK_STR(err, "");
	/* A second call reads the same stacks again, from the start. */
	CHECK(zt_stage_folded(s, &mem, NULL, err, sizeof err) == 0);
	CHECK(zt_folded_read(&mem, &a, err, sizeof err) == 1);
	CHECK(a.count == 1 && a.lineno == 2);
	CHECK(a.stacklen == 14 && memcmp(a.stack, "prog;main;leaf", 14) == 0);
	zt_input_close(in);
	free(text);
	zt_stage_close(s);
}

UNIT_TEST(folded_reader_checks_stacks_in_memory_as_lines)
{
	struct zt_folded_line line[2] = { { 0, 3, 5 }, { 3, 0, 1 } };
	char text[] = "a;b", decl[] = "# zt weight: samples";
	struct zt_folded_stacks fs = { NULL, text, line, 1 };
	struct zt_folded_reader r;
	struct zt_folded_item it;
	char err[ZT_ERR_MAX] = "";

	/* No declaration: the stacks are lines 1 and on. */
	zt_folded_reader_init_stacks(&r, &fs, "'m'");
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(it.lineno == 1 && it.count == 5 && it.stacklen == 3);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 0);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 0);	/* and stays at the end */
	/* An empty stack is refused at its line, as " 1" would be. */
	fs.decl = decl;
	fs.n = 2;
	zt_folded_reader_init_stacks(&r, &fs, "'m'");
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 1);
	CHECK(it.lineno == 2);
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == -1);
	CHECK_STR(err, "'m': line 3: empty stack");
	/* None at all: "no stacks", unless none_ok. */
	fs.n = 0;
	zt_folded_reader_init_stacks(&r, &fs, "'m'");
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == -1);
	CHECK_STR(err, "'m': no stacks");
	zt_folded_reader_init_stacks(&r, &fs, "'m'");
	r.none_ok = 1;
	CHECK(zt_folded_read(&r, &it, err, sizeof err) == 0);
}
