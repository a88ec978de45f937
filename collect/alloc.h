/*
 * alloc.h — allocation samples (alloc.c; top layer, beside intercept):
 * zt-collect --alloc[=BYTES] interposes the allocator and samples the bytes
 * it hands out as a Poisson process of mean BYTES (formats/raw.md,
 * "Version 6").
 */
#ifndef ZT_ALLOC_H
#define ZT_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

/*
 * Read ZT_ALLOC (the mean bytes between samples) in the constructor,
 * before the first dump opens: 0 when allocation sampling is off, -1 when
 * the value is bad (the run is not profiled, as for a bad ZT_HZ).
 */
ZT_HIDDEN int zt_alloc_init(void);
/* The mean bytes between samples; 0 when --alloc is off. */
ZT_HIDDEN uint64_t zt_alloc_rate(void);
/*
 * An anonymous mapping of len bytes at p (intercept.c: readable or
 * writable, neither MAP_FIXED nor MAP_NORESERVE, so not address space a
 * runtime reserves or commits in place, as Go's does), made by the code
 * that caller returns to (zt's own are left out), and its unmapping.
 */
ZT_HIDDEN void zt_alloc_mapped(void *p, size_t len, const void *caller);
ZT_HIDDEN void zt_alloc_unmapped(void *p, size_t len);

/* The calling thread, t, ends: its counts go into its slot. */
ZT_HIDDEN void zt_alloc_thread_end(struct zt_thread *t);

#endif
