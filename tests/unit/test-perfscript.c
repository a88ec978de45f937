/*
 * test-perfscript.c — the perf script line grammar, including the places
 * where stackcollapse-perf.pl's regular expressions split text oddly, and
 * the naming rules of lib/framenames.c.
 */
#include "unit.h"
#include "framenames.h"
#include "input.h"
#include "perfscript.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static char *span(struct zt_span s)
{
	static char b[4][256];
	static int k;
	char *p = b[k++ % 4];

	snprintf(p, 256, "%.*s", (int)s.n, s.p);
	return p;
}

UNIT_TEST(perfscript_header_with_pid_tid_period_and_event)
{
	struct zt_ps_header h;
	const char *l = "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:u: ";

	CHECK(zt_ps_parse_header(l, strlen(l), &h) == 1);
	CHECK_STR(span(h.comm), "V8 WorkerThread");
	CHECK_STR(span(h.pid), "24636");
	CHECK_STR(span(h.tid), "25607");
	CHECK_STR(span(h.event), "cycles:u");
	CHECK_EQ_U(h.period, 100);
}

UNIT_TEST(perfscript_header_with_tid_only_and_no_period)
{
	struct zt_ps_header h;
	const char *l = "swapper     0 [000] 158665.570607: cpu-clock: ";

	CHECK(zt_ps_parse_header(l, strlen(l), &h) == 1);
	CHECK_STR(span(h.comm), "swapper");
	CHECK_EQ_U(h.pid.n, 0);
	CHECK_STR(span(h.tid), "0");
	CHECK_STR(span(h.event), "cpu-clock");
	CHECK_EQ_U(h.period, 1);
}

UNIT_TEST(perfscript_header_tid_zero_counts_as_none_as_in_perl)
{
	struct zt_ps_header h;
	const char *l = "swapper 0/0 1.0: 1 ev:";

	CHECK(zt_ps_parse_header(l, strlen(l), &h) == 1);
	CHECK_EQ_U(h.pid.n, 0);
	CHECK_STR(span(h.tid), "0");
}

UNIT_TEST(perfscript_header_period_overflow_is_reported)
{
	struct zt_ps_header h;
	const char *l = "pp 1 1.0: 18446744073709551616 ev:";

	CHECK(zt_ps_parse_header(l, strlen(l), &h) == -1);
}

/* A span as an offset into its line, or -1 where the parse left it empty. */
static long at(struct zt_span sp, const char *line)
{
	return sp.p ? (long)(sp.p - line) * 1000 + (long)sp.n : -1;
}

/*
 * Headers under 64 bytes are scanned by masks (SSE2), longer ones byte by
 * byte: random short lines of a header's bytes parse as the same line
 * padded past 64 bytes with spaces, which change nothing when it ends in
 * neither a space nor a digit nor '/' (where the ids may end).
 */
UNIT_TEST(perfscript_short_and_long_headers_parse_alike)
{
	static const char alpha[] = "  \t\v\f\r09/5.:[]aj-_x#(+0123456789:";
	unsigned long seed = 99;
	char pool[64], shortl[64], longl[200];
	int bad = 0, headers = 0;

	for (int r = 0; r < 200000; r++) {
		size_t n;
		struct zt_ps_header a, b;
		int ga, gb;

		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		n = 4 + (size_t)(seed >> 40) % 60;
		for (size_t i = 0; i < sizeof pool; i++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			pool[i] = alpha[(seed >> 35) % (sizeof alpha - 1)];
		}
		memcpy(shortl, pool, n);
		/* Most as a header's fields: a command, ids, a time, an event. */
		if (r % 2)
			n = (size_t)snprintf(shortl, sizeof shortl, "%.*s %lu/%lu %lu.%lu: %.*s",
					     (int)((seed >> 20) % 9), pool + 20,
					     (seed >> 8) % 300, (seed >> 12) % 3, (seed >> 4) % 7,
					     (seed >> 30) % 100, (int)((seed >> 44) % 16), pool + 40);
		if (n >= sizeof shortl)
			n = sizeof shortl - 1;
		shortl[n - 1] = "a:]."[(seed >> 50) % 4];
		memset(longl, ' ', sizeof longl);
		memcpy(longl, shortl, n);
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		ga = zt_ps_parse_header(shortl, n, &a);
		gb = zt_ps_parse_header(longl, sizeof longl, &b);
		bad += ga != gb;
		if (ga == 1 && gb == 1) {
			headers++;
			bad += at(a.comm, shortl) != at(b.comm, longl) ||
			       at(a.pid, shortl) != at(b.pid, longl) ||
			       at(a.tid, shortl) != at(b.tid, longl) ||
			       at(a.event, shortl) != at(b.event, longl) || a.period != b.period;
		}
	}
	CHECK_EQ_U(bad, 0);
	CHECK(headers > 50000);
}

UNIT_TEST(perfscript_frame_lines_are_not_headers)
{
	struct zt_ps_header h;
	const char *l = "\t55d0c0a01136 hot_a+0x1d (/tmp/spin)";

	CHECK(zt_ps_parse_header(l, strlen(l), &h) == 0);
}

UNIT_TEST(perfscript_frame_takes_the_last_module_in_parentheses)
{
	struct zt_ps_frame f;
	const char *l = "\t7f1 foo(int) const+0x4 (/lib/a b/x.so) (/lib/x.so)";

	CHECK(zt_ps_parse_frame(l, strlen(l), &f) == 1);
	CHECK_STR(span(f.pc), "7f1");
	CHECK_STR(span(f.sym), "foo(int) const+0x4 (/lib/a b/x.so)");
	CHECK_STR(span(f.mod), "/lib/x.so");
}

UNIT_TEST(perfscript_frame_backtracks_like_perl_when_the_symbol_is_missing)
{
	struct zt_ps_frame f;
	const char *l = "  abc (mod)";

	/* /^\s*(\w+)\s*(.+) \((\S*)\)/ gives pc "ab", symbol "c". */
	CHECK(zt_ps_parse_frame(l, strlen(l), &f) == 1);
	CHECK_STR(span(f.pc), "ab");
	CHECK_STR(span(f.sym), "c");
	CHECK_STR(span(f.mod), "mod");
	CHECK(zt_ps_parse_frame("  a (m)", 7, &f) == 0);
}

static char *names(const char *line, struct zt_framenames_opts o, int java)
{
	struct zt_ps_frame f;
	struct zt_framenames_buf b = { 0 };
	int unknown;
	static char out[512];

	if (!zt_ps_parse_frame(line, strlen(line), &f))
		return NULL;
	zt_framenames_frame(&f, &o, java, &b, &unknown);
	for (size_t i = 0; i < b.len; i++)
		if (b.buf[i] == '\0')
			b.buf[i] = '|';
	snprintf(out, sizeof out, "%.*s", (int)b.len, b.buf ? b.buf : "");
	free(b.buf);
	return out;
}

UNIT_TEST(collapse_tidies_names)
{
	struct zt_framenames_opts o = { 0 };

	CHECK_STR(names("\t1 foo(int, char*)+0x1f (/a)", o, 0), "foo|");
	CHECK_STR(names("\t1 ns::(anonymous namespace)::f(int) (/a)", o, 0),
		  "ns::(anonymous namespace)::f|");
	CHECK_STR(names("\t1 net/http.(*Client).Do (/a)", o, 0), "net/http.(*Client).Do|");
	CHECK_STR(names("\t1 RegExp:[&<>\"'] (/tmp/perf-1.map)", o, 0), "RegExp:[&<>]|");
	CHECK_STR(names("\t1 a;b (/a)", o, 0), "a:b|");
	CHECK_STR(names("\t1 (deleted) (/a)", o, 0), "");
}

UNIT_TEST(collapse_names_unknown_symbols_by_module)
{
	struct zt_framenames_opts o = { 0 }, a = { .addrs = 1 };

	CHECK_STR(names("\t7f12 [unknown] (/usr/lib/libc.so.6)", o, 0), "[libc.so.6]|");
	CHECK_STR(names("\t7f12 [unknown] ([unknown])", o, 0), "[unknown]|");
	CHECK_STR(names("\t7f12 [unknown] (/usr/lib/libc.so.6)", a, 0), "[libc.so.6 <7f12>]|");
}

UNIT_TEST(collapse_annotates_kernel_jit_and_inlined_frames)
{
	struct zt_framenames_opts all = { .kernel = 1, .jit = 1 };

	CHECK_STR(names("\tffff81 schedule ([kernel.kallsyms])", all, 0), "schedule_[k]|");
	CHECK_STR(names("\t8c3453 tcp_sendmsg (/lib/modules/4.3/build/vmlinux)", all, 0),
		  "tcp_sendmsg_[k]|");
	CHECK_STR(names("\t7f72 Lfoo/Bar;::run (/tmp/perf-19982.map)", all, 1),
		  "foo/Bar:::run_[j]|");
	CHECK_STR(names("\t1 a->b->c+0x3 (/x)", all, 0), "a|b_[i]|c_[i]|");
	CHECK_STR(names("\t1 a-> (/x)", all, 0), "a|");
}

UNIT_TEST(collapse_srcline_drops_brackets_and_space)
{
	struct zt_framenames_buf b = { 0 };

	zt_framenames_srcline("  spin.c:12 [inlined]  ", 23, &b);
	CHECK(b.len == 10 && memcmp(b.buf, ":spin.c:12", 10) == 0);
	b.len = 0;
	zt_framenames_srcline("  [x] ", 6, &b);
	CHECK_EQ_U(b.len, 0);
	free(b.buf);
}

UNIT_TEST(perfscript_next_places_a_bad_line_and_ends_with_eof)
{
	static const char text[] = "p 1/1 1.0: 1 ev:\n\t1 a (m)\n\n\t1 b (m)\n";
	int fd = memfd_create("ps", 0);
	struct zt_input *in;
	struct zt_ps_reader *r;
	struct zt_ps_item it;
	char err[128] = "";

	if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1))
		abort();
	lseek(fd, 0, SEEK_SET);
	in = zt_input_fdopen(fd, "'p'");
	r = zt_ps_reader_new(in);
	CHECK(zt_ps_next(r, &it, err, sizeof err) == 1 && it.kind == ZT_PS_HEADER);
	CHECK(zt_ps_next(r, &it, err, sizeof err) == 1 && it.kind == ZT_PS_FRAME);
	CHECK(zt_ps_next(r, &it, err, sizeof err) == 1 && it.kind == ZT_PS_END);
	CHECK(zt_ps_next(r, &it, err, sizeof err) == -1);
	CHECK_STR(err, "'p': line 4: frame line outside a record (no header before it)");
	zt_ps_reader_free(r);
	zt_input_close(in);

	/* Without an input, the line alone names the place. */
	r = zt_ps_reader_new(NULL);
	CHECK(zt_ps_line(r, "???", 3, 7, &it, err, sizeof err) == -1);
	CHECK_STR(err, "line 7: not a record header, a frame or a source line");
	CHECK(zt_ps_line(r, "", 0, 8, &it, err, sizeof err) == 0);
	zt_ps_finish(r, 8, &it);
	CHECK(it.kind == ZT_PS_EOF && it.unterminated == 0);
	zt_ps_reader_free(r);
}
