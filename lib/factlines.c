/*
 * factlines.c — the `# zt` fact lines: written from a raw dump (zt-symbolize),
 * parsed back (zt-stat, through the perf-script reader).
 */
#include "factlines.h"
#include "escape.h"
#include "raw.h"
#include "rawfmt.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The value's first word as a number. */
static int num(const char *v, size_t n, uint64_t *out)
{
	char b[32];
	size_t k = 0;

	while (k < n && v[k] != ' ')
		k++;
	if (k == 0 || k >= sizeof b)
		return -1;
	memcpy(b, v, k);
	b[k] = '\0';
	return zt_parse_u64(b, 10, out);
}

static void word(char *dst, size_t cap, const char *v, size_t n)
{
	size_t k = n < cap - 1 ? n : cap - 1;

	memcpy(dst, v, k);
	dst[k] = '\0';
}

const char *const zt_factlines_alloc_keys[ZT_FACTS_ALLOC] = {
	ZT_FACT_ALLOC_CALLS, ZT_FACT_ALLOC_BYTES, ZT_FACT_ALLOC_SAMPLES,
	ZT_FACT_ALLOC_PEAK_BYTES, ZT_FACT_ALLOC_PEAK_NS, ZT_FACT_ALLOC_INUSE_BYTES,
	ZT_FACT_ALLOC_UNTRACKED, ZT_FACT_ALLOC_LOST, ZT_FACT_ALLOC_SAMPLED_BYTES,
	ZT_FACT_ALLOC_ESTIMATED_BYTES,
};

/* An allocation fact: NULL, or what is wrong with it. */
static const char *alloc_fact(struct zt_facts *f, const char *key, size_t klen,
			      const char *v, size_t vlen)
{
	uint64_t x;

	if (klen == sizeof ZT_FACT_ALLOC_ALLOCATOR - 1 &&
	    memcmp(key, ZT_FACT_ALLOC_ALLOCATOR, klen) == 0) {
		if (!f->alloc_allocator[0])
			word(f->alloc_allocator, sizeof f->alloc_allocator, v, vlen);
		return NULL;
	}
	if (klen == sizeof ZT_FACT_ALLOC_RATE - 1 && memcmp(key, ZT_FACT_ALLOC_RATE, klen) == 0) {
		if (num(v, vlen, &x) < 0 || x == 0)
			return "'# zt " ZT_FACT_ALLOC_RATE "' wants a number of bytes";
		if (!f->alloc_rate)
			f->alloc_rate = x;
		return NULL;
	}
	for (int i = 0; i < ZT_FACTS_ALLOC; i++)
		if (strlen(zt_factlines_alloc_keys[i]) == klen &&
		    memcmp(key, zt_factlines_alloc_keys[i], klen) == 0) {
			if (num(v, vlen, &x) < 0)
				return "a '# zt alloc-' fact wants a number";
			f->have_alloc |= 1u << i;
			/* The peak's time is the first input's; the rest add up. */
			if (i == ZT_FACTS_ALLOC_PEAK_NS)
				f->alloc[i] = f->alloc[i] ? f->alloc[i] : x;
			else
				f->alloc[i] = f->alloc[i] > UINT64_MAX - x ? UINT64_MAX
									    : f->alloc[i] + x;
			return NULL;
		}
	return NULL;
}

const char *zt_factlines_line(struct zt_facts *f, const char *s, size_t n)
{
	const char *key, *v, *sp;
	size_t klen, vlen;
	uint64_t x;

	static const size_t plen = sizeof ZT_FACT_PREFIX - 1;

	if (n < plen || memcmp(s, ZT_FACT_PREFIX, plen) != 0)
		return NULL;
	key = s + plen;
	sp = memchr(key, ' ', n - plen);
	if (!sp)
		return NULL;
	klen = (size_t)(sp - key);
	v = sp + 1;
	vlen = n - (size_t)(v - s);

#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (klen > 6 && memcmp(key, "alloc-", 6) == 0) {
		return alloc_fact(f, key, klen, v, vlen);
	} else if (IS(ZT_FACT_HZ)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_HZ "' wants a number";
		if (!f->hz)
			f->hz = x;
	} else if (IS(ZT_FACT_TIMER)) {
		if (!f->timer[0])
			word(f->timer, sizeof f->timer, v, vlen);
	} else if (IS(ZT_FACT_LOST)) {
		const char *r = memchr(v, ' ', vlen);
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_LOST "' wants a number";
		f->have_lost = 1;
		f->lost += x;
		if (r && !f->lost_reason[0])
			word(f->lost_reason, sizeof f->lost_reason, r + 1,
			     vlen - (size_t)(r + 1 - v));
	} else if (IS(ZT_FACT_CPU_NS)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_CPU_NS "' wants a number";
		f->have_cpu_ns = 1;
		f->cpu_ns += x;
	} else if (IS(ZT_FACT_CPU_USER_NS) || IS(ZT_FACT_CPU_SYS_NS)) {
		int user = IS(ZT_FACT_CPU_USER_NS);

		if (num(v, vlen, &x) < 0)
			return user ? "'# zt " ZT_FACT_CPU_USER_NS "' wants a number"
				    : "'# zt " ZT_FACT_CPU_SYS_NS "' wants a number";
		*(user ? &f->cpu_user_ns : &f->cpu_sys_ns) += x;
		f->cpu_split_seen |= user ? 1u : 2u;
		f->have_cpu_split = f->cpu_split_seen == 3;
	} else if (IS(ZT_FACT_CPU_BEFORE_NS)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_CPU_BEFORE_NS "' wants a number";
		f->have_cpu_before = 1;
		f->cpu_before_ns += x;
	} else if (IS(ZT_FACT_UNSAMPLED_CPU_NS)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_UNSAMPLED_CPU_NS "' wants a number";
		f->unsampled_cpu_ns += x;
	} else if (IS(ZT_FACT_RATE_CAP)) {
		/* Why the rate is capped: "kernel-tick" (the POSIX timer). */
		if (!f->rate_cap[0])
			word(f->rate_cap, sizeof f->rate_cap, v, vlen);
	} else if (IS(ZT_FACT_PROFILE_CLOCK)) {
		if (vlen == sizeof ZT_RAW_PROFILE_WALL - 1 &&
		    memcmp(v, ZT_RAW_PROFILE_WALL, vlen) == 0)
			f->wall = 1;
		else if (!(vlen == sizeof ZT_RAW_PROFILE_CPU - 1 &&
			   memcmp(v, ZT_RAW_PROFILE_CPU, vlen) == 0))
			return "'# zt " ZT_FACT_PROFILE_CLOCK "' wants 'cpu' or 'wall'";
	} else if (IS(ZT_FACT_OFF_CPU_HZ)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_OFF_CPU_HZ "' wants a number";
		if (!f->off_cpu_hz)
			f->off_cpu_hz = x;
	} else if (IS(ZT_FACT_WALL_NS) || IS(ZT_FACT_OFF_CPU_SAMPLES) ||
		   IS(ZT_FACT_OFF_CPU_REPEATED) || IS(ZT_FACT_OFF_CPU_TORN) ||
		   IS(ZT_FACT_SAMPLER_CPU_NS)) {
		uint64_t *to = IS(ZT_FACT_WALL_NS) ? &f->wall_ns :
			       IS(ZT_FACT_OFF_CPU_SAMPLES) ? &f->off_cpu_samples :
			       IS(ZT_FACT_OFF_CPU_REPEATED) ? &f->off_cpu_repeated :
			       IS(ZT_FACT_OFF_CPU_TORN) ? &f->off_cpu_torn : &f->sampler_cpu_ns;

		if (num(v, vlen, &x) < 0)
			return "a '# zt' count of a wall-clock profile wants a number";
		f->have_wall_ns |= IS(ZT_FACT_WALL_NS);
		*to += x;
	} else if (IS(ZT_FACT_PARTIAL) || IS(ZT_FACT_TRUNCATED)) {
		if (num(v, vlen, &x) < 0)
			return IS(ZT_FACT_PARTIAL) ? "'# zt " ZT_FACT_PARTIAL "' wants a number"
						   : "'# zt " ZT_FACT_TRUNCATED "' wants a number";
		*(IS(ZT_FACT_PARTIAL) ? &f->partial : &f->truncated) += x;
		f->have_partial |= IS(ZT_FACT_PARTIAL);
	} else if (IS(ZT_FACT_MAX_DEPTH)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_MAX_DEPTH "' wants a number";
		if (!f->max_depth)
			f->max_depth = x;
	} else if (IS(ZT_FACT_SAMPLES)) {
		if (num(v, vlen, &x) < 0)
			return "'# zt " ZT_FACT_SAMPLES "' wants a number";
		f->have_samples = 1;
		f->samples += x;
	}
#undef IS
	return NULL;
}

/* "# zt KEY VALUE" with a value from the dump: escaped. */
static void put_text(FILE *out, const char *key, const char *value)
{
	fprintf(out, ZT_FACT_PREFIX "%s ", key);
	zt_escape_fput(out, value, NULL);
	fputc('\n', out);
}

static void put_num(FILE *out, const char *key, uint64_t value)
{
	fprintf(out, ZT_FACT_PREFIX "%s %" PRIu64 "\n", key, value);
}

void zt_factlines_write(FILE *out, const struct zt_raw *d, const char *const *warn, size_t nwarn)
{
	put_num(out, ZT_FACT_VERSION, (uint64_t)d->version);
	/* Where it ran, and the labels it was given: text by the label rules. */
	if (d->host)
		put_text(out, ZT_FACT_HOST, d->host);
	for (size_t i = 0; i < d->nlabels; i++)
		fprintf(out, ZT_FACT_PREFIX ZT_FACT_LABEL " %s %s\n", d->labels[i].key,
			d->labels[i].value);
	put_num(out, ZT_FACT_HZ, d->hz);
	put_text(out, ZT_FACT_TIMER, d->timer ? d->timer : ZT_FACT_TIMER_UNKNOWN);
	if (d->rate_cap)
		put_text(out, ZT_FACT_RATE_CAP, d->rate_cap);
	put_num(out, ZT_FACT_SAMPLES, d->nsamples);
	if (d->lost_detail) {
		fprintf(out, ZT_FACT_PREFIX ZT_FACT_LOST " %" PRIu64 " ", d->lost);
		zt_escape_fput(out, d->lost_detail, NULL);
		fputc('\n', out);
	} else {
		put_num(out, ZT_FACT_LOST, d->lost);
	}
	if (d->max_depth)
		put_num(out, ZT_FACT_MAX_DEPTH, d->max_depth);
	if (d->truncated)
		put_num(out, ZT_FACT_TRUNCATED, d->truncated);
	if (d->unwind)
		put_text(out, ZT_FACT_UNWIND, d->unwind);
	if (d->have_partial)
		put_num(out, ZT_FACT_PARTIAL, d->partial);
	if (d->unsampled)
		put_num(out, ZT_FACT_UNSAMPLED, d->unsampled);
	if (d->unsampled_cpu_ns)
		put_num(out, ZT_FACT_UNSAMPLED_CPU_NS, d->unsampled_cpu_ns);
	if (d->conflict)
		put_text(out, ZT_FACT_PROGRAM_SIGPROF, d->conflict);
	if (d->exec)
		put_text(out, ZT_FACT_EXEC, d->exec);
	if (d->have_cpu)
		put_num(out, ZT_FACT_CPU_NS, d->cpu_ns);
	/*
	 * Both or neither: zt-stat splits CPU time only with both. The time
	 * while sampling ran (with windows: while they were open), as
	 * zt-collect's summary counts it; the time before sampling began
	 * apart (raw.md).
	 */
	if (d->cpu_user_ns >= d->cpu_user_start_ns && d->cpu_sys_ns >= d->cpu_sys_start_ns &&
	    (d->cpu_user_ns || d->cpu_sys_ns)) {
		/*
		 * Under perf-task-clock the user time the samples stand for
		 * is the sampled threads' own (zt-collect's "user CPU-s"):
		 * without threads zt could not sample, said apart.
		 */
		int own = d->have_sampled == 3 && !d->have_windows && d->timer &&
			  strcmp(d->timer, ZT_RAW_TIMER_PERF) == 0;

		put_num(out, ZT_FACT_CPU_USER_NS,
			own ? d->sampled_user_ns : d->cpu_user_ns - d->cpu_user_start_ns);
		put_num(out, ZT_FACT_CPU_SYS_NS, d->cpu_sys_ns - d->cpu_sys_start_ns);
		if (!d->have_windows && d->cpu_user_start_ns + d->cpu_sys_start_ns)
			put_num(out, ZT_FACT_CPU_BEFORE_NS,
				d->cpu_user_start_ns + d->cpu_sys_start_ns);
	} else if (d->cpu_user_ns || d->cpu_sys_ns) {
		put_num(out, ZT_FACT_CPU_USER_NS, d->cpu_user_ns);
		put_num(out, ZT_FACT_CPU_SYS_NS, d->cpu_sys_ns);
	}
	if (d->wall) {
		put_text(out, ZT_FACT_PROFILE_CLOCK, ZT_RAW_PROFILE_WALL);
		if (d->off_cpu_hz)
			put_num(out, ZT_FACT_OFF_CPU_HZ, d->off_cpu_hz);
		if (d->have_off_cpu) {
			put_num(out, ZT_FACT_OFF_CPU_SAMPLES, d->off_cpu_samples);
			put_num(out, ZT_FACT_OFF_CPU_REPEATED, d->off_cpu_repeated);
			put_num(out, ZT_FACT_OFF_CPU_TORN, d->off_cpu_torn);
		}
		if (d->sampler_cpu_ns)
			put_num(out, ZT_FACT_SAMPLER_CPU_NS, d->sampler_cpu_ns);
		if (d->have_wall_ns)
			put_num(out, ZT_FACT_WALL_NS, d->wall_ns);
	}
	if (d->alloc_rate || zt_raw_has_alloc(d)) {
		/* An allocation profile: the collector's counts, as the dump
		   has them, then the "$a" lines' sizes and weights summed. */
		const uint64_t have[] = {
			d->alloc_calls, d->alloc_bytes, d->alloc_samples, d->alloc_peak_bytes,
			d->alloc_peak_ns, d->alloc_inuse_bytes, d->alloc_untracked, d->alloc_lost,
		};

		if (d->alloc_rate)
			put_num(out, ZT_FACT_ALLOC_RATE, d->alloc_rate);
		if (d->alloc_allocator)
			put_text(out, ZT_FACT_ALLOC_ALLOCATOR, d->alloc_allocator);
		for (unsigned i = 0; i < sizeof have / sizeof *have; i++)
			if (d->have_alloc_summary & (1u << i))
				put_num(out, zt_factlines_alloc_keys[i], have[i]);
		put_num(out, ZT_FACT_ALLOC_SAMPLED_BYTES, d->alloc_sized[0]);
		put_num(out, ZT_FACT_ALLOC_ESTIMATED_BYTES, d->alloc_weighed[0]);
	}
	if (d->have_pid)
		put_num(out, ZT_FACT_PID, d->pid);
	if (d->exe)
		put_text(out, ZT_FACT_EXE, d->exe);
	for (size_t i = 0; i < d->nthreads; i++) {
		fprintf(out, ZT_FACT_PREFIX ZT_FACT_THREAD " %" PRIu32 " ", d->threads[i].tid);
		zt_escape_fput(out, d->threads[i].name, NULL);
		fputc('\n', out);
	}
	for (size_t i = 0; i < nwarn; i++)
		put_text(out, ZT_FACT_WARNING, warn[i]);
}

int zt_factlines_before_worth_saying(uint64_t before_ns, uint64_t sampled_ns)
{
	return before_ns >= 20000000 && (double)before_ns >= 0.1 * (double)sampled_ns;
}

int zt_factlines_label(const char *s, size_t n, const char **key, size_t *kn, const char **value,
		       size_t *vn)
{
	static const char label[] = ZT_FACT_PREFIX ZT_FACT_LABEL " ";
	static const char host[] = ZT_FACT_PREFIX ZT_FACT_HOST " ";
	const char *sp;

	if (n > sizeof host - 1 && memcmp(s, host, sizeof host - 1) == 0) {
		*key = ZT_FACT_HOST;
		*kn = sizeof ZT_FACT_HOST - 1;
		*value = s + sizeof host - 1;
		*vn = n - (sizeof host - 1);
		return 1;
	}
	if (n <= sizeof label - 1 || memcmp(s, label, sizeof label - 1) != 0)
		return 0;
	*key = s + sizeof label - 1;
	sp = memchr(*key, ' ', n - (sizeof label - 1));
	*kn = sp ? (size_t)(sp - *key) : n - (sizeof label - 1);
	*value = sp ? sp + 1 : s + n;
	*vn = (size_t)(s + n - *value);
	return 1;
}
