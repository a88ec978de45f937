/*
 * input.h — reading a tool's input line by line, plain or gzip.
 *
 * Every filter reads through here, so that gzip is detected by its magic bytes
 * (never by the file name), every message can name the line it is about, and
 * no input, however long its lines, makes a tool use more than a few MiB for
 * reading it.
 */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The longest line any text input may hold, without its '\n': 1 MiB. A
 * perf script frame line or a folded stack of 128 C++ frames is tens of KB;
 * a longer line is refused with "line N: longer than 1048576 bytes", so a
 * huge line (a few MB of gzip can hold GBs of one line) costs no memory.
 * Raising it costs two bytes of buffer per byte of limit.
 */
#define ZT_LINE_MAX ((size_t)1 << 20)

struct zt_input;

/*
 * Open path for reading; NULL or "-" is stdin. Returns NULL on failure,
 * with "cannot open 'path': reason" in err (util.h's error policy). The
 * caller owns the result and frees it with zt_input_close.
 */
struct zt_input *zt_input_open(const char *path, char *err, size_t errlen);

/* Read from fd (taken over by the input), naming it name in messages. */
struct zt_input *zt_input_fdopen(int fd, const char *name);

/*
 * The next line, without its '\n', NUL-terminated in place; NULL at the end
 * of input or on an error. The pointer is valid until the next call. A
 * '\r' before the '\n' is kept, so that readers can reject CRLF by name.
 * Several gzip members one after the other are one stream, as gzip -d
 * reads them.
 *
 * Every NULL must be followed by a look at zt_input_error: a read error, a
 * line longer than the limit, corrupt or truncated gzip data, or bytes
 * after the last gzip member end the input there, and the error says what
 * happened, place first ("'f': line 3: longer than 1048576 bytes"; on
 * stdin "line 3: ..." as the tools name stdin). The input then gives no
 * more lines.
 */
char *zt_input_line(struct zt_input *in, size_t *len);

/*
 * The next bytes of the input (inflated when it is gzip), at most want
 * (capped at the line limit), without reading them: the next
 * zt_input_line still starts there. *n is how many there are, fewer only
 * at the end of the input or on an error (zt_input_error). For telling
 * formats apart by their content (lib/stage.c). The bytes are valid until
 * the next call.
 */
const char *zt_input_peek(struct zt_input *in, size_t want, size_t *n);

/*
 * For a reader that looks ahead (lib/perfscript.c, which recognizes a
 * record it has read before by its bytes): the bytes after the last line
 * returned, *n of them, reading more first until there are at least want
 * (fewer at the end of the input, after an error, and in gzip input,
 * whose messages name the line inflating stopped after). Reading more
 * may move the buffer: a line returned before is invalid after a call
 * with want > 0. The bytes stay the input's; they are valid until the
 * next call of any function here.
 */
const char *zt_input_ahead(struct zt_input *in, size_t want, size_t *n);

/*
 * Consume the first n bytes zt_input_ahead gave, which hold lines
 * complete lines: as if each had been read with zt_input_line.
 */
void zt_input_skip(struct zt_input *in, size_t n, unsigned long lines);

/*
 * Hash every line handed out from now on (by zt_input_line and
 * zt_input_skip), as the loop
 *
 *	while ((line = zt_input_line(in, &n)))
 *		h = zt_hash(line, n + 1, h);
 *
 * from h = seed would, each line with its NUL (a '\n' or the end hashed as
 * '\0'): a reader's one pass over the input then also gives the hash of
 * its text (zt-ingest's dump id), with no second read. Call before the
 * first line is read.
 */
void zt_input_hash_start(struct zt_input *in, uint64_t seed);

/*
 * That hash, of the lines handed out so far, into *h: 0, or -1 when it is
 * not the loop's (hashing was not started, or started after a line was
 * read, or a skip held a line longer than the limit, which the loop would
 * have refused).
 */
int zt_input_hash(const struct zt_input *in, uint64_t *h);

/* The error that ended the input, or NULL (the input ended as it should). */
const char *zt_input_error(const struct zt_input *in);

/*
 * For tests and fuzzers, before the first line is read: lower the line
 * limit to max_line (0, or a value not below ZT_LINE_MAX, keeps it).
 */
void zt_input_set_max_line(struct zt_input *in, size_t max_line);

/* Number of the line last returned, counting from 1. */
unsigned long zt_input_lineno(const struct zt_input *in);

/*
 * Whether the line last returned ended without '\n', at the input's end:
 * a file cut in the middle of a line (a truncated dump, most often).
 */
int zt_input_unended(const struct zt_input *in);

/* The name used in messages: "<stdin>" or the path in quotes. */
const char *zt_input_name(const struct zt_input *in);

/* Whether the input was gzip-compressed. */
int zt_input_gzipped(const struct zt_input *in);

void zt_input_close(struct zt_input *in);

#endif
