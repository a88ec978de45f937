/*
 * dwarfpe.h — the DWARF pointer encodings of .eh_frame and .eh_frame_hdr
 * (DW_EH_PE_*), shared by the collector's CFI compiler (collect/cfi.c) and
 * the symbolizer's FDE reader (lib/ehframe.c), and the call-frame
 * instructions (DW_CFA_*) that collect/cfi.c interprets. Both read the
 * bytes through one cursor, lib/ehcursor.h. libdwarf's dwarf.h
 * defines DW_CFA_* as macros: a file that includes it does not include
 * this one.
 */
#ifndef ZT_DWARFPE_H
#define ZT_DWARFPE_H

enum {
	PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04, PE_SLEB128 = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c, PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

/*
 * Call-frame instructions (DWARF 4, section 7.23; the GNU and AArch64
 * extensions that .eh_frame uses). The first three hold their operand in
 * the low six bits (DW_CFA_OPERAND); the rest are whole bytes.
 */
enum {
	DW_CFA_advance_loc = 0x40, DW_CFA_offset = 0x80, DW_CFA_restore = 0xc0,
	DW_CFA_PRIMARY = 0xc0, DW_CFA_OPERAND = 0x3f,
	DW_CFA_nop = 0x00, DW_CFA_set_loc = 0x01, DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03, DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05, DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07, DW_CFA_same_value = 0x08, DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a, DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c, DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e, DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10, DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12, DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14, DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_AARCH64_negate_ra_state = 0x2d,	/* DW_CFA_GNU_window_save elsewhere */
	DW_CFA_GNU_args_size = 0x2e, DW_CFA_GNU_negative_offset_extended = 0x2f,
};

#endif
