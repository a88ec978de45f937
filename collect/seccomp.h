/*
 * seccomp.h — what a seccomp filter leaves zt (seccomp.c; top of collect/).
 */
#ifndef ZT_SECCOMP_H
#define ZT_SECCOMP_H

#include "state.h"

/* At start: a filter inherited through exec; -1 when zt must not start. */
ZT_HIDDEN int zt_seccomp_start(void);

#endif
