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
 * Open path for reading; NULL or "-" is stdin. On failure prints
 * "prog: cannot open 'path': reason" and exits 1. The caller owns the result
 * and frees it with zt_input_close.
 */
struct zt_input *zt_input_open(const char *path);

/* Read from fd (taken over by the input), naming it name in messages. */
struct zt_input *zt_input_fdopen(int fd, const char *name);

/*
 * The next line, without its '\n', NUL-terminated in place; NULL at the end
 * of input. The pointer is valid until the next call. A '\r' before the
 * '\n' is kept, so that readers can reject CRLF by name.
 *
 * A read error, a line longer than the limit, corrupt or truncated gzip
 * data, or bytes after the last gzip member print a message naming the
 * input and the line, and exit 1 ("prog: 'f': line 3: longer than 1048576
 * bytes"; on stdin "prog: line 3: ..." as the tools name stdin). Several
 * gzip members one after the other are one stream, as gzip -d reads them.
 */
char *zt_input_line(struct zt_input *in, size_t *len);

/*
 * For tests and fuzzers: the errors above end the input instead (the
 * line reader returns NULL, as at the end) and zt_input_error says what
 * they were; and the line limit can be lowered (never raised above
 * ZT_LINE_MAX).
 */
void zt_input_soft_errors(struct zt_input *in, size_t max_line);

/* The error that ended a soft-error input, or NULL. */
const char *zt_input_error(const struct zt_input *in);

/* Number of the line last returned, counting from 1. */
unsigned long zt_input_lineno(const struct zt_input *in);

/* The name used in messages: "<stdin>" or the path in quotes. */
const char *zt_input_name(const struct zt_input *in);

/* Whether the input was gzip-compressed. */
int zt_input_gzipped(const struct zt_input *in);

void zt_input_close(struct zt_input *in);

#endif
