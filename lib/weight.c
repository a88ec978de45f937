/*
 * weight.c — telling samples from periods (see weight.h).
 */
#include "weight.h"
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

const char *zt_weight_comment(struct zt_weight *w, const char *s, size_t n)
{
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
	if ((size_t)(end - p) == 7 && memcmp(p, "samples", 7) == 0) {
		w->kind = ZT_WEIGHT_SAMPLES;
		w->declared = 1;
		return NULL;
	}
	if ((size_t)(end - p) < 7 || memcmp(p, "period ", 7) != 0)
		return "'# zt weight:' wants 'samples', 'ns' or 'period EVENT PERIOD UNIT'";
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
	if (event && evlen == 10 && memcmp(event, "zt-samples", 10) == 0) {
		/* zt's records group samples: the period is their number. */
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
	else if (w->kind == ZT_WEIGHT_SAMPLES || !w->event[0] || w->period == 1)
		snprintf(buf, cap, "# zt weight: samples");
	else if (w->period)
		snprintf(buf, cap, "# zt weight: period %s %llu %s", w->event,
			 (unsigned long long)w->period, w->clock ? "ns" : "events");
	else
		snprintf(buf, cap, "# zt weight: period %s varies %s", w->event,
			 w->clock ? "ns" : "events");
}
