/*
 * threadstates.h — where a wall-clock profile's time went by thread state: on a
 * CPU, off it (blocked in a wait), or waiting for one, per thread and per
 * process (zt-stat's header). Weights are ns; lib/waitframes.h tells the
 * states.
 */
#ifndef ZT_THREADSTATES_H
#define ZT_THREADSTATES_H

#include <stddef.h>
#include <stdint.h>

#include "waitframes.h"

struct zt_threadstates;

/* One thread's time, or one process's (tid 0) summed over its threads. */
struct zt_threadstates_row {
	uint64_t pid, tid;	/* 0 when the input does not say */
	char name[64];		/* the thread's name as its first record gave it */
	uint64_t ns[ZT_STATES];	/* by enum zt_state */
};

struct zt_threadstates *zt_threadstates_new(void);
void zt_threadstates_free(struct zt_threadstates *s);

/*
 * Add w ns in state st for thread tid of process pid (decimal text,
 * either may be empty), named name; -1 when a sum would pass 2^64 - 1.
 */
int zt_threadstates_add(struct zt_threadstates *s, const char *pid, size_t pidn, const char *tid,
			size_t tidn, const char *name, size_t namen, enum zt_state st, uint64_t w);

/* The sum of every thread's time in st. */
uint64_t zt_threadstates_total(const struct zt_threadstates *s, enum zt_state st);

/*
 * The rows to report, in order: each process (tid 0), then its threads,
 * by pid and tid; none when no record gave a thread id (folded input).
 * *n is set to their number; the array is s's, valid until the next add.
 */
const struct zt_threadstates_row *zt_threadstates_rows(struct zt_threadstates *s, size_t *n);

#endif
