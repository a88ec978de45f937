/*
 * perfmap.c — the program's /tmp/perf-PID.map, copied into the dump at the
 * end (formats/raw.md, "perfmap"), because it may be gone by the time
 * anyone symbolizes.
 *
 * JIT runtimes (node --perf-basic-prof, python3.12 -X perf, LuaJIT,
 * perf-map-agent) write one line per piece of code they generate: "START
 * SIZE NAME", START and SIZE in hex. The program controls this file, so it
 * is read as perf reads it, only if it is a regular file owned by the
 * process's user or by root, not through a symbolic link; it is bounded in
 * size; every line is checked and written again in a fixed shape, its name
 * escaped as a text field, so that no line can end the section or forge
 * another. Runs at the end of the dump, possibly in a fatal signal's
 * handler: system calls and fixed buffers only.
 */
#include "perfmap.h"
#include "files.h"
#include "fmt.h"
#include "hex.h"
#include "rawfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	PERFMAP_BYTES_MAX = 64 << 20,	/* read at most this much of the file */
	PERFMAP_LINE_MAX = 4096,	/* a longer line is skipped */
};

/* 1 to 16 hex digits, an optional 0x first, at p; the end, or NULL. */
static const char *hex_field(const char *p, const char *end, uint64_t *v)
{
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	return zt_hex(p, end, v);	/* NULL: no digit, or more than 16 */
}

/* One line of the file, without its newline: written, or counted as skipped. */
static void put_line(int fd, const char *p, size_t n)
{
	const char *end = p + n, *q;
	uint64_t start, size;
	char buf[64], *b = buf;

	if (n > 0 && p[n - 1] == '\r')
		end--;
	if (!(q = hex_field(p, end, &start)) || q >= end || *q != ' ' ||
	    !(q = hex_field(q + 1, end, &size)) || q >= end || *q != ' ' || size == 0 ||
	    start + size < start || q + 1 >= end) {
		zt_state.perfmap_skipped++;
		return;
	}
	q++;
	b = zt_fmt_u64(b, start, 16);
	*b++ = ' ';
	b = zt_fmt_u64(b, size, 16);
	*b++ = ' ';
	zt_files_write_all(fd, buf, (size_t)(b - buf));
	zt_files_put_text(fd, q, (size_t)(end - q));
	zt_files_write_all(fd, "\n", 1);
	zt_state.perfmap_lines++;
}

/* "/tmp/perf-PID.map" for this process, into out. */
static void perfmap_path(char *out)
{
	char *p = out;

	memcpy(p, "/tmp/perf-", 10);
	p = zt_fmt_u64(p + 10, (uint64_t)getpid(), 10);
	memcpy(p, ".map", 5);
}

/*
 * The "perfmap" section, into the dump's fd, when the program wrote a
 * perf map; nothing when it did not, or when the file is not one to trust.
 */
void zt_perfmap_put(int fd)
{
	static char buf[2 * PERFMAP_LINE_MAX + 2];
	char path[64];
	struct stat st;
	size_t have = 0, total = 0;
	int in, skipping = 0;

	zt_state.perfmap_lines = zt_state.perfmap_skipped = 0;
	zt_state.perfmap_truncated = 0;
	zt_state.perfmap_state = 0;
	perfmap_path(path);
	in = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0) {
		if (errno == ELOOP)
			zt_state.perfmap_state = 2;	/* a symbolic link: refused */
		return;
	}
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		zt_state.perfmap_state = 2;	/* refused */
		zt_sys_close(in);
		return;
	}
	zt_state.perfmap_state = 1;
	zt_files_puts(fd, ZT_RAW_PERFMAP "\n");
	for (;;) {
		ssize_t n;
		char *p, *nl;

		if (total >= PERFMAP_BYTES_MAX) {
			zt_state.perfmap_truncated = 1;
			break;
		}
		n = read(in, buf + have, sizeof buf - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		have += (size_t)n;
		p = buf;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			if (!skipping && nl - p <= PERFMAP_LINE_MAX)
				put_line(fd, p, (size_t)(nl - p));
			else if (!skipping)
				zt_state.perfmap_skipped++;
			skipping = 0;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have > PERFMAP_LINE_MAX) {
			/* A line too long: dropped up to its newline. */
			if (!skipping)
				zt_state.perfmap_skipped++;
			skipping = 1;
			have = 0;
		}
	}
	/* A last line without its newline is still being written: left out. */
	if (have > 0 && !skipping)
		zt_state.perfmap_skipped++;
	zt_sys_close(in);
}
