/*
 * ranges.h — the one binary search over arrays sorted by a start address:
 * symbols and PLT entries (elfread.c), mappings (maps.c), line-table rows,
 * CU ranges and scopes (srcline.c), and exact lookups in arrays sorted by a
 * key (GOT slots, CU offsets).
 *
 * An element is a struct with a uint64_t start at offset `start`, and the
 * array is sorted by it, equal starts in whatever order the caller chose.
 *
 * Ranges may overlap: a library unloaded and another mapped over it, a
 * symbol nested in a larger one, CU ranges that a linker let overlap. The
 * one rule is then that the holder of an address is the LAST element, in
 * the array's order, that holds it (the most recent mapping; the innermost
 * symbol, since a nested one starts later). Finding it is no fixed look-back:
 * zt_ranges_link gives each element a link to the nearest earlier element
 * that holds its start, and zt_ranges_holder climbs those links from the
 * last element that starts at or below the address. Every element skipped
 * by a link ends at or before the start of the one linked from, so it
 * cannot hold a later address either: the climb passes every candidate and
 * costs one step per range that encloses the address.
 */
#ifndef ZT_RANGES_H
#define ZT_RANGES_H

#include <stddef.h>
#include <stdint.h>

/*
 * How many of the n elements (of size bytes each) at base start at or below
 * key: element result - 1 is the last of them, 0 means none (key is below
 * every start, or n is 0). The start is the uint64_t at offset start.
 */
size_t zt_ranges_upto(const void *base, size_t n, size_t size, size_t start,
		      uint64_t key);

/*
 * An array of ranges for zt_ranges_link and zt_ranges_holder: besides the
 * start, each element has a uint32_t link at offset up (owned by these
 * functions) and holds says whether it holds an address (at or above its
 * start). ZT_RANGES fills one in from the element type's field names.
 */
struct zt_ranges {
	void *base;
	size_t n, size;
	size_t start, up;
	int (*holds)(const void *elem, uint64_t key);
};

#define ZT_RANGES(arr, count, type, startfield, upfield, holdsfn) \
	((struct zt_ranges){ (void *)(arr), (count), sizeof(type), \
			     offsetof(type, startfield), offsetof(type, upfield), (holdsfn) })

/*
 * Set every element's link (1 + the nearest earlier holder of its start, or
 * 0). n must be below 2^32.
 */
void zt_ranges_link(const struct zt_ranges *r);

/*
 * 1 + the index of the last element that holds key, or 0 if none does. The
 * links must have been set by zt_ranges_link after the last change.
 */
size_t zt_ranges_holder(const struct zt_ranges *r, uint64_t key);

#endif
