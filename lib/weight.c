/*
 * weight.c — telling samples from periods (see weight.h).
 */
#include "weight.h"
#include "event.h"
#include "rawfmt.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int zt_weight_is_clock(const char *ev, size_t n)
{
	const char *colon = memchr(ev, ':', n);

	if (colon)
		n = (size_t)(colon - ev);
	return (n == 9 && (memcmp(ev, "cpu-clock", 9) == 0 || memcmp(ev, "task-clock", 9) == 0)) ||
	       (n == 10 && memcmp(ev, "task-clock", 10) == 0);
}

static void setevent(struct zt_weight *w, const char *ev, size_t n)
{
	if (n >= sizeof w->event)
		n = sizeof w->event - 1;
	memcpy(w->event, ev, n);
	w->event[n] = '\0';
	w->clock = zt_weight_is_clock(ev, n);
}

static const char key[] = "# zt weight:";

int zt_weight_declares_ns(const char *s, size_t n)
{
	const char *p, *end = s + n;

	if (n < sizeof key - 1 || memcmp(s, key, sizeof key - 1) != 0)
		return 0;
	p = s + sizeof key - 1;
	while (p < end && *p == ' ')
		p++;
	return (size_t)(end - p) == 2 && memcmp(p, "ns", 2) == 0;
}

/* ", sampled every N bytes" after the unit. */
static const char every[] = ", sampled every ";

int zt_weight_declares_alloc(const char *s, size_t n, uint64_t *rate)
{
	const char *p, *end = s + n;
	int kind;
	size_t k;

	*rate = 0;
	if (n < sizeof key - 1 || memcmp(s, key, sizeof key - 1) != 0)
		return 0;
	p = s + sizeof key - 1;
	while (p < end && *p == ' ')
		p++;
	if ((size_t)(end - p) >= 5 && memcmp(p, "bytes", 5) == 0) {
		kind = ZT_WEIGHT_BYTES;
		p += 5;
	} else if ((size_t)(end - p) >= 7 && memcmp(p, "objects", 7) == 0) {
		kind = ZT_WEIGHT_OBJECTS;
		p += 7;
	} else {
		return 0;
	}
	if (p == end)
		return kind;
	/* ", sampled every N bytes": it ends in a word, which flamegraph.pl
	   then takes for no stack. */
	if ((size_t)(end - p) < sizeof every - 1 + 7 || memcmp(p, every, sizeof every - 1) != 0 ||
	    memcmp(end - 6, " bytes", 6) != 0)
		return 0;
	p += sizeof every - 1;
	for (k = 0; p + k < end - 6 && p[k] >= '0' && p[k] <= '9'; k++)
		;
	if (k == 0 || k > 19 || p + k != end - 6) {
		*rate = 0;
		return 0;
	}
	{
		char num[24];

		memcpy(num, p, k);
		num[k] = '\0';
		if (zt_parse_u64(num, 10, rate) < 0 || *rate == 0) {
			*rate = 0;
			return 0;
		}
	}
	return kind;
}

void zt_weight_alloc_line(int kind, uint64_t rate, char *buf, size_t cap)
{
	if (rate)
		snprintf(buf, cap, "# zt weight: %s%s%llu bytes", zt_weight_alloc_unit(kind), every,
			 (unsigned long long)rate);
	else
		snprintf(buf, cap, "# zt weight: %s", zt_weight_alloc_unit(kind));
}

const char *zt_weight_alloc_unit(int kind)
{
	return kind == ZT_WEIGHT_BYTES ? "bytes" : kind == ZT_WEIGHT_OBJECTS ? "objects" : NULL;
}

void zt_weight_fact(struct zt_weight *w, const char *s, size_t n)
{
	static const char rate[] = ZT_FACT_PREFIX ZT_FACT_ALLOC_RATE " ";
	char num[24];
	size_t k = n - (sizeof rate - 1);

	if (n <= sizeof rate - 1 || memcmp(s, rate, sizeof rate - 1) != 0 || k >= sizeof num ||
	    w->rate)
		return;
	memcpy(num, s + sizeof rate - 1, k);
	num[k] = '\0';
	if (zt_parse_u64(num, 10, &w->rate) < 0)
		w->rate = 0;
}

const char *zt_weight_comment(struct zt_weight *w, const char *s, size_t n)
{
	int alloc;
	uint64_t rate;

	const char *p, *end = s + n, *sp, *unit;
	char num[32];
	size_t k;

	if (n < sizeof key - 1 || memcmp(s, key, sizeof key - 1) != 0)
		return NULL;
	/* One declaration, before the first stack (formats/folded.md). */
	if (w->n)
		return "'# zt weight:' after the first stack (it goes before every stack)";
	if (w->declared)
		return "a second '# zt weight:' line (a file declares its weight once)";
	p = s + sizeof key - 1;
	while (p < end && *p == ' ')
		p++;
	if (zt_weight_declares_ns(s, n)) {
		w->kind = ZT_WEIGHT_WALL;
		w->declared = 1;
		w->clock = 1;
		return NULL;
	}
	if ((alloc = zt_weight_declares_alloc(s, n, &rate))) {
		w->kind = (enum zt_weight_kind)alloc;
		w->declared = 1;
		w->rate = rate;
		return NULL;
	}
	if (((size_t)(end - p) >= 5 && memcmp(p, "bytes", 5) == 0) ||
	    ((size_t)(end - p) >= 7 && memcmp(p, "objects", 7) == 0))
		return "'# zt weight: bytes' and 'objects' take nothing after them but "
		       "', sampled every N bytes'";
	if ((size_t)(end - p) == 7 && memcmp(p, "samples", 7) == 0) {
		w->kind = ZT_WEIGHT_SAMPLES;
		w->declared = 1;
		return NULL;
	}
	if ((size_t)(end - p) < 7 || memcmp(p, "period ", 7) != 0)
		return "'# zt weight:' wants 'samples', 'ns', 'bytes', 'objects' or 'period EVENT "
		       "PERIOD UNIT'";
	p += 7;
	if (!(sp = memchr(p, ' ', (size_t)(end - p))) || sp == p)
		return "'# zt weight: period' wants an event, a period and a unit";
	setevent(w, p, (size_t)(sp - p));
	p = sp + 1;
	if (!(sp = memchr(p, ' ', (size_t)(end - p))) || sp == p || sp + 1 == end)
		return "'# zt weight: period' wants an event, a period and a unit";
	k = (size_t)(sp - p);
	unit = sp + 1;
	if (!((end - unit == 2 && memcmp(unit, "ns", 2) == 0) ||
	      (end - unit == 6 && memcmp(unit, "events", 6) == 0)))
		return "'# zt weight: period' wants the unit 'ns' or 'events'";
	if ((end - unit == 2) != w->clock)
		return w->clock ? "'# zt weight: period' of a clock event wants the unit 'ns'"
				: "'# zt weight: period' of an event that is not a clock wants "
				  "the unit 'events'";
	w->kind = ZT_WEIGHT_PERIOD;
	w->declared = 1;
	w->period = 0;
	if (k == 6 && memcmp(p, "varies", 6) == 0)
		return NULL;
	if (k >= sizeof num)
		return "'# zt weight: period' wants a whole number or 'varies'";
	memcpy(num, p, k);
	num[k] = '\0';
	if (zt_parse_u64(num, 10, &w->period) < 0 || w->period == 0)
		return "'# zt weight: period' wants a whole number or 'varies'";
	return NULL;
}

void zt_weight_count(struct zt_weight *w, uint64_t count)
{
	w->gcd = gcd(w->gcd, count);
	w->n++;
}

void zt_weight_record(struct zt_weight *w, const char *event, size_t evlen,
		      uint64_t period)
{
	int alloc;

	if (event && evlen == 10 && memcmp(event, "zt-samples", 10) == 0) {
		/* zt's records group samples: the period is their number. */
		w->declared = 1;
		w->n++;
		return;
	}
	if (event && (alloc = zt_view_of_event(event, evlen))) {
		/* An allocation profile's records: bytes or objects. */
		w->kind = zt_view_objects(alloc) ? ZT_WEIGHT_OBJECTS : ZT_WEIGHT_BYTES;
		w->declared = 1;
		w->n++;
		return;
	}
	if (event && evlen == sizeof ZT_EVENT_WALL - 1 &&
	    memcmp(event, ZT_EVENT_WALL, evlen) == 0) {
		/* A wall-clock profile's records: their periods are ns. */
		w->kind = ZT_WEIGHT_WALL;
		w->declared = 1;
		w->clock = 1;
		w->n++;
		return;
	}
	if (!w->declared && event && evlen) {
		w->kind = ZT_WEIGHT_PERIOD;
		w->declared = 1;
		setevent(w, event, evlen);
	}
	if (w->n && period != w->min)
		w->varies = 1;
	if (!w->n || period < w->min)
		w->min = period;
	w->gcd = gcd(w->gcd, period);
	w->n++;
}

const char *zt_weight_samples(struct zt_weight *w, uint64_t *div)
{
	*div = 1;
	if (w->kind == ZT_WEIGHT_SAMPLES && w->declared)
		return NULL;
	if (w->kind == ZT_WEIGHT_WALL)
		return "a wall-clock profile weighs its stacks in nanoseconds, on-CPU and "
		       "off-CPU alike";
	if (w->kind == ZT_WEIGHT_BYTES)
		return "an allocation profile weighs its stacks in bytes, estimated";
	if (w->kind == ZT_WEIGHT_OBJECTS)
		return "an allocation profile weighs its stacks in objects, estimated";
	if (w->kind == ZT_WEIGHT_PERIOD && w->period) {
		/* Declared by a folded file: every count must be whole samples. */
		if (w->gcd % w->period != 0) {
			snprintf(w->why, sizeof w->why, "a count is not a multiple of the declared "
				 "period %llu", (unsigned long long)w->period);
			return w->why;
		}
		*div = w->period;
		return NULL;
	}
	if (w->kind == ZT_WEIGHT_PERIOD && w->declared && w->min) {
		/* Records: whole multiples of the smallest period, which is the
		   period of one sample unless they vary freely (perf -F on a
		   hardware event adjusts every period). */
		if (w->gcd == w->min && (w->min > 1 || !w->varies)) {
			w->period = w->min;
			*div = w->min;
			return NULL;
		}
		snprintf(w->why, sizeof w->why, "the periods of '%s' vary from sample to sample%s, "
			 "so they are not a number of samples", w->event,
			 w->clock ? "" : " (perf record -F on an event that is not a clock)");
		return w->why;
	}
	if (w->kind == ZT_WEIGHT_PERIOD) {
		snprintf(w->why, sizeof w->why, "the periods of '%s' vary from sample to sample, "
			 "so they are not a number of samples", w->event);
		return w->why;
	}
	/* Undeclared folded counts. */
	if (w->gcd >= ZT_WEIGHT_PERIOD_GCD) {
		snprintf(w->why, sizeof w->why, "every count is a multiple of %llu, as perf's "
			 "periods are (stackcollapse-perf.pl's weight), and the file does not "
			 "declare its weight: fold with 'zt-fold --weight=count', or declare "
			 "it with a '# zt weight:' line (formats/folded.md)",
			 (unsigned long long)w->gcd);
		return w->why;
	}
	return NULL;
}

const char *zt_weight_unit(const struct zt_weight *w)
{
	if (zt_weight_alloc_unit(w->kind))
		return zt_weight_alloc_unit(w->kind);
	if (w->clock)
		return "ns";
	if (w->event[0])
		return w->event;
	return "units";
}

void zt_weight_line(const struct zt_weight *w, char *buf, size_t cap)
{
	/* A period of 1 is perf script's "no period": one sample each. */
	if (w->kind == ZT_WEIGHT_WALL)
		snprintf(buf, cap, "# zt weight: ns");
	else if (zt_weight_alloc_unit(w->kind))
		zt_weight_alloc_line(w->kind, w->rate, buf, cap);
	else if (w->kind == ZT_WEIGHT_SAMPLES || !w->event[0] || w->period == 1)
		snprintf(buf, cap, "# zt weight: samples");
	else if (w->period)
		snprintf(buf, cap, "# zt weight: period %s %llu %s", w->event,
			 (unsigned long long)w->period, w->clock ? "ns" : "events");
	else
		snprintf(buf, cap, "# zt weight: period %s varies %s", w->event,
			 w->clock ? "ns" : "events");
}
