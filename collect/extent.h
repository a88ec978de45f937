/*
 * extent.h — a loaded object's extent from its own ELF header as loaded
 * (__ehdr_start), for libzt-prof.so (dump.c) and libzt-alloc.so
 * (allocshim.c), which each know themselves so.
 */
#ifndef ZT_EXTENT_H
#define ZT_EXTENT_H

#include <link.h>
#include <stdint.h>

/* [*lo, *hi): the PT_LOADs of the object whose header is eh; 0 when none is found. */
static inline int zt_extent_of(const ElfW(Ehdr) *eh, uintptr_t *lo, uintptr_t *hi)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	uintptr_t bias = 0;
	int have_bias = 0;

	*lo = UINTPTR_MAX;
	*hi = 0;
	/* The PT_LOAD at file offset 0 holds the ELF header: the load bias. */
	for (int i = 0; i < eh->e_phnum && !have_bias; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
			bias = (uintptr_t)eh - (uintptr_t)ph[i].p_vaddr;
			have_bias = 1;
		}
	for (int i = 0; have_bias && i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (bias + ph[i].p_vaddr < *lo)
			*lo = bias + ph[i].p_vaddr;
		if (bias + ph[i].p_vaddr + ph[i].p_memsz > *hi)
			*hi = bias + ph[i].p_vaddr + ph[i].p_memsz;
	}
	return have_bias && *lo < *hi;
}

#endif
