/*
 * perfmap.h — the program's /tmp/perf-PID.map, copied into the dump at the
 * end (perfmap.c; above state and files).
 */
#ifndef ZT_PERFMAP_H
#define ZT_PERFMAP_H

#include "state.h"

ZT_HIDDEN void zt_perfmap_put(int fd);

#endif
