/*
 * vdso.h — the vDSO's image in the dump (vdso.c; beside perfmap, below
 * dump, which calls it when it writes a dump's header).
 */
#ifndef ZT_VDSO_H
#define ZT_VDSO_H

#include "state.h"

/*
 * Write the "vdso" section to fd: the address and size of the vDSO's
 * image and its bytes in hex (formats/raw.md, "The vDSO"). Nothing when
 * the process has no vDSO (qemu-user) or its image is not a whole ELF
 * object inside its mapping. The first call finds and checks it (it reads
 * /proc/self/maps: not for signal handlers); later ones only write.
 */
ZT_HIDDEN void zt_vdso_put(int fd);

#endif
