/*
 * tables.c — the unwind tables of every loaded object, kept current for the
 * handler.
 *
 * At start and after each dlopen and dlclose, the loaded objects are listed
 * (dl_iterate_phdr, never in a handler: it takes the loader's lock), each
 * new one's .eh_frame is compiled (cfi.c) from its image in memory, or for
 * a big object (ZT_CFI_LAZY_FDES) made a lazy table that the handler fills
 * as samples land in it, and a new set of tables is published with one
 * atomic store. Tables of objects
 * still loaded are shared between sets. A handler counts itself in while it
 * reads a set; the old set, and the tables no longer in the new one, are
 * unmapped only once no handler is inside, or kept if one stays too long.
 */
#include "tables.h"
#include "unwind.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static struct zt_cfi_set *volatile published;
static volatile long readers;
static volatile long closing;	/* dlcloses under way: code may be unmapped */
static pthread_mutex_t update_lock = PTHREAD_MUTEX_INITIALIZER;

const struct zt_cfi_set *zt_tables_enter(void)
{
	__atomic_fetch_add(&readers, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&published, __ATOMIC_SEQ_CST);
}

void zt_tables_leave(void)
{
	__atomic_fetch_sub(&readers, 1, __ATOMIC_SEQ_CST);
}

int zt_tables_code_readable(void)
{
	return __atomic_load_n(&closing, __ATOMIC_SEQ_CST) == 0;
}

/*
 * A handler counts itself in before it reads closing, and this sets closing
 * before it waits for the count to drop: so every handler either sees it
 * set or is waited for. One that takes too long is not waited for (as in
 * zt_tables_update).
 */
void zt_tables_closing(void)
{
	__atomic_fetch_add(&closing, 1, __ATOMIC_SEQ_CST);
	for (long spin = 0; __atomic_load_n(&readers, __ATOMIC_SEQ_CST) != 0 && spin <= 100000; spin++)
		sched_yield();
}

void zt_tables_closed(void)
{
	__atomic_fetch_sub(&closing, 1, __ATOMIC_SEQ_CST);
}

/* Objects found by one scan: new tables are built, known ones reused. */
struct scan {
	const struct zt_cfi_set *old;
	struct zt_cfi_table **t;
	uint32_t n, cap;
	struct zt_cfi_seg *seg;		/* every object's segments, CFI or not */
	uint32_t nseg, segcap;
	int failed;
};

static struct zt_cfi_table *known(const struct zt_cfi_set *s, uintptr_t key)
{
	for (uint32_t i = 0; s && i < s->n; i++)
		if (s->t[i]->key == key)
			return s->t[i];
	return NULL;
}

/* Room for more entries of size each in *buf (mapped, as malloc is not used here). */
static int grow(void **buf, uint32_t n, uint32_t *cap, uint32_t more, size_t each)
{
	uint32_t c = *cap ? *cap : 64;
	void *m;

	if (n + more <= *cap)
		return 0;
	while (c < n + more)
		c *= 2;
	m = zt_sys_map(c * each);
	if (m == MAP_FAILED)
		return -1;
	if (n)
		memcpy(m, *buf, n * each);
	if (*buf)
		zt_sys_unmap(*buf, *cap * each);
	*buf = m;
	*cap = c;
	return 0;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *sc = data;
	struct zt_cfi_image img;
	struct zt_cfi_stats st;
	struct zt_cfi_table *t;
	size_t nseg = zt_cfi_segs_of(info, NULL, 0);
	int64_t t0;

	(void)size;
	if (nseg > 0) {
		if (grow((void **)&sc->seg, sc->nseg, &sc->segcap, (uint32_t)nseg, sizeof *sc->seg) < 0) {
			sc->failed = 1;
			return 1;
		}
		sc->nseg += (uint32_t)zt_cfi_segs_of(info, sc->seg + sc->nseg, nseg);
	}
	if (zt_cfi_image_of(info, &img) < 0)
		return 0;
	t = known(sc->old, img.hdr);
	if (!t) {
		t0 = zt_sys_cpu_ns();
		t = zt_cfi_lazy(&img, ZT_CFI_LAZY_FDES);
		if (t) {
			/* Its rejected FDEs are counted as lookups meet them. */
			t->nrejected = &zt_state.cfi_skipped;
		} else {
			t = zt_cfi_build(&img, &st);
			__atomic_fetch_add(&zt_state.cfi_skipped, st.skipped, __ATOMIC_RELAXED);
		}
		zt_state.cfi_build_ns += (uint64_t)(zt_sys_cpu_ns() - t0);
		if (!t)
			return 0;
	}
	if (grow((void **)&sc->t, sc->n, &sc->cap, 1, sizeof *sc->t) < 0) {
		if (!known(sc->old, t->key))
			zt_cfi_free(t);
		sc->failed = 1;
		return 1;
	}
	sc->t[sc->n++] = t;
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

/* A set of sc's tables, sorted, overlaps dropped (freed if new), and its segments after them. */
static struct zt_cfi_set *make_set(struct scan *sc)
{
	size_t size = sizeof(struct zt_cfi_set) + sc->n * sizeof(struct zt_cfi_table *) +
		      sc->nseg * sizeof(struct zt_cfi_seg);
	struct zt_cfi_set *s = zt_sys_map(size);
	struct zt_cfi_seg *seg;

	if (s == MAP_FAILED)
		return NULL;
	s->size = size;
	seg = (struct zt_cfi_seg *)(s->t + sc->n);
	if (sc->nseg)
		zt_sys_sort(sc->seg, sc->nseg, sizeof *sc->seg, seg_by_lo);
	for (uint32_t i = 0; i < sc->nseg; i++)
		if (s->nseg == 0 || sc->seg[i].lo >= seg[s->nseg - 1].hi)
			seg[s->nseg++] = sc->seg[i];
	s->seg = seg;
	zt_sys_sort(sc->t, sc->n, sizeof *sc->t, by_lo);
	for (uint32_t i = 0; i < sc->n; i++) {
		if (s->n > 0 && sc->t[i]->lo < s->t[s->n - 1]->hi) {
			if (!known(sc->old, sc->t[i]->key))
				zt_cfi_free(sc->t[i]);
			continue;
		}
		s->t[s->n++] = sc->t[i];
	}
	return s;
}

/* A fork must not happen halfway through an update: the child could never
 * take the lock again. */
static void lock(void)
{
	pthread_mutex_lock(&update_lock);
}

static void unlock(void)
{
	pthread_mutex_unlock(&update_lock);
}

static void register_atfork(void)
{
	pthread_atfork(lock, unlock, unlock);
}

/*
 * Rebuild the set from the objects loaded now and publish it. Not for
 * signal handlers. Serialized: two threads may dlopen at once.
 */
void zt_tables_update(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct scan sc = { 0 };
	struct zt_cfi_set *s, *old;
	uint64_t faults = zt_sys_minflt();

	if (zt_state.unwind == ZT_UNWIND_FP)
		return;
	pthread_once(&once, register_atfork);
	pthread_mutex_lock(&update_lock);
	sc.old = published;
	dl_iterate_phdr(scan_one, &sc);
	s = sc.failed ? NULL : make_set(&sc);
	if (!s) {
		for (uint32_t i = 0; i < sc.n; i++)
			if (!known(sc.old, sc.t[i]->key))
				zt_cfi_free(sc.t[i]);
	} else {
		uint64_t rows = 0, bytes = s->size, lazy = 0;

		for (uint32_t i = 0; i < s->n; i++) {
			rows += s->t[i]->nrows;
			bytes += s->t[i]->size;
			lazy += s->t[i]->lazy != 0;
		}
		zt_state.cfi_objects = s->n;
		zt_state.cfi_lazy = lazy;
		zt_state.cfi_rows = rows;
		zt_state.cfi_bytes = bytes;
		old = __atomic_exchange_n(&published, s, __ATOMIC_SEQ_CST);
		/*
		 * A handler that read the old set counted itself in first, so
		 * once the count drops to 0 none is left reading it. Handlers
		 * take microseconds; one that takes longer keeps the old set
		 * alive for good.
		 */
		for (long spin = 0; __atomic_load_n(&readers, __ATOMIC_SEQ_CST) != 0; spin++) {
			if (spin > 100000) {
				old = NULL;
				break;
			}
			sched_yield();
		}
		if (old) {
			for (uint32_t i = 0; i < old->n; i++)
				if (!known(s, old->t[i]->key))
					zt_cfi_free(old->t[i]);
			zt_sys_unmap(old, old->size);
		}
	}
	if (sc.t)
		zt_sys_unmap(sc.t, sc.cap * sizeof *sc.t);
	if (sc.seg)
		zt_sys_unmap(sc.seg, sc.segcap * sizeof *sc.seg);
	zt_cfi_scratch_free();
	pthread_mutex_unlock(&update_lock);
	__atomic_fetch_add(&zt_state.own_minflt, zt_sys_minflt() - faults, __ATOMIC_RELAXED);
}
