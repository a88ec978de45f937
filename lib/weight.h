/*
 * weight.h — what the numbers of a profile weigh: samples, or perf's
 * periods (nanoseconds of a clock event, or counts of a hardware event).
 *
 * Every reader keeps one of these per input. Perf script records give it
 * their event and period; a folded file may declare its weight in a
 * comment line (formats/folded.md):
 *
 *   # zt weight: samples
 *   # zt weight: period cpu-clock 1003009 ns
 *   # zt weight: period cycles varies events
 *   # zt weight: ns
 *   # zt weight: bytes, sampled every 524288 bytes
 *   # zt weight: objects, sampled every 524288 bytes
 *
 * The ns line is a wall-clock profile's (zt-symbolize's records of event
 * zt-wall-ns): every count is the nanoseconds of wall-clock time its
 * samples stand for, on-CPU and off-CPU alike; never samples. The bytes
 * and objects lines are an allocation profile's (raw version 6: records of
 * zt-alloc-bytes, zt-alloc-objects and the in-use and peak ones): every
 * count is the estimated bytes, or objects, its samples stand for; the
 * rate, when given, is the mean bytes between samples (the dump's
 * alloc-rate), which zt-diff --report needs to tell growth from noise.
 *
 * A folded file without one holds sample counts, as the format says,
 * unless every count is a multiple of one large number, as perf's periods
 * are: such a file is taken for what it is, periods of an unknown event,
 * and never silently as samples.
 */
#ifndef ZT_WEIGHT_H
#define ZT_WEIGHT_H

#include <stddef.h>
#include <stdint.h>

enum zt_weight_kind {
	ZT_WEIGHT_SAMPLES,	/* each unit is a sample */
	ZT_WEIGHT_PERIOD,	/* sums of perf periods */
	ZT_WEIGHT_WALL,		/* nanoseconds of wall-clock time (zt's wall profiles) */
	ZT_WEIGHT_BYTES,	/* estimated bytes (zt's allocation profiles) */
	ZT_WEIGHT_OBJECTS,	/* estimated objects (zt's allocation profiles) */
};

struct zt_weight {
	enum zt_weight_kind kind;
	int declared;		/* a folded file said so, or records showed it */
	char event[64];		/* the perf event, "" when unknown */
	int clock;		/* the event is a clock: periods are ns */
	uint64_t period;	/* the period of one sample; 0 when they vary */
	/* What was seen, for inputs that declare nothing. */
	uint64_t gcd, min, n;
	int varies;
	char why[256];		/* zt_weight_samples's reason */
	uint64_t rate;		/* bytes or objects: the mean bytes between samples, 0 if unknown */
};

/* The smallest common divisor of an undeclared folded file's counts that
   marks them as periods: sample counts never all share one this large. */
#define ZT_WEIGHT_PERIOD_GCD 1000

/* The line a wall-clock profile's folded stacks start with, as the tools
   write it. */
#define ZT_WEIGHT_NS_LINE "# zt weight: ns"

/* Whether a '#' line of a folded file (with its '#') declares a wall-clock
   profile, by zt_weight_comment's rule (the spaces after the colon vary). */
int zt_weight_declares_ns(const char *s, size_t n);

/* Whether it declares an allocation profile: ZT_WEIGHT_BYTES or
   ZT_WEIGHT_OBJECTS, with *rate (0 when it gives none); 0 when it does
   not, or is malformed (zt_weight_comment says why). */
int zt_weight_declares_alloc(const char *s, size_t n, uint64_t *rate);

/* A '# zt weight: bytes' or 'objects' line (without '\n') for kind
   (ZT_WEIGHT_BYTES, ZT_WEIGHT_OBJECTS) and rate (0: unknown), into buf. */
void zt_weight_alloc_line(int kind, uint64_t rate, char *buf, size_t cap);

/* The unit of an allocation kind's counts, "bytes" or "objects", else NULL. */
const char *zt_weight_alloc_unit(int kind);

/* A '#' line of records (with its '#'): "# zt alloc-rate N" sets w's rate. */
void zt_weight_fact(struct zt_weight *w, const char *s, size_t n);

/* A '#' line of a folded file (with its '#'): NULL, or what is wrong with
   a weight declaration. Other comments are ignored. */
const char *zt_weight_comment(struct zt_weight *w, const char *s, size_t n);

/* One folded count, or one record's event and period (event may be NULL
   with period 1 for a record that is one sample). */
void zt_weight_count(struct zt_weight *w, uint64_t count);
void zt_weight_record(struct zt_weight *w, const char *event, size_t evlen,
		      uint64_t period);

/*
 * After the input: whether its weights convert to samples exactly. Returns
 * NULL and sets *div (divide every weight by it) when they do; otherwise
 * the reason, in the weight's why (no state is shared between weights:
 * zt-diff reads several inputs at once).
 */
const char *zt_weight_samples(struct zt_weight *w, uint64_t *div);

/* The unit of one weight when it is not samples: "ns", or the event's
   name, or "units" when unknown. */
const char *zt_weight_unit(const struct zt_weight *w);

/* The declaration line (without '\n') that says w, into buf. */
void zt_weight_line(const struct zt_weight *w, char *buf, size_t cap);

/* Whether perf event name ev (with :modifiers) is a clock (ns periods). */
int zt_weight_is_clock(const char *ev, size_t n);

#endif
