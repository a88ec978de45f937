/*
 * util.h — error reporting and allocation helpers shared by every zt tool.
 *
 * Messages follow the README's HACKING section (the error policy):
 * "prog: place: problem", lowercase, no full stop.
 * lib/ reports through zt_errf and zt_err_at into the caller's buffer; only
 * tools/ call zt_warn and zt_die. The allocators (zt_malloc and friends)
 * exit 1 when memory runs out, the one exit in lib/, so callers never check
 * for NULL.
 */
#ifndef ZT_UTIL_H
#define ZT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes shared by all tools. */
enum { ZT_EXIT_OK = 0, ZT_EXIT_DATA = 1, ZT_EXIT_USAGE = 2 };

/*
 * Program name used as the prefix of every message; set once from main.
 * zt_setprog also makes every exit check that stdout was written (a full
 * disk, a closed stdout): if not, it says so and the status becomes 1.
 */
extern const char *zt_prog;
void zt_setprog(const char *argv0);

/*
 * Print "prog: message" to stderr. When fmt ends in ':', the text of errno
 * is appended, as in sbase's eprintf.
 */
void zt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list. */
void zt_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/*
 * A function zt_warn calls before it writes (NULL: none): progress.c
 * registers the one that clears its line, so that a message gets a line of
 * its own without util.c knowing of progress.
 */
void zt_before_message(void (*fn)(void));
/*
 * For a tool started with no file, which reads standard input: when that is
 * a terminal, say so on stderr (a user who forgot the file name sees why
 * nothing happens). Silent when stdin is a pipe or a file.
 */
void zt_stdin_note(void);
/* zt_warn, then exit(status). */
void zt_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * The error policy. lib/ never prints an error and never exits (running out
 * of memory aside: the allocators below exit, as sbase's emalloc): a lib/
 * function that fails returns -1 (or NULL) and writes the whole message,
 * place first, into a buffer the caller gives (char *err, size_t errlen;
 * ZT_ERR_MAX bytes is always enough). The tool prints it and decides the
 * exit status; only tools/ and zt-collect's launcher exit. A check of one
 * line or item, which cannot know the place, returns NULL or a constant
 * text of what is wrong; its caller places it with zt_err_at.
 */
#define ZT_ERR_MAX 1024

/* snprintf into err; a NULL err is allowed and ignored. */
void zt_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The place of a message about an input line, as every tool names it:
 * "'f': line 3: msg", "line 3: msg" on stdin (name "<stdin>"), and
 * "'f': msg" or "<stdin>: msg" when line is 0 (the input as a whole).
 */
void zt_err_at(char *err, size_t errlen, const char *name, unsigned long line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void zt_verr_at(char *err, size_t errlen, const char *name, unsigned long line,
		const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/*
 * Running out of memory (or of a table's 2^32 entries) is the one failure
 * lib/ does not return: "prog: out of memory: what", exit 1.
 */
void zt_out_of_memory(const char *what) __attribute__((noreturn));

void *zt_malloc(size_t n);
void *zt_calloc(size_t n, size_t size);
void *zt_realloc(void *p, size_t n);
/* realloc for arrays: grows *p to hold at least need elements of size each. */
void zt_grow(void *pp, size_t *cap, size_t need, size_t size);
char *zt_strdup(const char *s);
char *zt_strndup(const char *s, size_t n);
/* A new string, printf's text of fmt: for messages kept for later. */
char *zt_vstrdupf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Flush stdout and exit 1 if anything failed to be written (a full disk). */
void zt_fshut(FILE *f, const char *name);

/* Parse a whole string as an unsigned number in the given base; 0 on success. */
int zt_parse_u64(const char *s, int base, uint64_t *out);

/* Print a --version line. */
void zt_version(void);

/*
 * Whether dir, given to option opt, is a directory that can be read; -1
 * with "opt: cannot read 'dir': ..." in err (the caller decides: a usage
 * error in the tools).
 */
int zt_dir_check(const char *opt, const char *dir, char *err, size_t errlen);

#endif
