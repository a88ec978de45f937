/*
 * input.h — reading a tool's input line by line, plain or gzip.
 *
 * Every filter reads through here, so that gzip is detected by its magic bytes
 * (never by the file name) and every message can name the line it is about.
 */
#ifndef ZT_INPUT_H
#define ZT_INPUT_H

#include <stddef.h>

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
 * '\n' is kept, so that readers can reject CRLF by name. A read error or a
 * truncated gzip stream prints a message naming the input and exits 1.
 */
char *zt_input_line(struct zt_input *in, size_t *len);

/* Number of the line last returned, counting from 1. */
unsigned long zt_input_lineno(const struct zt_input *in);

/* The name used in messages: "<stdin>" or the path. */
const char *zt_input_name(const struct zt_input *in);

/* Whether the input was gzip-compressed. */
int zt_input_gzipped(const struct zt_input *in);

void zt_input_close(struct zt_input *in);

#endif
