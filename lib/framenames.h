/*
 * framenames.h — stackcollapse-perf.pl's naming rules: how a perf script frame
 * becomes the frame names of a folded stack, and how a record header becomes
 * its root frame. zt-fold prints these names; zt-stat reports by them, so
 * that both tools name a function the same way.
 */
#ifndef ZT_FRAMENAMES_H
#define ZT_FRAMENAMES_H

#include <stddef.h>

#include "folded.h"
#include "perfscript.h"

struct zt_framenames_opts {
	int pid;	/* root frame comm-PID */
	int tid;	/* root frame comm-PID/TID */
	int kernel;	/* _[k] on kernel frames */
	int jit;	/* _[j] on /tmp/perf-N.map frames */
	int addrs;	/* [module <address>] for unknown symbols */
	int srcline;	/* append :LINE from source lines */
	int count;	/* weigh a perf record 1, not its period (zt-fold
			   --weight=count; zt-samples records keep theirs) */
	struct zt_reroot root;	/* --root=NAME: the root frame; --no-root: none
				   (lib/perfscriptfold.c leaves it off a stack with frames) */
};

/* A growable byte buffer; zero-initialize it, free buf when done. */
struct zt_framenames_buf {
	char *buf;
	size_t len, cap;
};

void zt_framenames_buf_add(struct zt_framenames_buf *b, const void *p, size_t n);

/*
 * Append the root frame name for a header to out (not NUL-terminated):
 * the command, or comm-PID, or comm-PID/TID, with spaces made '_'; the
 * name of --root=NAME instead when o->root renames it.
 */
void zt_framenames_root(const struct zt_ps_header *h,
			const struct zt_framenames_opts *o, struct zt_framenames_buf *out);

/*
 * Append the names of frame f to out, each followed by '\0', in the order
 * the symbol lists them (a symbol "a->b" gives "a" then "b_[i]"). java is
 * whether the root frame starts with "java" (Java names then lose a
 * leading 'L').
 * Returns how many names were appended (0 for a frame that is skipped) and
 * sets *unknown when the symbol was [unknown].
 */
int zt_framenames_frame(const struct zt_ps_frame *f,
			const struct zt_framenames_opts *o, int java,
			struct zt_framenames_buf *out, int *unknown);

/*
 * Append ":LINE" to out for a source line as perf script -F +srcline prints
 * it: bracketed parts removed, surrounding space trimmed; nothing when no
 * text is left.
 */
void zt_framenames_srcline(const char *s, size_t n, struct zt_framenames_buf *out);

#endif
