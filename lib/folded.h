/*
 * folded.h — reading folded stacks (formats/folded.md): `frame;frame count`.
 *
 * One reader for every tool that takes folded input (zt-fold, zt-stat,
 * zt-diff, zt-flame, zt-pprof, through foldedsort.c and stage.c), with the
 * weight declarations of its '#' lines, and the writer and reader of
 * zt-diff's differential layout; strict where the format's readers
 * disagree: it names the line and the problem (a missing, negative,
 * fractional or non-numeric count, CRLF, a NUL byte, an empty line, an
 * empty file) instead of guessing.
 */
#ifndef ZT_FOLDED_H
#define ZT_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "weight.h"

struct zt_facts;
struct zt_input;

/*
 * Parse one line (len bytes, no '\n'). On success returns NULL and sets
 * *stacklen (the stack is line[0 .. *stacklen)) and *count. On failure
 * returns what is wrong, as a static string. A '#' line is not a stack:
 * callers skip those before calling this.
 */
const char *zt_folded_parse(const char *line, size_t len, size_t *stacklen,
			    uint64_t *count);

enum zt_folded_kind {
	ZT_FOLDED_STACK,	/* stack, stacklen, count */
	ZT_FOLDED_COMMENT,	/* stack holds the whole '#' line */
};

struct zt_folded_item {
	enum zt_folded_kind kind;
	const char *stack;	/* in the current line; valid until the next call */
	size_t stacklen;
	uint64_t count;
	unsigned long lineno;
	/* The whole line read, stack first (stack[0 .. linelen), its count
	   text after the stack); 0 for stacks in memory, which have none. */
	size_t linelen;
};

/*
 * The next item of in: 1 when *it was filled, 0 at the end, -1 on bad
 * input with the message, place first, in err ("'f': line 3: missing
 * count"; util.h). At the end, an input with no lines at all is the error
 * "'f': empty file", and one with no stacks "'f': no stacks". stacks counts
 * the stacks read so far, for that check; start it at 0.
 */
int zt_folded_next(struct zt_input *in, struct zt_folded_item *it, uint64_t *stacks,
		   char *err, size_t errlen);

/*
 * Folded stacks held in memory, as zt-fold writes them: distinct stacks in
 * zt_folded_cmp's order, each with its count, after the '#' line that
 * declares their weight (lib/perfscriptfold.c makes them from records).
 * Stack k is text[line[k].off .. + line[k].len): no count, no '\n'.
 */
struct zt_folded_line {
	size_t off, len;
	uint64_t count;
};

struct zt_folded_stacks {
	char *decl;			/* the weight declaration, with its '#' */
	char *text;
	struct zt_folded_line *line;
	size_t n;
};

void zt_folded_stacks_free(struct zt_folded_stacks *fs);

/*
 * One folded input read stack by stack, its '#' lines taken here and nowhere
 * else: a weight declaration (weight.h) goes to w, and with facts set every '#'
 * line also to zt_factlines_line (factlines.h). Set in (or the stacks in
 * memory, zt_folded_reader_init_stacks), the flags and facts, zero the rest
 * (zt_folded_reader_init); the caller owns in, the stacks and facts.
 */
struct zt_folded_reader {
	struct zt_input *in;
	const struct zt_folded_stacks *mem;	/* read instead of in: not NULL */
	const char *name;			/* mem's, for messages */
	size_t next;				/* mem's next line: 0 its declaration */
	int weighed;		/* a malformed weight declaration is an error */
	int none_ok;		/* an input without stacks ends as any other */
	struct zt_facts *facts;	/* not NULL: '#' lines are facts too */
	struct zt_weight w;	/* weighed: its declaration; always: its counts */
	int wall;		/* a '# zt weight: ns' line was read */
	int alloc;		/* a '# zt weight: bytes' (ZT_WEIGHT_BYTES) or 'objects' line */
	uint64_t rate;		/* its rate ('sampled every N bytes'), 0 if none */
	uint64_t stacks;	/* the stacks read so far */
};

void zt_folded_reader_init(struct zt_folded_reader *r, struct zt_input *in);

/*
 * The same reader over stacks in memory, named name in messages: their
 * lines are numbered as the text zt-fold would write of them (the
 * declaration line 1), and none is parsed again.
 */
void zt_folded_reader_init_stacks(struct zt_folded_reader *r, const struct zt_folded_stacks *fs,
				  const char *name);

/* The input's name, for messages: the file's, or the stacks'. */
const char *zt_folded_reader_name(const struct zt_folded_reader *r);

/*
 * The next stack of r->in, its '#' lines before it taken as said above: 1
 * when *it was filled (always a ZT_FOLDED_STACK), 0 at the end, -1 on bad
 * input with the message in err, as zt_folded_next says it ("'f': line 3:
 * ..."); unless none_ok, an input without stacks is "'f': no stacks".
 */
int zt_folded_read(struct zt_folded_reader *r, struct zt_folded_item *it, char *err,
		   size_t errlen);

/*
 * The differential layout (formats/diff.md), difffolded.pl's: `stack
 * before after`. zt_folded_diff_write writes one line; zt-diff writes them
 * sorted, and a wall-clock profile's after a ZT_WEIGHT_NS_LINE.
 */
void zt_folded_diff_write(FILE *out, const char *stack, size_t n, uint64_t before,
			  uint64_t after);

/*
 * Read back: the stack s (n bytes) of a folded line, whose count is after,
 * is a differential line's when it ends in a count of its own. Returns
 * NULL with *stacklen and *before then; otherwise what is wrong with that
 * first count, "missing count" when there is none (a folded line).
 */
const char *zt_folded_diff_before(const char *s, size_t n, size_t *stacklen,
				  uint64_t *before);

/*
 * The byte order of stacks (memcmp, then the shorter first), as sort(1)
 * with LC_ALL=C and flamegraph.pl's sort order them: zt-fold writes its
 * stacks in it and zt-diff's merge-join relies on every reader agreeing on
 * it, so every sort of stacks or names uses this one comparison.
 */
int zt_folded_cmp(const char *a, size_t na, const char *b, size_t nb);

/*
 * What becomes of a stack's root frame, its first (the command that ran,
 * as stackcollapse-perf.pl and zt-fold name it): kept, dropped, or renamed
 * to name (the tools' --no-root and --root=NAME), so that profiles of
 * programs with other names, or run by other paths, line up.
 */
enum zt_root_how { ZT_ROOT_KEEP, ZT_ROOT_DROP, ZT_ROOT_RENAME, ZT_ROOT_LABEL };

/* ZT_ROOT_LABEL (zt-fold --root=label:NAME): the root is the input's value
   of label name (its "# zt label" facts, lib/perfscriptfold.c), records only; folded
   stacks carry no labels, and keep their root. */
struct zt_reroot {
	enum zt_root_how how;
	const char *name;	/* ZT_ROOT_RENAME: the new root; ZT_ROOT_LABEL: the label */
};

/*
 * Stack s (n bytes: frames joined by ';', no count) with its root frame
 * rewritten as r says, into out, which has room for n + strlen(r->name)
 * bytes; returns the new length. A stack that is its root alone keeps it
 * when the root is dropped (nothing would be left of it), so no sample is
 * lost. r NULL, or ZT_ROOT_KEEP, copies s.
 */
size_t zt_folded_reroot(const struct zt_reroot *r, const char *s, size_t n, char *out);

/*
 * Parse a tool's --root=NAME (rename) or --no-root (drop, arg NULL) into
 * r: NULL, or what is wrong ("--root and --no-root together", "--root
 * wants a name without ';'"...) for a usage error.
 */
const char *zt_folded_root_option(struct zt_reroot *r, const char *arg);

#endif
