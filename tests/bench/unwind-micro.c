/*
 * unwind-micro.c — what one unwind costs, timed directly: the handler's
 * zt_unwind run a million times on a real stack (main, libc's qsort, a
 * comparator: code with and without frame pointers), with the tables of
 * every loaded object compiled as the collector compiles them, in each
 * mode (every return address checked against the loaded objects' segments,
 * as the collector does). The difference between auto and fp, times the sampling rate, is
 * the share of CPU time CFI unwinding adds; whole-program timings on a
 * shared VM vary more than that (tests/bench/unwind-cost.sh).
 *
 * Built and run by tests/bench/unwind-micro.sh.
 */
#include "cfi.h"
#include "unwind.h"

#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

static struct zt_cfi_set *set;
static struct zt_cfi_seg segs[512];
static uint32_t nsegs;

static int add(struct dl_phdr_info *info, size_t size, void *data)
{
	struct zt_cfi_image img;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;

	(void)size;
	(void)data;
	if (nsegs + zt_cfi_segs_of(info, NULL, 0) <= 512)
		nsegs += (uint32_t)zt_cfi_segs_of(info, segs + nsegs, 512 - nsegs);
	if (zt_cfi_image_of(info, &img) < 0)
		return 0;
	if ((t = zt_cfi_build(&img, &st)))
		set->t[set->n++] = t;
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct zt_cfi_table *x = *(struct zt_cfi_table *const *)a;
	const struct zt_cfi_table *y = *(struct zt_cfi_table *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int seg_by_lo(const void *a, const void *b)
{
	const struct zt_cfi_seg *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int measured;

static __attribute__((noinline)) void measure(void)
{
	enum { N = 1000000 };
	static const char *const names[] = { "auto", "cfi", "fp" };
	static const enum zt_unwind_mode modes[] = { ZT_UNWIND_AUTO, ZT_UNWIND_CFI, ZT_UNWIND_FP };
	ucontext_t uc;
	pthread_attr_t attr;
	void *addr;
	size_t size, n = 0;
	struct zt_regs r;
	uint64_t out[128];
	enum zt_unwind_end end = ZT_UNWIND_PARTIAL;
	double ns[3];

	memset(&r, 0, sizeof r);
	getcontext(&uc);
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &addr, &size);
	r.pc = (uintptr_t)uc.uc_mcontext.gregs[REG_RIP];
	r.sp = (uintptr_t)uc.uc_mcontext.gregs[REG_RSP];
	r.rbp = (uintptr_t)uc.uc_mcontext.gregs[REG_RBP];
	r.rbx = (uintptr_t)uc.uc_mcontext.gregs[REG_RBX];
	r.low = r.sp;
	r.high = (uintptr_t)addr + size;
	for (int m = 0; m < 3; m++) {
		double t0 = now();

		for (int i = 0; i < N; i++)
			n = zt_unwind(&r, set, modes[m], out, 128, &end);
		ns[m] = (now() - t0) * 1e9 / N;
		printf("| %s | %zu | %s | %.0f |\n", names[m], n,
		       end == ZT_UNWIND_COMPLETE ? "yes" : "no", ns[m]);
	}
	printf("\nauto - fp: %.0f ns per sample; at 997 Hz that is %.3f%% of CPU time\n",
	       ns[0] - ns[2], (ns[0] - ns[2]) * 997 / 1e9 * 100);
}

static int cmp(const void *a, const void *b)
{
	if (!measured) {
		measured = 1;
		measure();
	}
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[64];

	set = calloc(1, sizeof *set + 256 * sizeof set->t[0]);
	dl_iterate_phdr(add, NULL);
	qsort(set->t, set->n, sizeof set->t[0], by_lo);
	/* The segments, as tables.c gives them: every step's return address is checked against them. */
	qsort(segs, nsegs, sizeof segs[0], seg_by_lo);
	set->seg = segs;
	set->nseg = nsegs;
	printf("| mode | frames | reaches the entry | ns per unwind |\n| --- | ---: | --- | ---: |\n");
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof v[0], cmp);
	return 0;
}
