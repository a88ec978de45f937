/*
 * views.h — zt-stat's views of a profile (lib/profile.h) beyond the top
 * table, as pprof has them: -peek (a function's callers and callees) and
 * -list (a function's source, line by line). Each is written as text or
 * as a JSON array.
 *
 * Numbers are the profile's own: samples, or the sum of periods when they
 * are not samples (view->ns says they are nanoseconds, shown as seconds).
 * Percentages are of view->all, the samples before any focus, as pprof
 * computes them by default.
 */
#ifndef ZT_VIEWS_H
#define ZT_VIEWS_H

#include <stdint.h>
#include <stdio.h>

#include "filter.h"
#include "profile.h"

struct zt_view {
	const struct zt_profile *p;	/* the report's keys */
	uint64_t all;			/* the 100% of percentages */
	int ns;				/* values are nanoseconds */
	int bytes;			/* values are bytes (an allocation profile) */
	int json;
	/* Told of a problem that does not stop a view (a source file that
	   cannot be read), for the tool to print; NULL: ignored. */
	void (*warn)(const char *msg);
};

/* One value as the text views show it: a count, seconds, or bytes. */
void zt_views_value(const struct zt_view *v, uint64_t x, char *buf, size_t cap);

/* Bytes as people read them, in powers of 1024: "512B", "1.50KiB", "3.25MiB". */
void zt_views_bytes(uint64_t x, char *buf, size_t cap);

/*
 * For every key that re (a filter's ZT_FOCUS regex, the peek regex)
 * matches, in the order of ids: its callers and callees (edges of a
 * profile made with zt_profile_track_edges), each with its share of the
 * key's cum, as `pprof -peek`. Returns how many keys matched.
 */
size_t zt_views_peek(FILE *out, const struct zt_view *v, struct zt_filter *re,
		     const uint32_t *ids, uint32_t nids);

/*
 * For every function in v->p that re matches: its source lines (from lp,
 * made by zt_psprof_set_lines), each with its flat and cum, as `pprof
 * -list`. The text is read from the path the input gives, or under
 * srcdir (NULL for none) with leading directories dropped one by one; a
 * file that cannot be read (or is not a regular file) is told to v->warn
 * and its lines with samples are shown without text. Lines shown run from
 * 3 before the first line with samples to 3 after the last. Returns how many functions matched.
 */
size_t zt_views_list(FILE *out, const struct zt_view *v, struct zt_filter *re,
		     const struct zt_profile *lp, const char *srcdir);

#endif
