/*
 * test-hex.c — the one hex parser (lib/hex.h): where it stops, both cases,
 * and refusing what does not fit in 64 bits or has no digit; and the one
 * decimal parser beside it, checked the same way.
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

static const char *dec(const char *s, uint64_t *v)
{
	return zt_dec(s, s + strlen(s), v);
}

UNIT_TEST(dec_parses_up_to_the_first_non_digit_and_to_2_64_minus_1)
{
	const char s[] = "12345";
	uint64_t v = 0;
	const char *t = "17 x";

	CHECK(dec("0", &v) && v == 0);
	CHECK(dec("18446744073709551615", &v) && v == UINT64_MAX);
	CHECK(dec(t, &v) == t + 2 && v == 17);
	CHECK(zt_dec(s, s + 3, &v) == s + 3 && v == 123);
	/* Leading zeros do not count: only the value must fit. */
	CHECK(dec("000000000000000000000000000042", &v) && v == 42);
	CHECK(dec("9999999999999999999", &v) && v == 9999999999999999999u);
}

UNIT_TEST(dec_refuses_no_digit_and_what_does_not_fit)
{
	uint64_t v = 42;

	CHECK(dec("", &v) == NULL);
	CHECK(dec("-1", &v) == NULL);
	CHECK(dec("+1", &v) == NULL);
	CHECK(dec(" 1", &v) == NULL);
	CHECK(dec("18446744073709551616", &v) == NULL);
	CHECK(dec("99999999999999999999", &v) == NULL);
	CHECK(dec("100000000000000000000", &v) == NULL);
	CHECK(v == 42);		/* untouched on failure */
}
