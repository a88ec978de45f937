/*
 * input.c — buffered line reader over zlib's gzread, which passes plain files
 * through unchanged ("transparent" mode) and inflates gzip ones.
 */
#include "input.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct zt_input {
	gzFile gz;
	char *name;
	char *buf;
	size_t cap;	/* bytes allocated in buf */
	size_t start;	/* first unread byte */
	size_t end;	/* one past the last byte read */
	int eof;
	int gzipped;
	unsigned long lineno;
};

enum { CHUNK = 1 << 20 };

static struct zt_input *start(struct zt_input *in, int fd);

struct zt_input *zt_input_open(const char *path)
{
	struct zt_input *in = zt_calloc(1, sizeof *in);
	int fd;

	if (!path || strcmp(path, "-") == 0) {
		fd = dup(STDIN_FILENO);
		in->name = zt_strdup("<stdin>");
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		in->name = zt_malloc(strlen(path) + 3);
		sprintf(in->name, "'%s'", path);
	}
	if (fd < 0)
		zt_die(ZT_EXIT_DATA, "cannot open %s:", in->name);
	return start(in, fd);
}

struct zt_input *zt_input_fdopen(int fd, const char *name)
{
	struct zt_input *in = zt_calloc(1, sizeof *in);

	in->name = zt_strdup(name);
	return start(in, fd);
}

static struct zt_input *start(struct zt_input *in, int fd)
{
	in->gz = gzdopen(fd, "rb");
	if (!in->gz)
		zt_die(ZT_EXIT_DATA, "cannot read %s: out of memory", in->name);
	gzbuffer(in->gz, 256 * 1024);
	in->cap = CHUNK;
	in->buf = zt_malloc(in->cap + 1);
	return in;
}

/* Read more bytes after in->end; returns how many, 0 at the end. */
static size_t fill(struct zt_input *in)
{
	int n, err;
	const char *msg;

	if (in->eof)
		return 0;
	if (in->start > 0) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		in->end -= in->start;
		in->start = 0;
	}
	if (in->end == in->cap) {
		in->cap *= 2;
		in->buf = zt_realloc(in->buf, in->cap + 1);
	}
	n = gzread(in->gz, in->buf + in->end, (unsigned)(in->cap - in->end));
	if (n < 0 || (n == 0 && (msg = gzerror(in->gz, &err)) && err != Z_OK)) {
		msg = gzerror(in->gz, &err);
		if (err == Z_ERRNO)
			zt_die(ZT_EXIT_DATA, "cannot read %s:", in->name);
		if (err == Z_BUF_ERROR)
			zt_die(ZT_EXIT_DATA, "%s: truncated gzip data after line %lu",
			       in->name, in->lineno);
		zt_die(ZT_EXIT_DATA, "%s: corrupt gzip data after line %lu: %s",
		       in->name, in->lineno, msg);
	}
	if (!in->gzipped && !gzdirect(in->gz))
		in->gzipped = 1;
	if (n == 0)
		in->eof = 1;
	in->end += (size_t)n;
	return (size_t)n;
}

char *zt_input_line(struct zt_input *in, size_t *len)
{
	size_t scanned = 0;
	char *line, *nl;

	for (;;) {
		nl = memchr(in->buf + in->start + scanned, '\n',
			    in->end - in->start - scanned);
		if (nl)
			break;
		scanned = in->end - in->start;
		if (fill(in) == 0) {
			if (in->end == in->start)
				return NULL;
			/* A last line without '\n'. */
			nl = in->buf + in->end;
			in->end++;
			break;
		}
	}
	line = in->buf + in->start;
	*nl = '\0';
	*len = (size_t)(nl - line);
	in->start = (size_t)(nl - in->buf) + 1;
	in->lineno++;
	return line;
}

unsigned long zt_input_lineno(const struct zt_input *in)
{
	return in->lineno;
}

const char *zt_input_name(const struct zt_input *in)
{
	return in->name;
}

int zt_input_gzipped(const struct zt_input *in)
{
	return in->gzipped;
}

void zt_input_close(struct zt_input *in)
{
	if (!in)
		return;
	gzclose(in->gz);
	free(in->buf);
	free(in->name);
	free(in);
}
