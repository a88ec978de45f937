/*
 * factlines.h — the `# zt KEY VALUE` lines zt-symbolize writes before the
 * first record (formats/symbolized.md): rate, timer, samples lost, CPU time.
 * zt-stat reads them for its header. Both sides are here, with the names
 * from rawfmt.h, so that what is written is what is read.
 */
#ifndef ZT_FACTLINES_H
#define ZT_FACTLINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct zt_raw;

/* The summed allocation facts, in the order of struct zt_facts' alloc. */
enum { ZT_FACTS_ALLOC_CALLS, ZT_FACTS_ALLOC_BYTES, ZT_FACTS_ALLOC_SAMPLES,
       ZT_FACTS_ALLOC_PEAK_BYTES, ZT_FACTS_ALLOC_PEAK_NS, ZT_FACTS_ALLOC_INUSE_BYTES,
       ZT_FACTS_ALLOC_UNTRACKED, ZT_FACTS_ALLOC_LOST, ZT_FACTS_ALLOC_SAMPLED_BYTES,
       ZT_FACTS_ALLOC_ESTIMATED_BYTES, ZT_FACTS_ALLOC };

/* Their keys ("alloc-calls", ...). */
extern const char *const zt_factlines_alloc_keys[ZT_FACTS_ALLOC];

struct zt_facts {
	uint64_t hz;		/* 0 when unknown */
	char timer[64];		/* "" when unknown */
	int have_lost;
	uint64_t lost;
	char lost_reason[64];
	int have_cpu_ns;
	uint64_t cpu_ns;
	char rate_cap[32];	/* what caps the rate ("kernel-tick"), "" when nothing */
	int have_samples;
	uint64_t samples;	/* as the dump counted them */
	int have_cpu_split;	/* both cpu-user-ns and cpu-sys-ns were given */
	uint64_t cpu_user_ns, cpu_sys_ns;	/* the program's, while sampling ran */
	unsigned cpu_split_seen;	/* 1: user seen, 2: system seen */
	int have_cpu_before;
	uint64_t cpu_before_ns;		/* its CPU time before sampling began */
	uint64_t unsampled_cpu_ns;	/* CPU time no sample covers, 0 when none */
	/*
	 * Stacks that did not reach their thread's entry ("# zt partial"), and
	 * of them those the collector cut at its max-depth ("# zt truncated"):
	 * the rest could not be unwound. max_depth is the first input's.
	 */
	int have_partial;
	uint64_t partial, truncated, max_depth;
	/* A wall-clock profile's (raw version 5): summed over inputs but the rate. */
	int wall;			/* "# zt profile-clock wall" was read */
	uint64_t off_cpu_hz;
	int have_wall_ns;
	uint64_t wall_ns, off_cpu_samples, off_cpu_repeated, off_cpu_torn, sampler_cpu_ns;
	/*
	 * An allocation profile's (raw version 6): alloc_rate is the first
	 * input's; the others are summed over inputs, and have_alloc's bit i
	 * says fact i of zt_factlines_alloc_keys was read.
	 */
	uint64_t alloc_rate;
	char alloc_allocator[256];	/* as the stream has it (escaped), "" when not said */
	uint64_t alloc[ZT_FACTS_ALLOC];
	unsigned have_alloc;
};

/*
 * Take in one comment line (with its '#'). Lines that are not `# zt` facts,
 * and facts this version does not know, are ignored. Returns NULL, or what
 * is wrong with a known fact's value. Facts from several inputs add up
 * (samples, lost, cpu-ns, cpu-user-ns, cpu-sys-ns, cpu-before-ns, unsampled-cpu-ns,
 * partial, truncated); hz, the timer and max-depth keep the first value.
 */
const char *zt_factlines_line(struct zt_facts *f, const char *s, size_t n);

/*
 * Whether CPU time before sampling began (before_ns: the loader's start-up
 * and the constructors it ran before zt's) is worth saying beside the
 * sampled (sampled_ns): 20 ms or more and a tenth of it, so that heavy work
 * in constructors is never mistaken for nothing (a loader's start-up under
 * load is a few ms). zt-collect's summary keeps the same rule.
 */
int zt_factlines_before_worth_saying(uint64_t before_ns, uint64_t sampled_ns);

/*
 * Write the facts of dump d to out, one `# zt` line each, then one
 * `# zt warning` line for each of the nwarn warnings. Every value that came
 * from the dump is escaped (escape.h), so that nothing in a dump forges a
 * line or reaches a terminal raw.
 */
void zt_factlines_write(FILE *out, const struct zt_raw *d, const char *const *warn, size_t nwarn);

/*
 * Whether the line s (n bytes) is a label fact: "# zt label KEY VALUE",
 * or "# zt host NAME", taken as the label "host". Sets its key and value
 * (pointers into s) when it is: 1; 0 when it is another line.
 */
int zt_factlines_label(const char *s, size_t n, const char **key, size_t *kn, const char **value,
		       size_t *vn);

#endif
