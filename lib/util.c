/*
 * util.c — the one place where messages are printed and memory is allocated
 * with a failure check.
 */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ZT_VERSION
#define ZT_VERSION "0.1"
#endif

const char *zt_prog = "zt";
static void (*before_message)(void);

void zt_before_message(void (*fn)(void))
{
	before_message = fn;
}

/*
 * At exit, whatever the path to it (--help, --version, an error, the end of
 * main), stdout must have been written: a full disk or a closed stdout
 * turns the exit status into 1, with a message, as gnulib's close_stdout.
 */
static void check_stdout(void)
{
	int bad = ferror(stdout);

	errno = 0;
	if (fflush(stdout) == EOF || bad) {
		int saved = errno ? errno : EIO;

		fprintf(stderr, "%s: cannot write <stdout>: %s\n", zt_prog, strerror(saved));
		_exit(ZT_EXIT_DATA);
	}
}

void zt_setprog(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
	static int registered;

	zt_prog = slash ? slash + 1 : (argv0 ? argv0 : "zt");
	if (!registered++)
		atexit(check_stdout);
}

/*
 * A message is one line. What it quotes (a path from a dump, a name from a
 * binary) may hold control characters: they are written as \ooo, so that
 * no input reaches the terminal raw (as escape.c writes them); backslashes
 * stay as they are.
 */
void zt_vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t len = strlen(fmt), n;
	char msg[2048];
	/* The whole line, one write: stderr is unbuffered, and a putc a byte
	   is a write(2) a byte. Each byte of msg is at most 4 escaped. */
	char line[64 + 4 * sizeof msg + 256];
	const char *err = len > 0 && fmt[len - 1] == ':' ? strerror(saved) : NULL;

	if (before_message)
		before_message();	/* progress: the message gets a line of its own */
	fflush(stdout);
	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(line, 64, "%s: ", zt_prog);
	n = strlen(line);
	for (const char *s = msg; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f) {
			line[n++] = '\\';
			line[n++] = (char)('0' + (c >> 6));
			line[n++] = (char)('0' + (c >> 3 & 7));
			line[n++] = (char)('0' + (c & 7));
		} else {
			line[n++] = (char)c;
		}
	}
	if (err) {
		snprintf(line + n, 250, " %s", err);
		n += strlen(line + n);
	}
	line[n++] = '\n';
	fwrite(line, 1, n, stderr);
}

void zt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zt_vwarn(fmt, ap);
	va_end(ap);
}

void zt_stdin_note(void)
{
	if (isatty(STDIN_FILENO))
		zt_warn("reading standard input from the terminal "
			"(name a file, or end the input with Ctrl-D)");
}

void zt_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zt_vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

void zt_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void zt_err_at(char *err, size_t errlen, const char *name, unsigned long line,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zt_verr_at(err, errlen, name, line, fmt, ap);
	va_end(ap);
}

void zt_verr_at(char *err, size_t errlen, const char *name, unsigned long line,
		const char *fmt, va_list ap)
{
	char msg[ZT_ERR_MAX];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (line == 0)
		zt_errf(err, errlen, "%s: %s", name, msg);
	else if (strcmp(name, "<stdin>") == 0)
		zt_errf(err, errlen, "line %lu: %s", line, msg);
	else
		zt_errf(err, errlen, "%s: line %lu: %s", name, line, msg);
}

void zt_out_of_memory(const char *what)
{
	zt_die(ZT_EXIT_DATA, "out of memory: %s", what);
}

void *zt_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		zt_out_of_memory(strerror(errno));
	return p;
}

void *zt_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		zt_out_of_memory(strerror(errno));
	return p;
}

void *zt_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		zt_out_of_memory(strerror(errno));
	return p;
}

void zt_grow(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp;
	size_t n = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			zt_out_of_memory("array too large");
		n *= 2;
	}
	*p = zt_realloc(*p, n * size);
	*cap = n;
}

char *zt_strdup(const char *s)
{
	return zt_strndup(s, strlen(s));
}

char *zt_strndup(const char *s, size_t n)
{
	char *p = zt_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *zt_vstrdupf(const char *fmt, va_list ap)
{
	va_list again;
	int n;
	char *s;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		n = 0;
	s = zt_malloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

void zt_fshut(FILE *f, const char *name)
{
	if (fflush(f) == EOF || ferror(f))
		zt_die(ZT_EXIT_DATA, "cannot write %s:", name);
}

int zt_parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

void zt_version(void)
{
	printf("%s (zt) %s\n", zt_prog, ZT_VERSION);
}

int zt_dir_check(const char *opt, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);

	if (!d) {
		zt_errf(err, errlen, "%s: cannot read '%s': %s", opt, dir, strerror(errno));
		return -1;
	}
	closedir(d);
	return 0;
}
