/*
 * test-folded.c — the folded line parser: what it accepts and how it names
 * each problem.
 */
#include "unit.h"
#include "folded.h"

static const char *parse(const char *s, size_t *sl, uint64_t *c)
{
	return zt_folded_parse(s, strlen(s), sl, c);
}

UNIT_TEST(folded_parses_stack_and_count)
{
	size_t sl = 0;
	uint64_t c = 0;

	CHECK(parse("a;b;c 42", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 5);
	CHECK_EQ_U(c, 42);
	CHECK(parse("a b;c\t7", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 5);
	CHECK_EQ_U(c, 7);
	CHECK(parse("a;;b 0", &sl, &c) == NULL);
	CHECK(parse("a; \t3", &sl, &c) == NULL);
	CHECK_EQ_U(sl, 3);
	CHECK(parse("a 18446744073709551615", &sl, &c) == NULL);
	CHECK(c == UINT64_MAX);
}

UNIT_TEST(folded_names_each_problem)
{
	size_t sl;
	uint64_t c;

	CHECK_STR(parse("a;b", &sl, &c), "missing count");
	CHECK_STR(parse("a;b ", &sl, &c), "missing count");
	CHECK_STR(parse("a;b -1", &sl, &c), "negative count");
	CHECK_STR(parse("a;b 1.5", &sl, &c), "fractional count (counts are whole numbers of samples)");
	CHECK_STR(parse("a;b x1", &sl, &c), "count is not a number");
	CHECK_STR(parse("a;b 1e3", &sl, &c), "count is not a number");
	CHECK_STR(parse("a;b 1\r", &sl, &c), "line ends in CR (CRLF line endings are not accepted)");
	CHECK_STR(parse("", &sl, &c), "empty line");
	CHECK_STR(parse(" 3", &sl, &c), "empty stack");
	CHECK_STR(parse("a 18446744073709551616", &sl, &c), "count does not fit in 64 bits");
	CHECK_STR(zt_folded_parse("a\0b 1", 5, &sl, &c), "NUL byte in text (a binary file?)");
}
