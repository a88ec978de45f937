/*
 * ehframe.h — the functions of a file as its call-frame information lists
 * them: one range per FDE of .eh_frame. Every x86-64 object has .eh_frame,
 * stripped or not (the unwinder needs it), and its FDEs start where the
 * compiler's functions start, so a stripped file's internal functions, in no
 * symbol table, can still be told apart and named by their start
 * (zt-symbolize writes "[liblzma.so.5+0x1a2b0]"). The FDEs are read from
 * .eh_frame_hdr's sorted table when the file has one and it is sound, and
 * from .eh_frame itself otherwise.
 */
#ifndef ZT_EHFRAME_H
#define ZT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "elfread.h"

/* The pcs one FDE covers, link-time addresses: [start, start + size). */
struct zt_fde {
	uint64_t start, size;
	uint32_t up;		/* the enclosing FDE's link (ranges.h) */
};

struct zt_ehframe {
	struct zt_fde *fdes;	/* sorted by start */
	size_t n;
	int from_hdr;		/* read through .eh_frame_hdr's table */
	char problem[128];	/* what was wrong with .eh_frame_hdr, or "" */
};

/*
 * Read the FDEs of e, which must outlive nothing here (the table is a
 * copy). A file without .eh_frame gives an empty table. When
 * .eh_frame_hdr's table is unsound (unsorted, an entry outside .eh_frame,
 * an FDE that starts elsewhere than the table says, an encoding that is not
 * one), problem says what, and .eh_frame is walked instead. Malformed CIEs
 * and FDEs of .eh_frame are skipped. Free t with zt_ehframe_free.
 */
void zt_ehframe_read(const struct zt_elf *e, struct zt_ehframe *t);

/* The FDE whose range holds vaddr, or NULL (the innermost where they nest). */
const struct zt_fde *zt_ehframe_lookup(const struct zt_ehframe *t, uint64_t vaddr);

void zt_ehframe_free(struct zt_ehframe *t);

#endif
