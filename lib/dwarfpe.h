/*
 * dwarfpe.h — the DWARF pointer encodings of .eh_frame and .eh_frame_hdr
 * (DW_EH_PE_*), shared by the collector's CFI compiler (collect/cfi.c) and
 * the symbolizer's FDE reader (lib/ehframe.c).
 */
#ifndef ZT_DWARFPE_H
#define ZT_DWARFPE_H

enum {
	PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04, PE_SLEB128 = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c, PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

#endif
