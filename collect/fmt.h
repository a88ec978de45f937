/*
 * fmt.h — numbers written as text without stdio, for the dump's lines and
 * paths (bottom of collect/). Async-signal-safe.
 */
#ifndef ZT_FMT_H
#define ZT_FMT_H

#include <stdint.h>

/* Writes v in the base (10 or 16) at p; returns the end. */
__attribute__((visibility("hidden"))) char *zt_fmt_u64(char *p, uint64_t v, int base);

#endif
