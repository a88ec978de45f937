/*
 * test-weight.c — lib/weight.c: '# zt weight:' declarations, perf periods
 * turned into samples by one fixed period or refused with the reason, and
 * undeclared folded counts that look like periods.
 */
#include "unit.h"
#include "weight.h"

#include <string.h>

#define COMMENT(w, s) zt_weight_comment(w, s, strlen(s))

UNIT_TEST(weight_declarations_parse)
{
	struct zt_weight w = { 0 };
	uint64_t div;

	CHECK(COMMENT(&w, "# a comment") == NULL);
	CHECK(COMMENT(&w, "# zt hz 997") == NULL);
	CHECK(!w.declared);
	CHECK(COMMENT(&w, "# zt weight: samples") == NULL);
	CHECK(w.declared && w.kind == ZT_WEIGHT_SAMPLES);
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1);

	memset(&w, 0, sizeof w);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock 1003009 ns") == NULL);
	CHECK(w.kind == ZT_WEIGHT_PERIOD && w.period == 1003009 && w.clock);
	CHECK_STR(w.event, "cpu-clock");
	CHECK_STR(zt_weight_unit(&w), "ns");
	zt_weight_count(&w, 3009027);
	zt_weight_count(&w, 1003009);
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1003009);
	zt_weight_count(&w, 1003010);
	CHECK(zt_weight_samples(&w, &div) != NULL);

	memset(&w, 0, sizeof w);
	CHECK(COMMENT(&w, "# zt weight: period cycles varies events") == NULL);
	CHECK(w.period == 0 && !w.clock);
	zt_weight_count(&w, 5);
	CHECK(strstr(zt_weight_samples(&w, &div), "vary") != NULL);
	CHECK_STR(zt_weight_unit(&w), "cycles");

	memset(&w, 0, sizeof w);
	CHECK(COMMENT(&w, "# zt weight: seconds") != NULL);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock") != NULL);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock 0 ns") != NULL);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock 12x ns") != NULL);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock 99999999999999999999 ns") != NULL);
}

UNIT_TEST(weight_one_declaration_before_the_stacks_with_a_known_unit)
{
	struct zt_weight w = { 0 };

	CHECK(COMMENT(&w, "# zt weight: samples") == NULL);
	CHECK(strstr(COMMENT(&w, "# zt weight: samples"), "second") != NULL);
	memset(&w, 0, sizeof w);
	CHECK(COMMENT(&w, "# zt weight: period cpu-clock 10 ns") == NULL);
	CHECK(strstr(COMMENT(&w, "# zt weight: samples"), "second") != NULL);
	CHECK(w.kind == ZT_WEIGHT_PERIOD && w.period == 10);
	memset(&w, 0, sizeof w);
	zt_weight_count(&w, 3);
	CHECK(strstr(COMMENT(&w, "# zt weight: samples"), "after the first stack") != NULL);
	CHECK(!w.declared);
	CHECK(COMMENT(&w, "# another comment") == NULL);
	memset(&w, 0, sizeof w);
	CHECK(strstr(COMMENT(&w, "# zt weight: period cpu-clock 10 furlongs"), "unit") != NULL);
	CHECK(strstr(COMMENT(&w, "# zt weight: period cpu-clock 10 ns extra"), "unit") != NULL);
	CHECK(strstr(COMMENT(&w, "# zt weight: period cycles 10 ns"), "'events'") != NULL);
	CHECK(strstr(COMMENT(&w, "# zt weight: period task-clock:u 10 events"), "'ns'") != NULL);
	CHECK(COMMENT(&w, "# zt weight: period cycles:u varies events") == NULL);
}

UNIT_TEST(weight_records_fixed_period_are_samples)
{
	struct zt_weight w = { 0 };
	uint64_t div;
	char line[128];

	zt_weight_record(&w, "cpu-clock:ppp", 13, 1003009);
	zt_weight_record(&w, "cpu-clock:ppp", 13, 1003009);
	zt_weight_record(&w, "cpu-clock:ppp", 13, 2006018);	/* a merged record */
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1003009);
	zt_weight_line(&w, line, sizeof line);
	CHECK_STR(line, "# zt weight: period cpu-clock:ppp 1003009 ns");

	/* No period field: perf script says 1, one sample each. */
	memset(&w, 0, sizeof w);
	zt_weight_record(&w, "cycles", 6, 1);
	zt_weight_record(&w, "cycles", 6, 1);
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1);
	zt_weight_line(&w, line, sizeof line);
	CHECK_STR(line, "# zt weight: samples");

	/* zt's records: the period is the number of samples. */
	memset(&w, 0, sizeof w);
	zt_weight_record(&w, "zt-samples", 10, 300);
	zt_weight_record(&w, "zt-samples", 10, 7);
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1);
}

UNIT_TEST(weight_records_that_vary_are_refused_with_the_reason)
{
	struct zt_weight w = { 0 };
	uint64_t div;
	const char *why;

	zt_weight_record(&w, "cycles", 6, 12345);
	zt_weight_record(&w, "cycles", 6, 23456);
	why = zt_weight_samples(&w, &div);
	CHECK(why && strstr(why, "'cycles' vary") && strstr(why, "not a clock"));
	CHECK_STR(zt_weight_unit(&w), "cycles");

	memset(&w, 0, sizeof w);
	zt_weight_record(&w, "cpu-clock", 9, 1003009);
	zt_weight_record(&w, "cpu-clock", 9, 2500000);
	why = zt_weight_samples(&w, &div);
	CHECK(why && strstr(why, "'cpu-clock' vary") && !strstr(why, "not a clock"));
	CHECK_STR(zt_weight_unit(&w), "ns");
}

UNIT_TEST(weight_undeclared_folded_periods_are_never_samples)
{
	struct zt_weight w = { 0 };
	uint64_t div;
	const char *why;

	zt_weight_count(&w, 3);
	zt_weight_count(&w, 1000);
	CHECK(zt_weight_samples(&w, &div) == NULL && div == 1);

	memset(&w, 0, sizeof w);
	zt_weight_count(&w, 30303030);
	zt_weight_count(&w, 10101010);
	why = zt_weight_samples(&w, &div);
	CHECK(why && strstr(why, "multiple of 10101010"));
	CHECK_STR(zt_weight_unit(&w), "units");
}

UNIT_TEST(weight_clock_events)
{
	CHECK(zt_weight_is_clock("cpu-clock", 9));
	CHECK(zt_weight_is_clock("task-clock:u", 12));
	CHECK(!zt_weight_is_clock("cycles", 6));
	CHECK(!zt_weight_is_clock("cpu-clocks", 10));
}

/* One rule for '# zt weight: ns' in every reader: zt_weight_comment's. */
UNIT_TEST(weight_ns_declaration_is_one_rule)
{
	static const char *const lines[] = {
		ZT_WEIGHT_NS_LINE, "# zt weight:ns", "# zt weight:   ns", "# zt weight: ns ",
		"# zt weight: nsx", "# zt weight: samples", "# zt weigh: ns", "# zt weight:",
	};

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct zt_weight w = { 0 };
		int wall = COMMENT(&w, lines[i]) == NULL && w.declared && w.kind == ZT_WEIGHT_WALL;

		CHECK(zt_weight_declares_ns(lines[i], strlen(lines[i])) == wall);
		CHECK(wall == (i < 3));
	}
}
