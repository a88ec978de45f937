/*
 * store.c — where samples go. Each thread has a buffer of its own, mapped
 * before its timer starts; the handler appends one text line per sample and,
 * when the buffer is full or its oldest unwritten sample is ZT_FLUSH_NS old,
 * hands it to write(2) on the dump file, which is open with O_APPEND so that
 * threads never interleave inside a line. Memory stays bounded however long
 * the run: one buffer per live thread. So the file holds the run as it goes,
 * and a process that dies without zt's exit path leaves at most one buffer
 * a thread unwritten (zt-collect finishes its dump).
 */
#include "store.h"
#include "files.h"
#include "fmt.h"
#include "unwind.h"
#include "rawfmt.h"
#include "spill.h"

#include <errno.h>
#include <unistd.h>

int zt_store_claim(struct zt_thread *t)
{
	if (!t || !t->live || __atomic_exchange_n(&t->closed, 1, __ATOMIC_SEQ_CST))
		return 0;
	/* A handler that saw sampling on before it stopped finishes quickly. */
	for (long spin = 0; __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE) && spin < 100000000;
	     spin++)
		zt_arch_pause();
	return 1;
}

/* Write the buffer out. Safe in the handler: write(2) only. */
void zt_store_flush(struct zt_thread *t)
{
	int saved = errno, fd = t->len ? zt_files_dump_fd() : -1;
	const char *p = t->buf;
	size_t n = t->len, had = n;

	/* Its slot says a write is under way: after a death, taken by no one. */
	if (had)
		zt_spill_writing(t, 1);
	while (n > 0) {
		ssize_t w = fd >= 0 ? write(fd, p, n) : -1;

		if (w < 0 && fd >= 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* Count the whole lines that did not reach the file. */
			uint64_t lines = 0;

			for (size_t i = 0; i < n; i++)
				lines += p[i] == '\n';
			if (fd >= 0)
				zt_files_write_failed(w < 0 ? errno : ENOSPC);
			__atomic_fetch_add(&zt_state.lost[fd >= 0 ? ZT_LOST_WRITE : ZT_LOST_FD],
					   lines, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&zt_state.samples, lines,
					   __ATOMIC_RELAXED);
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	t->len = 0;
	if (had)
		zt_spill_writing(t, 0);
	t->flush_ns = 0;
	errno = saved;
}

int zt_store_end_mark(enum zt_unwind_end end)
{
	return end == ZT_UNWIND_COMPLETE ? 0 :
	       end == ZT_UNWIND_DEPTH ? ZT_RAW_DEPTH_MARK : ZT_RAW_PARTIAL_MARK;
}

char *zt_store_line(char *p, const struct zt_store_line *l)
{
	p = zt_fmt_u64(p, (uint64_t)l->tid, 10);
	*p++ = ' ';
	p = zt_fmt_u64(p, l->count, 10);
	*p++ = ' ';
	*p++ = ZT_RAW_TIME_MARK;
	p = zt_fmt_u64(p, l->when > zt_state.start_ns ? l->when - zt_state.start_ns : 0, 10);
	if (l->weighed) {
		*p++ = ' ';
		*p++ = ZT_RAW_WEIGHT_MARK;
		p = zt_fmt_u64(p, l->weight, 10);
	}
	if (l->wait) {
		*p++ = ' ';
		*p++ = ZT_RAW_WAIT_MARK;
		for (const char *w = l->wait; *w; w++)
			*p++ = *w;
	}
	if (l->alloc) {
		*p++ = ' ';
		*p++ = ZT_RAW_ALLOC_MARK;
		*p++ = l->alloc;
		p = zt_fmt_u64(p, l->size, 10);
	}
	for (size_t i = 0; i < l->n; i++) {
		*p++ = ' ';
		if ((i > 0 || l->mark_first) && (l->addr[i] & ZT_UNWIND_EXACT))
			*p++ = ZT_RAW_EXACT_MARK;
		p = zt_fmt_u64(p, l->addr[i] & ~ZT_UNWIND_EXACT, 16);
	}
	if (l->end) {
		*p++ = ' ';
		*p++ = (char)l->end;
	}
	*p++ = '\n';
	return p;
}

/*
 * Appends thread t's sample line (zt_store_line: COUNT is the periods the
 * sample stands for, 1 but for a POSIX-timer fallback; a wall dump weighs
 * it by its period). Runs in the handler of thread t only.
 */
void zt_store_sample(struct zt_thread *t, uint64_t when, uint64_t count, const uint64_t *addr, size_t n,
		     int end)
{
	/* A wall dump weighs every sample: a CPU sample stands for its period. */
	struct zt_store_line l = { .tid = t->tid, .count = count, .when = when,
				   .weighed = zt_state.wall, .weight = zt_state.period_ns,
				   .addr = addr, .n = n, .end = end };

	if (t->len + zt_state.line_max + (zt_state.wall ? ZT_LINE_WALL : 0) > zt_state.buf_size)
		zt_store_flush(t);
	t->len = (size_t)(zt_store_line(t->buf + t->len, &l) - t->buf);
	zt_spill_len(t);
	__atomic_fetch_add(&zt_state.samples, count, __ATOMIC_RELAXED);
	/* By time too: one compare of the time the handler read anyway. A
	 * buffer's first sample sets when it is due. */
	if (!t->flush_ns)
		t->flush_ns = when + ZT_FLUSH_NS;
	else if (when >= t->flush_ns)
		zt_store_flush(t);
}

void zt_store_alloc(struct zt_thread *t, const struct zt_store_line *l)
{
	if (t->len + zt_state.line_max + ZT_LINE_WALL > zt_state.buf_size)
		zt_store_flush(t);
	t->len = (size_t)(zt_store_line(t->buf + t->len, l) - t->buf);
	zt_spill_len(t);
	if (!t->flush_ns)
		t->flush_ns = l->when + ZT_FLUSH_NS;
	else if (l->when >= t->flush_ns)
		zt_store_flush(t);
}
