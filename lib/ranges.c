/*
 * ranges.c — the binary search over sorted ranges and the holder links
 * (ranges.h says why the links, not a look-back of a few elements).
 */
#include "ranges.h"

#include <string.h>

static inline const unsigned char *elem(const void *base, size_t size, size_t i)
{
	return (const unsigned char *)base + i * size;
}

static inline uint64_t start_of(const void *base, size_t size, size_t off, size_t i)
{
	uint64_t v;

	memcpy(&v, elem(base, size, i) + off, sizeof v);
	return v;
}

static inline uint32_t up_of(const struct zt_ranges *r, size_t i)
{
	uint32_t v;

	memcpy(&v, elem(r->base, r->size, i) + r->up, sizeof v);
	return v;
}

size_t zt_ranges_upto(const void *base, size_t n, size_t size, size_t start,
		      uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (start_of(base, size, start, mid) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void zt_ranges_link(const struct zt_ranges *r)
{
	for (size_t i = 0; i < r->n; i++) {
		uint64_t s = start_of(r->base, r->size, r->start, i);
		size_t c = i;	/* 1 + the candidate: the element before i */
		uint32_t v;

		/*
		 * An element that does not hold s ends at or before it; those
		 * its link skips end at or before its own start, so before s.
		 */
		while (c > 0 && !r->holds(elem(r->base, r->size, c - 1), s))
			c = up_of(r, c - 1);
		v = (uint32_t)c;
		memcpy((unsigned char *)r->base + i * r->size + r->up, &v, sizeof v);
	}
}

size_t zt_ranges_holder(const struct zt_ranges *r, uint64_t key)
{
	size_t c = zt_ranges_upto(r->base, r->n, r->size, r->start, key);

	while (c > 0 && !r->holds(elem(r->base, r->size, c - 1), key))
		c = up_of(r, c - 1);
	return c;
}
