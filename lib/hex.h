/*
 * hex.h — the one hexadecimal number parser, for the raw dump's addresses,
 * /proc/PID/maps lines and the collector's own reading of its maps, and
 * beside it the one decimal parser that checks for overflow, for the raw
 * dump's numbers, folded counts and perf script periods. Inline and
 * without libc, so that the collector (collect/) can use them too.
 */
#ifndef ZT_HEX_H
#define ZT_HEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse the hexadecimal digits (either case, no "0x") from p up to end or
 * the first byte that is not one, into *v. Returns the first byte not
 * parsed, or NULL when there is no digit or more than 16 (the value would
 * not fit in 64 bits; leading zeros count). A caller that wants the whole
 * span checks that the result is end.
 */
static inline const char *zt_hex(const char *p, const char *end, uint64_t *v)
{
	const char *start = p;
	uint64_t x = 0;

	for (; p < end; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (p - start == 16)
			return NULL;
		x = x << 4 | d;
	}
	if (p == start)
		return NULL;
	*v = x;
	return p;
}

/*
 * Parse the decimal digits from p up to end or the first byte that is not
 * one, into *v. Returns the first byte not parsed, or NULL when there is
 * no digit or the value does not fit in 64 bits. A caller that wants the
 * whole span checks that the result is end.
 */
static inline const char *zt_dec(const char *p, const char *end, uint64_t *v)
{
	const char *start = p;
	uint64_t x = 0;
	unsigned c;

	/* 19 digits always fit: no check until past them, then each is checked. */
	for (; p < end && p - start < 19 && (c = (unsigned)(unsigned char)*p - '0') < 10; p++)
		x = x * 10 + c;
	for (; p < end && (c = (unsigned)(unsigned char)*p - '0') < 10; p++) {
		if (x > (UINT64_MAX - c) / 10)
			return NULL;
		x = x * 10 + c;
	}
	if (p == start)
		return NULL;
	*v = x;
	return p;
}

#endif
