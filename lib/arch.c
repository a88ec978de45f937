/*
 * arch.c — the architectures zt's dumps come from, by name and by ELF
 * machine (arch.h). A new architecture is a row here and its ZT_RAW_ARCH_*
 * name in rawfmt.h.
 */
#include "arch.h"
#include "rawfmt.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	uint16_t machine;
} arches[ZT_NARCH] = {
	[ZT_ARCH_X86_64] = { ZT_RAW_ARCH_X86_64, EM_X86_64 },
	[ZT_ARCH_AARCH64] = { ZT_RAW_ARCH_AARCH64, EM_AARCH64 },
};

int zt_arch_by_name(const char *name)
{
	for (int i = 0; i < ZT_NARCH; i++)
		if (strcmp(name, arches[i].name) == 0)
			return i;
	return -1;
}

int zt_arch_by_machine(uint16_t m)
{
	for (int i = 0; i < ZT_NARCH; i++)
		if (arches[i].machine == m)
			return i;
	return -1;
}

int zt_arch_check(enum zt_arch a, uint16_t m, char *buf, size_t len)
{
	int other = zt_arch_by_machine(m);

	if (m == arches[a].machine)
		return 0;
	if (other >= 0)
		snprintf(buf, len, "architecture mismatch: the dump is of an %s run, the file is %s",
			 arches[a].name, arches[other].name);
	else
		snprintf(buf, len, "architecture mismatch: the dump is of an %s run, the file is "
			 "for ELF machine %u", arches[a].name, (unsigned)m);
	return -1;
}
