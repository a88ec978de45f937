/*
 * ztfacts.h — the `# zt KEY VALUE` lines zt-symbolize writes before the
 * first record (formats/symbolized.md): rate, timer, samples lost, CPU time.
 * zt-stat reads them for its header.
 */
#ifndef ZT_ZTFACTS_H
#define ZT_ZTFACTS_H

#include <stddef.h>
#include <stdint.h>

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
	uint64_t cpu_user_ns, cpu_sys_ns;	/* the program's user and system time */
	unsigned cpu_split_seen;	/* 1: user seen, 2: system seen */
};

/*
 * Take in one comment line (with its '#'). Lines that are not `# zt` facts,
 * and facts this version does not know, are ignored. Returns NULL, or what
 * is wrong with a known fact's value. Facts from several inputs add up
 * (samples, lost, cpu-ns, cpu-user-ns, cpu-sys-ns); hz and the timer keep the first value.
 */
const char *zt_facts_line(struct zt_facts *f, const char *s, size_t n);

#endif
