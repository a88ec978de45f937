/*
 * cfi.h — unwind tables compiled from an ELF object's .eh_frame, for the
 * sampler's handler.
 *
 * Every object carries call-frame information (CFI) in .eh_frame,
 * found through PT_GNU_EH_FRAME, stripped or not: for each pc, how to find
 * the canonical frame address (CFA, the caller's stack pointer), the return
 * address and the saved registers. Interpreting the DWARF call-frame
 * programs is too much work for a signal handler, so cfi.c runs them once,
 * outside it (at start and after each dlopen), and keeps for each pc range
 * only what an unwinder needs: one row of a few bytes, sorted by pc. The
 * handler (unwind.c) looks rows up by binary search and reads the stack.
 *
 * Nothing here is called from a signal handler except zt_cfi_find and
 * zt_cfi_row_at, which read immutable tables.
 */
#ifndef ZT_CFI_H
#define ZT_CFI_H

#include <stddef.h>
#include <stdint.h>

/*
 * How a row finds the CFA, or why it cannot. The registers are named by
 * their role (arch.h says which they are): sp, the frame pointer fp (rbp on
 * x86-64), and x, one more register that a rule may use (rbx on x86-64).
 */
enum zt_cfa_kind {
	ZT_CFA_NONE,	/* no FDE covers this pc */
	ZT_CFA_SP,	/* CFA = sp + cfa_off */
	ZT_CFA_FP,	/* CFA = fp + cfa_off */
	ZT_CFA_PLT,	/* CFA = sp + cfa_off + ((pc & 15) >= arg ? 8 : 0): the x86-64 PLT's expression */
	ZT_CFA_SIGNAL,	/* a signal trampoline: the interrupted registers are in the ucontext at sp */
	ZT_CFA_END,	/* the return address is undefined: the thread's outermost frame */
	ZT_CFA_BAD,	/* a rule zt does not follow (another register, an expression) */
	ZT_CFA_X,	/* CFA = x + cfa_off (ld.so's _dl_runtime_resolve realigns rsp into rbx) */
};

/* Where the caller's value of a register (fp, x) is. */
enum zt_reg_rule {
	ZT_REG_SAME,	/* unchanged by this frame */
	ZT_REG_SAVED,	/* at CFA + arg (x: CFA + x_off) */
	ZT_REG_LOST,	/* somewhere zt does not follow */
};

/*
 * One row: from pc (table lo + start) up to the next row's start. The return
 * address is at CFA + ZT_ARCH_RA_AT (arch.h) in every row but END and
 * SIGNAL (rows with another rule are BAD).
 */
struct zt_cfi_row {
	uint32_t start;		/* pc - table lo */
	int32_t cfa_off;
	int16_t arg;		/* fp's offset from the CFA (SAVED), or the PLT threshold */
	uint8_t kind;		/* enum zt_cfa_kind */
	uint8_t fp;		/* enum zt_reg_rule, for fp */
	int16_t x_off;		/* x's offset from the CFA (SAVED) */
	uint8_t x;		/* enum zt_reg_rule, for x */
};

/* The rows of one object, immutable once built. */
struct zt_cfi_table {
	uintptr_t lo, hi;	/* the pcs its FDEs cover, run-time addresses */
	uintptr_t key;		/* the object's .eh_frame_hdr address: same object, same table */
	uint32_t nrows;
	const struct zt_cfi_row *rows;
	size_t size;		/* bytes mapped for this table and its rows */
};

/* What a build read and skipped, for the dump's summary and for tests. */
struct zt_cfi_stats {
	uint32_t fdes;		/* FDEs compiled */
	uint32_t skipped;	/* CIEs or FDEs skipped as malformed or unsupported, or outside the object's code */
	uint32_t bad_rows;	/* rows with a rule zt does not follow */
};

/*
 * The bytes that hold .eh_frame_hdr and .eh_frame: a loaded object's
 * read-only segment in memory, or a buffer in tests. Every read stays inside
 * [mem, mem + len); addr is mem[0]'s run-time address, which pc-relative and
 * data-relative pointers are computed from.
 */
enum { ZT_CFI_MAX_TEXT = 8 };	/* executable PT_LOADs of one object kept */

struct zt_cfi_image {
	const unsigned char *mem;
	size_t len;
	uintptr_t addr;
	uintptr_t hdr;		/* run-time address of .eh_frame_hdr */
	/*
	 * The object's executable PT_LOADs, [lo, hi) at run time: an FDE
	 * whose range is not inside one of them is rejected (counted as
	 * skipped), so that one object's bad data never covers another's
	 * code. ntext 0: not checked (a buffer in tests).
	 */
	uint32_t ntext;
	struct { uintptr_t lo, hi; } text[ZT_CFI_MAX_TEXT];
};

struct dl_phdr_info;

/*
 * The image of a loaded object (from dl_iterate_phdr): the PT_LOAD segment
 * that holds its .eh_frame_hdr (PT_GNU_EH_FRAME), in memory, and its
 * executable PT_LOADs. Returns 0, or -1 when the object has none (or more
 * than ZT_CFI_MAX_TEXT executable segments: then its FDEs could not be
 * checked).
 */
int zt_cfi_image_of(const struct dl_phdr_info *info, struct zt_cfi_image *img);

/*
 * Compile the CFI of img into a new table (mmapped; free with zt_cfi_free).
 * Malformed CIEs and FDEs are skipped and counted; a table with no rows is
 * not made. Returns the table, or NULL when img has no usable CFI. Not for
 * signal handlers (it allocates).
 */
struct zt_cfi_table *zt_cfi_build(const struct zt_cfi_image *img, struct zt_cfi_stats *st);
void zt_cfi_free(struct zt_cfi_table *t);

/*
 * The row for pc in t, or NULL when pc is outside every FDE.
 * Async-signal-safe.
 */
const struct zt_cfi_row *zt_cfi_row_at(const struct zt_cfi_table *t, uintptr_t pc);

/*
 * A PT_LOAD segment of a loaded object, [lo, hi) at run time: memory the
 * handler may read (the unwinder reads code and PLT slots only there).
 */
struct zt_cfi_seg {
	uintptr_t lo, hi;
	uint32_t exec;		/* PF_X: code */
};

/*
 * The PT_LOAD segments of a loaded object (from dl_iterate_phdr), with or
 * without CFI, into out[0..max). Returns how many there are (may exceed
 * max: only max are stored).
 */
size_t zt_cfi_segs_of(const struct dl_phdr_info *info, struct zt_cfi_seg *out, size_t max);

/*
 * A set of tables, sorted by lo and not overlapping, published whole, and
 * the segments of every loaded object (the objects without CFI too),
 * sorted by lo and not overlapping. nseg 0: the segments are not known
 * (a set made in a test), and nothing is checked against them.
 */
struct zt_cfi_set {
	uint32_t n;
	size_t size;			/* bytes mapped for the set itself */
	uint32_t nseg;
	const struct zt_cfi_seg *seg;
	struct zt_cfi_table *t[];
};

/* The segment of s that holds address a, or NULL. Async-signal-safe. */
const struct zt_cfi_seg *zt_cfi_seg_of(const struct zt_cfi_set *s, uintptr_t a);

/* The table whose range holds pc, or NULL. Async-signal-safe. */
const struct zt_cfi_table *zt_cfi_find(const struct zt_cfi_set *s, uintptr_t pc);

#endif
