/*
 * cfi.h — unwind tables compiled from an ELF object's .eh_frame, for the
 * sampler's handler.
 *
 * Every object carries call-frame information (CFI) in .eh_frame,
 * found through PT_GNU_EH_FRAME, stripped or not: for each pc, how to find
 * the canonical frame address (CFA, the caller's stack pointer), the return
 * address and the saved registers. For an object of a usual size, cfi.c
 * runs the DWARF call-frame programs once, outside the handler (at start
 * and after each dlopen), and keeps for each pc range only what an unwinder
 * needs: one row of a few bytes, sorted by pc, that the handler (unwind.c)
 * finds by binary search. A big object (rustc's librustc_driver: 2.9 M
 * rows, 46 MB, 0.2 s) would cost that at start whether or not a sample
 * ever lands in it, so its table is lazy: the handler finds the FDE that
 * holds a pc through .eh_frame_hdr's sorted search table, runs that one
 * FDE's program up to the pc, bounded and without allocating, and keeps
 * the row in a preallocated cache, so a return address already seen costs
 * one hashed load.
 *
 * Nothing here is called from a signal handler except zt_cfi_find,
 * zt_cfi_row_at (immutable tables) and zt_cfi_lookup.
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

/*
 * A lazy table's cache slot: the row for the pc in key (0: empty, 1: being
 * written). A writer takes a slot by compare-and-swap and stores the key
 * last; a reader copies the row and takes it only if the key is still the
 * same. A pc's row never changes within one table, so a slot rewritten with
 * the same key holds the same row.
 */
struct zt_cfi_slot {
	uint64_t key;
	uint64_t row[2];	/* a struct zt_cfi_row */
};

enum { ZT_CFI_REJECTED = 64 };	/* rejected FDEs a lazy table tells apart */

/*
 * The rows of one object: compiled (rows), immutable once built, or lazy
 * (lazy set, nrows 0), found in the object's CFI when first asked for.
 */
struct zt_cfi_table {
	uintptr_t lo, hi;	/* the pcs its FDEs cover, run-time addresses */
	uintptr_t key;		/* the object's .eh_frame_hdr address: same object, same table */
	uint32_t nrows;
	const struct zt_cfi_row *rows;
	size_t size;		/* bytes mapped for this table and its rows (or its cache) */
	int lazy;
	/* A lazy table's own: */
	struct zt_cfi_image img;	/* the object's image, which must stay mapped */
	const unsigned char *search;	/* .eh_frame_hdr's table: (pc, FDE) pairs of hdr-relative int32s */
	uint32_t nfdes;
	uint32_t nslots;		/* the cache's size: a power of two */
	struct zt_cfi_slot *slots;	/* in the table's mapping, written by lookups */
	/* Rejected FDEs met, each counted once: their offsets in img + 1 (0: free). */
	uint32_t *rejected;		/* ZT_CFI_REJECTED of them, in the mapping too */
	uint64_t *nrejected;	/* how many (past ZT_CFI_REJECTED, each lookup counts) */
};

/* What a build read and skipped, for the dump's summary and for tests. */
struct zt_cfi_stats {
	uint32_t fdes;		/* FDEs compiled */
	uint32_t skipped;	/* CIEs or FDEs skipped as malformed or unsupported, or outside the object's code */
	uint32_t bad_rows;	/* rows with a rule zt does not follow */
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
 * zt_cfi_build keeps its scratch mapped from one build to the next (its
 * pages faulted in once for all the objects of a scan); this unmaps it.
 * Builds are not concurrent: tables.c makes them under its lock.
 */
void zt_cfi_scratch_free(void);

/*
 * Objects whose .eh_frame_hdr lists at least ZT_CFI_LAZY_FDES FDEs get a
 * lazy table (libstdc++ has 4,867, libisl 6,005, python3.11 10,221,
 * cc1plus 49,002, librustc_driver about 107,000); smaller ones (libc:
 * 3,713, 28,379 rows) keep compiled rows, so that the objects every
 * program loads cost no lookup in the handler, and the start cost stays
 * bounded by what those few small objects take (about 0.5 MB). A lazy
 * table's cache holds ZT_CFI_LAZY_SLOTS rows; an FDE of more than
 * ZT_CFI_LAZY_MAX bytes of program is not interpreted in the handler.
 */
enum { ZT_CFI_LAZY_FDES = 4096, ZT_CFI_LAZY_SLOTS = 8192, ZT_CFI_LAZY_MAX = 1 << 16 };

/*
 * A lazy table for img, when its .eh_frame_hdr has a search table zt
 * reads (datarel sdata4 pairs) of at least min_fdes entries; NULL
 * otherwise (the caller compiles it: zt_cfi_build). Reads only the header:
 * start costs no more for a bigger object. The image must stay mapped as
 * long as the table is used. Free with zt_cfi_free. Not for signal handlers.
 */
struct zt_cfi_table *zt_cfi_lazy(const struct zt_cfi_image *img, uint32_t min_fdes);

/*
 * The row for pc in t into *out: from the compiled rows, or for a lazy
 * table from its cache, or (read_image set) from the object's CFI, then
 * kept in the cache. Returns 1 when pc has a row, 0 when it has none
 * (outside every FDE, a malformed one, or not read: read_image 0, while a
 * dlclose may be unmapping the image). An FDE the lookup rejects (its
 * range not inside one executable segment) gives a BAD row where it starts
 * in the code, as a compiled table's does, and is counted once in
 * *t->nrejected. Async-signal-safe: no allocation, no call, bounded work.
 */
int zt_cfi_lookup(const struct zt_cfi_table *t, uintptr_t pc, int read_image, struct zt_cfi_row *out);

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
