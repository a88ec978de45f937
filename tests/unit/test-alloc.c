/*
 * test-alloc.c — allocation profiles (raw version 6): objects rounded per
 * stack (zt_raw_objects), the views --event names (lib/event.h), the
 * folded weight lines of bytes and objects (lib/weight.c), and the
 * allocation facts written and read back (lib/factlines.c).
 */
#include "unit.h"
#include "event.h"
#include "factlines.h"
#include "raw.h"
#include "rawfmt.h"
#include "weight.h"

#include <stdlib.h>

UNIT_TEST(alloc_objects_round_half_up)
{
	/* 524320 / 64 = 8192.5: 8193; a line's share is what it moves the sum by. */
	CHECK_EQ_U(zt_raw_objects(524320, 64), 8193);
	CHECK_EQ_U(zt_raw_objects(2 * 524320, 64) - zt_raw_objects(524320, 64), 8192);
	CHECK_EQ_U(zt_raw_objects(3 * 524320, 64), 24578);
	CHECK_EQ_U(zt_raw_objects(99, 100), 1);
	CHECK_EQ_U(zt_raw_objects(149, 100), 1);
	CHECK_EQ_U(zt_raw_objects(150, 100), 2);
	CHECK_EQ_U(zt_raw_objects(0, 7), 0);
	/* No overflow at the edges: sizes to 2^63, bytes to 2^64 - 1. */
	CHECK_EQ_U(zt_raw_objects(UINT64_MAX, (uint64_t)1 << 63), 2);
	CHECK_EQ_U(zt_raw_objects(UINT64_MAX, 1), UINT64_MAX);
}

UNIT_TEST(alloc_views_by_name_and_event)
{
	CHECK(zt_view_by_name("alloc_space") == ZT_VIEW_ALLOC_SPACE);
	CHECK(zt_view_by_name("peak_inuse_objects") == ZT_VIEW_PEAK_OBJECTS);
	CHECK(zt_view_by_name("time") == ZT_VIEW_TIME);
	CHECK(zt_view_by_name("heap") == -1);
	CHECK(zt_view_by_name("") == -1);
	for (int v = ZT_VIEW_ALLOC_SPACE; v < ZT_VIEWS; v++) {
		const char *ev = zt_view_event(v);

		CHECK(ev != NULL);
		CHECK(zt_view_of_event(ev, strlen(ev)) == v);
		CHECK(zt_view_by_name(zt_view_name(v)) == v);
		/* Views alternate: bytes, then objects, as enum zt_alloc_kind. */
		CHECK(zt_view_objects(v) == ((v - ZT_VIEW_ALLOC_SPACE) % 2 == 1));
	}
	CHECK(zt_view_event(ZT_VIEW_TIME) == NULL);
	CHECK(zt_view_of_event(ZT_EVENT_SAMPLES, strlen(ZT_EVENT_SAMPLES)) == 0);
	CHECK(zt_view_of_event(ZT_EVENT_WALL, strlen(ZT_EVENT_WALL)) == 0);
	CHECK(zt_view_of_event("zt-alloc-bytesx", 15) == 0);
	CHECK(zt_view_of_event("zt-alloc-byte", 13) == 0);
	CHECK(zt_view_of_event("cycles", 6) == 0);
	CHECK_STR(zt_view_unit(ZT_VIEW_INUSE_SPACE), "bytes");
	CHECK_STR(zt_view_unit(ZT_VIEW_INUSE_OBJECTS), "count");
}

/* Whether s declares an allocation weight, and its rate. */
static int declares(const char *s, uint64_t *rate)
{
	return zt_weight_declares_alloc(s, strlen(s), rate);
}

UNIT_TEST(alloc_weight_lines)
{
	struct zt_weight w = { 0 };
	uint64_t rate, div;
	char buf[160];

	CHECK(declares("# zt weight: bytes", &rate) == ZT_WEIGHT_BYTES && rate == 0);
	CHECK(declares("# zt weight: objects, sampled every 524288 bytes", &rate) ==
	      ZT_WEIGHT_OBJECTS);
	CHECK_EQ_U(rate, 524288);
	CHECK(declares("# zt weight: bytes, sampled every 0 bytes", &rate) == 0);
	CHECK(declares("# zt weight: bytes, sampled every x bytes", &rate) == 0);
	CHECK(declares("# zt weight: bytes, sampled every 5", &rate) == 0);
	CHECK(declares("# zt weight: bytesx", &rate) == 0);
	CHECK(declares("# zt weight: ns", &rate) == 0);
	zt_weight_alloc_line(ZT_WEIGHT_BYTES, 524288, buf, sizeof buf);
	CHECK_STR(buf, "# zt weight: bytes, sampled every 524288 bytes");
	zt_weight_alloc_line(ZT_WEIGHT_OBJECTS, 0, buf, sizeof buf);
	CHECK_STR(buf, "# zt weight: objects");
	/* Read as a declaration: never samples; a bad one is named. */
	CHECK(zt_weight_comment(&w, "# zt weight: bytes, sampled every 4096 bytes", 44) == NULL);
	CHECK(w.kind == ZT_WEIGHT_BYTES && w.rate == 4096);
	CHECK(zt_weight_samples(&w, &div) != NULL);
	CHECK_STR(zt_weight_unit(&w), "bytes");
	zt_weight_line(&w, buf, sizeof buf);
	CHECK_STR(buf, "# zt weight: bytes, sampled every 4096 bytes");
	memset(&w, 0, sizeof w);
	CHECK(zt_weight_comment(&w, "# zt weight: objects of 3", 25) != NULL);
	/* Records: the event says the unit; a fact says the rate. */
	memset(&w, 0, sizeof w);
	zt_weight_fact(&w, "# zt alloc-rate 1000", 20);
	zt_weight_record(&w, ZT_EVENT_INUSE_OBJECTS, strlen(ZT_EVENT_INUSE_OBJECTS), 7);
	CHECK(w.kind == ZT_WEIGHT_OBJECTS && w.rate == 1000);
}

UNIT_TEST(alloc_facts_written_and_read_back)
{
	struct zt_raw d = {
		.version = 6, .alloc_rate = 524288, .alloc_calls = 1000, .alloc_bytes = 5000,
		.alloc_peak_bytes = 77, .alloc_peak_ns = 9, .have_alloc_summary = 1 | 2 | 8 | 16,
		.alloc_lines = { 3, 1, 2 }, .alloc_sized = { 192, 64, 128 },
		.alloc_weighed = { 1572960, 524320, 1048640 },
	};
	struct zt_facts f = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		abort();
	zt_factlines_write(out, &d, NULL, 0);
	fclose(out);
	CHECK(strstr(text, "# zt alloc-rate 524288\n# zt alloc-calls 1000\n# zt alloc-bytes 5000\n"
			   "# zt alloc-peak-bytes 77\n# zt alloc-peak-ns 9\n"
			   "# zt alloc-sampled-bytes 192\n# zt alloc-estimated-bytes 1572960\n"));
	CHECK(!strstr(text, "alloc-samples"));
	for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		CHECK(zt_factlines_line(&f, line, (size_t)(nl - line)) == NULL);
	CHECK_EQ_U(f.alloc_rate, 524288);
	CHECK_EQ_U(f.alloc[ZT_FACTS_ALLOC_CALLS], 1000);
	CHECK_EQ_U(f.alloc[ZT_FACTS_ALLOC_ESTIMATED_BYTES], 1572960);
	CHECK(!(f.have_alloc & (1u << ZT_FACTS_ALLOC_SAMPLES)));
	CHECK(f.have_alloc & (1u << ZT_FACTS_ALLOC_PEAK_NS));
	CHECK(zt_factlines_line(&f, "# zt alloc-calls x", 18) != NULL);
	CHECK(zt_factlines_line(&f, "# zt alloc-rate 0", 17) != NULL);
	free(text);
}
