/*
 * flame.h — laying out folded stacks as a flame graph and writing it as one
 * self-contained, interactive SVG (zt-flame; formats/folded.md, diff.md).
 *
 * The layout is flamegraph.pl's, so that the same input gives the same
 * frames at the same x, width and depth: lines sorted by their bytes, each
 * line's frames merged with the previous line's common prefix, frames
 * narrower than the minimum width left out. A differential input
 * (`stack before after`, zt-diff's output) takes its widths from `after`
 * and colours each frame by after − before, red for growth, blue for
 * shrinkage. A wall-clock profile's (folded stacks declared '# zt weight:
 * ns') widths are ns, and a frame whose every stack is off-CPU (its leaf a
 * wait frame, lib/waitframes.h) is drawn in a cold palette beside the warm
 * on-CPU frames, a hot/cold flame graph.
 */
#ifndef ZT_FLAME_H
#define ZT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct zt_flame;

struct zt_flame_opts {
	const char *title;	/* NULL: "Flame Graph", or "Icicle Graph" */
	unsigned width;		/* of the image, pixels (flamegraph.pl: 1200) */
	double minwidth;	/* frames narrower are left out (0.1) ... */
	int minwidth_pct;	/* ... in pixels, or when set in % of the total */
	int icicle;		/* roots at the top (flamegraph.pl --inverted) */
	int negate;		/* differential: red for shrinkage, blue for growth */
};

/* Which stacks of a wall-clock profile to draw (zt-flame --clock). */
enum zt_flame_clock {
	ZT_FLAME_CLOCK_WALL,	/* all of them (the default) */
	ZT_FLAME_CLOCK_CPU,	/* on-CPU stacks only */
	ZT_FLAME_CLOCK_OFF,	/* off-CPU stacks only (waits, waiting for a CPU) */
};

/* Defaults as flamegraph.pl's: width 1200, minwidth 0.1 pixels. */
void zt_flame_defaults(struct zt_flame_opts *o);

/* An empty set of stacks. The caller owns it; free with zt_flame_free. */
struct zt_flame *zt_flame_new(void);
void zt_flame_free(struct zt_flame *f);

/*
 * Add one line of folded input, copied: line[0 .. len) is the whole line as
 * read (its bytes order the lines, as flamegraph.pl's sort does), of which
 * the stack is the first stacklen bytes. count is the line's last count
 * (the width); for a differential line, before is the count before it.
 * Returns NULL, or what is wrong as a static string: a differential line
 * among plain ones or the other way round (the first line decides), or a
 * total that does not fit in 64 bits.
 */
const char *zt_flame_add(struct zt_flame *f, const char *line, size_t len,
			 size_t stacklen, int differential, uint64_t before,
			 uint64_t count);

/*
 * Read one stack item of zt_folded_read (folded.h) for zt_flame_add: a
 * folded line, or a differential one ("stack before after": its stack
 * ends in a count, zt_folded_diff_before). Sets the line (the item's own,
 * or, for stacks in memory, the line zt-fold would write of it, valid
 * until the next call), its length, its stack's, whether it is
 * differential and its count before. NULL, or what is wrong with the
 * first count of a differential line.
 */
struct zt_folded_item;
const char *zt_flame_item(struct zt_flame *f, const struct zt_folded_item *it,
			  const char **line, size_t *len, size_t *stacklen, int *differential,
			  uint64_t *before);

/*
 * The lines added from now on are a wall-clock profile's (wall 1) or not:
 * call before each input's first line, after its '# zt weight: ns' line.
 * Returns NULL, or what is wrong: a wall-clock profile among CPU ones, or
 * the other way round (the first input decides).
 */
const char *zt_flame_set_wall(struct zt_flame *f, int wall);

/*
 * The same for an allocation profile's (folded stacks declared '# zt
 * weight: bytes' or 'objects'): alloc is ZT_WEIGHT_BYTES or
 * ZT_WEIGHT_OBJECTS (weight.h), 0 for other stacks. Such a graph is drawn
 * in flamegraph.pl's memory palette (--colors=mem: greens and blues), its
 * titles in bytes or objects. NULL, or what is wrong: inputs of other
 * units.
 */
const char *zt_flame_set_alloc(struct zt_flame *f, int alloc);

/*
 * Keep only the stacks of a wall-clock profile that clock says; lines
 * added otherwise are left out. zt_flame_write refuses anything but
 * ZT_FLAME_CLOCK_WALL on stacks that are not a wall-clock profile's.
 */
void zt_flame_set_clock(struct zt_flame *f, enum zt_flame_clock clock);

/* Whether the lines added were differential (valid after the first). */
int zt_flame_differential(const struct zt_flame *f);

/*
 * Lay out the stacks and write the SVG to out. Returns 0, or -1 with what
 * is wrong in err ("no samples: every count is 0"). Write errors are the
 * caller's to check (zt_fshut).
 */
int zt_flame_write(struct zt_flame *f, const struct zt_flame_opts *o, FILE *out,
		   char *err, size_t errlen);

#endif
