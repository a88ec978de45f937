/*
 * perfscript.h — reading `perf script` text, and zt-symbolize's stream,
 * which has the same layout (formats/symbolized.md).
 *
 * The line grammar is the one FlameGraph's stackcollapse-perf.pl accepts,
 * including its quirks, so that zt-fold can match it byte for byte. The
 * reader hands out one item per meaningful line (a record header, a frame,
 * a source line, a record's end, a comment) and leaves naming and counting
 * to the caller (lib/framenames.h, zt-fold, zt-stat).
 */
#ifndef ZT_PERFSCRIPT_H
#define ZT_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct zt_input;

/* A span of bytes inside the current line; not NUL-terminated. */
struct zt_span {
	const char *p;
	size_t n;
};

/* A record header: `comm pid/tid [cpu] time: period event:`. */
struct zt_ps_header {
	struct zt_span comm;	/* may contain spaces */
	struct zt_span pid;	/* empty when the header has a tid only */
	struct zt_span tid;
	struct zt_span event;	/* empty when the header names none */
	struct zt_span time;	/* `SECONDS.FRACTION`, empty when the header has none */
	uint64_t period;	/* 1 when the header has none (or 0) */
};

/* A frame: `<ws> pc <ws> symbol (module)`, leaf first within a record. */
struct zt_ps_frame {
	struct zt_span pc;
	struct zt_span sym;	/* with its +0x offset, if any */
	struct zt_span mod;
};

/*
 * Whether line (len bytes, no '\n') is a record header as
 * stackcollapse-perf.pl sees one; fills *h when it is. Returns 1 when it is,
 * 0 when it is not, and -1 when it is but its period does not fit 64 bits.
 */
int zt_ps_parse_header(const char *line, size_t len, struct zt_ps_header *h);

/* Whether line is a frame line; fills *f when it is. */
int zt_ps_parse_frame(const char *line, size_t len, struct zt_ps_frame *f);

enum zt_ps_kind {
	ZT_PS_EOF,	/* end of input; no record is open */
	ZT_PS_HEADER,	/* a record starts: item.header */
	ZT_PS_FRAME,	/* item.frame, in the open record */
	ZT_PS_SRCLINE,	/* item.text: source line of the frame just before */
	ZT_PS_END,	/* the open record ends (a blank line) */
	ZT_PS_COMMENT,	/* item.text: a `#` line, whole */
};

struct zt_ps_item {
	enum zt_ps_kind kind;
	unsigned long lineno;
	struct zt_ps_header header;
	struct zt_ps_frame frame;
	struct zt_span text;
	/* Set with ZT_PS_EOF when the input ended inside a record, which is
	   then dropped, as stackcollapse-perf.pl drops it. */
	unsigned long unterminated;
	/* With zt_ps_reader_set_repeats, at ZT_PS_END: the number of the
	   record's frame lines (the bytes between its header and its end,
	   and whether its command starts with "java", which changes how
	   stackcollapse-perf.pl names them; numbers are unique across the
	   readers of a process), ZT_PS_NOBODY when it has none;
	   repeat is set when they were an earlier record's, whose END had
	   that number, and the record's frames and source lines were not
	   handed out again. */
	uint32_t body;
	int repeat;
};

#define ZT_PS_NOBODY UINT32_MAX

struct zt_ps_reader;

/*
 * A reader over in, which the caller still owns and closes after
 * zt_ps_reader_free; messages name the line's place by in's name (by the
 * line alone with a NULL in). Only records of the first event seen are handed out;
 * the others are skipped, and *skipped_event names the first one skipped
 * (see zt_ps_reader_skipped). Spans point into the current line and are
 * valid until the next call of zt_ps_next.
 */
struct zt_ps_reader *zt_ps_reader_new(struct zt_input *in);
void zt_ps_reader_free(struct zt_ps_reader *r);

/*
 * Keep the event filter from one reader to the next, as happens when
 * several files are read as one stream. The string is copied.
 */
void zt_ps_reader_set_event(struct zt_ps_reader *r, const char *event, size_t n);

/*
 * Which records to hand out (--event, lib/event.h): an allocation view
 * keeps its event's records only. ZT_VIEW_TIME keeps the first event seen
 * that is not one of zt's allocation events (zt-samples, zt-wall-ns,
 * perf's). ZT_VIEW_DEFAULT (a new reader's) is ZT_VIEW_TIME, but for an
 * allocation profile without CPU samples: when a zt allocation record
 * comes first and the stream's facts said no "# zt samples" above 0, it
 * keeps alloc_space's records (zt-alloc-bytes).
 * Records of zt's other views are skipped without being counted in
 * zt_ps_reader_skipped: they are views of the same profile, not another
 * event. Call before the first line.
 */
void zt_ps_reader_set_view(struct zt_ps_reader *r, int view);
/*
 * Hand out a record whose frame lines repeat an earlier record's byte for
 * byte as its header and its end only, the end saying which record it
 * repeats (zt_ps_item.body, .repeat): for callers that keep what a record's
 * frames gave (zt-fold, zt-stat), so that a repeat costs one comparison
 * with the record it repeats, found before its end is (lib/critbit.h).
 * Call before the first zt_ps_next; zt_ps_line never does it.
 */
void zt_ps_reader_set_repeats(struct zt_ps_reader *r, int on);

/* The event records are kept for, or NULL before the first header. */
const char *zt_ps_reader_event(const struct zt_ps_reader *r);
/* Records skipped because of their event, and the first such event. */
unsigned long zt_ps_reader_skipped(const struct zt_ps_reader *r,
				   const char **event);

/*
 * The next item: 1, or 0 at the end with it->kind ZT_PS_EOF, or -1 on a
 * bad line or input with the message, place first, in err ("'f': line 3:
 * not a record header, a frame or a source line"; util.h). After 0 or -1,
 * do not call it again.
 */
int zt_ps_next(struct zt_ps_reader *r, struct zt_ps_item *it, char *err, size_t errlen);

/*
 * The same, one line at a time, for callers that read the lines themselves
 * (zt-stat looks at the first line to tell folded stacks from perf script):
 * classify line number lineno; returns 1 when *it was filled, 0 when the
 * line gave no item (a blank line between records, a skipped record), -1
 * with the message in err when the line is bad.
 */
int zt_ps_line(struct zt_ps_reader *r, const char *s, size_t len,
	       unsigned long lineno, struct zt_ps_item *it, char *err, size_t errlen);
/* The end of input, as zt_ps_next reports it. */
void zt_ps_finish(struct zt_ps_reader *r, unsigned long lineno,
		  struct zt_ps_item *it);

#endif
