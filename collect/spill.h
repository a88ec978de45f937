/*
 * spill.h — the sample buffers a process leaves behind (spill.c). Each
 * thread's buffer (store.c) is a slot of a file beside the temporary dump,
 * FILE.tmp.PID.bufs, mapped shared: a process that ends without zt's exit
 * path (a raw exit_group, as every Go program's; SIGKILL; a crash) leaves
 * its unwritten lines there, and zt-collect, finishing the dump
 * (finish.c), takes them. A normal end removes the file.
 *
 * The file is a run of slots of one size; each starts with a struct
 * zt_spill_head, then its buffer. The collector writes the head; finish.c,
 * in zt-collect, reads it, and trusts nothing in it: the lines are the
 * program's memory.
 */
#ifndef ZT_SPILL_H
#define ZT_SPILL_H

#include <stddef.h>
#include <stdint.h>

#define ZT_SPILL_SUFFIX ".bufs"
#define ZT_SPILL_MAGIC 0x6c6c697073747aull	/* "ztspill", little-endian */
#define ZT_SPILL_SLOT_MAX (64u << 20)	/* a reader takes no slot larger */

struct zt_spill_head {
	uint64_t magic;		/* ZT_SPILL_MAGIC once the slot is in use */
	uint64_t slot_size;	/* the slot's bytes, head included: every slot's */
	/*
	 * The buffer's whole lines not yet written to the dump: stored after
	 * the line it counts, so a process killed in the middle of a line
	 * leaves that line out.
	 */
	volatile uint64_t len;
	/*
	 * Nonzero while those lines are being written to the dump: a process
	 * that ended then may or may not have written them, and a slot in
	 * that state is not taken (never twice).
	 */
	volatile uint64_t writing;
	uint64_t pad[4];
};

#ifndef ZT_SPILL_READER
#include "state.h"

/* The bytes of a slot for a buffer of buf_size bytes: whole pages. */
size_t zt_spill_slot_size(size_t buf_size);

/*
 * Start the file for the dump zt_state.tmp names, and move the buffers of
 * every slot mapped so far into it. Call with no handler running (the
 * start, a forked child before its timers). Without it (no file could be
 * made or grown) the buffers stay private, as before.
 */
void zt_spill_start(void);

/*
 * Put slot number slot's buffer region, at region (zt_spill_slot_size
 * bytes, page-aligned), in the file, with its first used bytes (0 for a
 * fresh, zeroed one): 0, or -1 (it stays as it was).
 */
int zt_spill_map(int slot, void *region, size_t used);

/*
 * The dump is published or removed: the file goes, and no slot is put in
 * it any more (its descriptor stays zt's, open, until exec or exit).
 */
void zt_spill_end(void);

/*
 * In a forked child: the slots are the parent's file, shared; each is
 * given private memory, its head cleared.
 */
void zt_spill_after_fork(void);

/*
 * The off-CPU sampler's buffer (offcpu.c), at region as zt_spill_map
 * takes it: put in the file now if there is one, and whenever a dump
 * starts one (the slot after the threads'). NULL in a child that has none.
 * The head to update, or NULL while the buffer is private.
 */
struct zt_spill_head *zt_spill_sampler(void *region);
struct zt_spill_head *zt_spill_sampler_head(void);

/* In a forked child: its region is still the parent's (it could not be made private). */
int zt_spill_sampler_gone(void);

/*
 * The lines of /proc/self/maps text p[0..len) that map the file (present
 * or deleted) taken out, in place: zt's, never the program's, and no
 * object to name a frame from. The new length. Async-signal-safe.
 */
size_t zt_spill_hide_maps(char *p, size_t len);

/* The descriptor of the file, for files.c's list of zt's own; -1 when none. */
struct zt_owned *zt_spill_owned(void);

/* A buffer's lines (h may be NULL: a private buffer): len after a line was added. */
static inline void zt_spill_set_len(struct zt_spill_head *h, size_t len)
{
	if (h)
		__atomic_store_n(&h->len, len, __ATOMIC_RELEASE);
}

/* Its write to the dump starts (on), or has ended and emptied it. */
static inline void zt_spill_set_writing(struct zt_spill_head *h, int on)
{
	if (!h)
		return;
	if (on) {
		__atomic_store_n(&h->writing, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&h->len, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&h->writing, 0, __ATOMIC_RELEASE);
	}
}

/* Thread t's, the same. */
static inline void zt_spill_len(struct zt_thread *t)
{
	zt_spill_set_len(t->spill, t->len);
}

static inline void zt_spill_writing(struct zt_thread *t, int on)
{
	zt_spill_set_writing(t->spill, on);
}
#endif

#endif
