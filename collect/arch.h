/*
 * arch.h — the architecture the collector is built for: one header per
 * architecture (arch-x86_64.h, ...) holds what differs between them, the
 * registers taken from a signal's ucontext, the frame-record step, the
 * DWARF register numbers of CFI, the signal frame's layout, the shape of a
 * call and of a PLT entry, and the raw system call. Everything else in
 * collect/ is written once. A new architecture is one new header, listed
 * here.
 */
#ifndef ZT_ARCH_H
#define ZT_ARCH_H

#if defined(__x86_64__)
#include "arch-x86_64.h"
#elif defined(__aarch64__)
#include "arch-aarch64.h"
#else
#error "collect/arch.h: no arch-*.h for this architecture"
#endif

#endif
