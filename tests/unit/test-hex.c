/*
 * test-hex.c — the one hex parser (lib/hex.h): where it stops, both cases,
 * and refusing what does not fit in 64 bits or has no digit.
 */
#include "unit.h"
#include "hex.h"

#include <string.h>

static const char *parse(const char *s, uint64_t *v)
{
	return zt_hex(s, s + strlen(s), v);
}

UNIT_TEST(hex_parses_up_to_the_first_non_digit)
{
	const char *s = "7f3aB0c9-7f3b r-xp";
	uint64_t v = 0;

	CHECK(parse(s, &v) == s + 8 && v == 0x7f3ab0c9);
	CHECK(parse("0", &v) && v == 0);
	CHECK(parse("ffffffffffffffff", &v) && v == UINT64_MAX);
	CHECK(parse("0000000000000001", &v) && v == 1);
}

UNIT_TEST(hex_stops_at_end_not_at_nul)
{
	const char s[] = "12345";
	uint64_t v = 0;

	CHECK(zt_hex(s, s + 3, &v) == s + 3 && v == 0x123);
}

UNIT_TEST(hex_refuses_no_digit_and_more_than_16)
{
	uint64_t v = 42;

	CHECK(parse("", &v) == NULL);
	CHECK(parse("x1", &v) == NULL);
	CHECK(parse("0x1", &v) != NULL && v == 0);	/* "0", then 'x' ends it */
	CHECK(parse("10000000000000000", &v) == NULL);	/* 17 digits */
	CHECK(parse("00000000000000000", &v) == NULL);	/* leading zeros count */
	v = 42;
	CHECK(parse("g", &v) == NULL && v == 42);	/* untouched on failure */
}
