/*
 * arch.h — the machine architectures a raw dump can come from (its "arch"
 * header key, formats/raw.md) and the ELF machine each one's objects carry,
 * so that the symbolizer can refuse an object built for another machine
 * than the dump's instead of naming its addresses wrongly. A dump without
 * the key is x86_64, where zt ran alone before.
 */
#ifndef ZT_ARCH_H
#define ZT_ARCH_H

#include <stddef.h>
#include <stdint.h>

enum zt_arch {
	ZT_ARCH_X86_64,		/* the default: a dump without "arch" */
	ZT_ARCH_AARCH64,
	ZT_NARCH
};

/* The arch named name ("x86_64", "aarch64"), or -1 when zt knows none. */
int zt_arch_by_name(const char *name);

/* The arch whose objects carry ELF machine m, or -1. */
int zt_arch_by_machine(uint16_t m);

/*
 * Whether an object of ELF machine m belongs in a dump of arch a: 0, or -1
 * with why in buf ("architecture mismatch: the dump is of an aarch64 run,
 * the file is x86_64").
 */
int zt_arch_check(enum zt_arch a, uint16_t m, char *buf, size_t len);

/* "x86_64, aarch64": every name zt knows, for a message. */
#define ZT_ARCH_NAMES "x86_64, aarch64"

#endif
