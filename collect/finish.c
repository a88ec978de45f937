/*
 * finish.c — zt-collect's finishing of a dump its process could not end:
 * the process ended without the collector's exit path (SIGKILL, a raw
 * exit_group, glibc's internal _exit, a crash handler that re-raised its
 * signal at SIG_DFL, a stack overflow), leaving FILE.tmp.PID and its side
 * file FILE.tmp.PID.maps. It owns the "Finished by zt-collect" part of the
 * raw format (formats/raw.md): which lines of those files are kept, the
 * summary written after them, and the publishing (compressed or not); and
 * the removal of what cannot be finished. zt-collect.c decides when;
 * report.c says what the finished dump holds.
 */
#include "finish.h"
#include "status.h"
#define ZT_SPILL_READER
#include "spill.h"

#include "input.h"
#include "launch.h"
#include "rawfmt.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The threads seen in the sample lines counted so far. */
struct tids {
	unsigned long *tid;
	size_t cap;
};

/* A sample line (or not: then nothing) counted into u. */
static void count_line(const char *line, struct zt_finish *u, struct tids *seen)
{
	unsigned long tid;
	unsigned long long count;
	int known = 0;

	if (sscanf(line, "%lu %llu", &tid, &count) != 2)
		return;
	/* An allocation sample's line (v6), or an off-CPU one (v5), is not a CPU sample. */
	if (!strchr(line, ZT_RAW_ALLOC_MARK) && !strchr(line, ZT_RAW_WAIT_MARK))
		u->samples += count;
	for (size_t i = 0; i < u->threads && !known; i++)
		known = seen->tid[i] == tid;
	if (!known) {
		zt_grow(&seen->tid, &seen->cap, u->threads + 1, sizeof *seen->tid);
		seen->tid[u->threads++] = tid;
	}
}

/* The tmp file's whole lines: samples and their threads into u; the bytes to keep, or -1. */
static off_t unfinished_samples(const char *tmp, struct zt_finish *u, struct tids *seen)
{
	char err[512];
	struct zt_input *in = zt_input_open(tmp, err, sizeof err);
	off_t keep = 0;
	int in_samples = 0, first = 1;
	char *line;
	size_t len;

	if (!in)
		return -1;
	while ((line = zt_input_line(in, &len))) {
		if (zt_input_unended(in))
			break;	/* cut inside the line: left out */
		keep += (off_t)len + 1;
		if (first && strncmp(line, ZT_RAW_MAGIC " ", sizeof ZT_RAW_MAGIC) != 0)
			break;
		first = 0;
		if (!in_samples) {
			in_samples = strcmp(line, ZT_RAW_SAMPLES) == 0;
			continue;
		}
		count_line(line, u, seen);
	}
	zt_input_close(in);
	return in_samples ? keep : -1;
}

/*
 * Whether the n bytes at p are whole sample lines as the collector writes
 * them: each a digit first, printable text, a newline last. The slot is
 * the program's memory: anything else in it is not taken.
 */
static int sample_lines(const char *p, size_t n)
{
	if (!n || p[n - 1] != '\n')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((i == 0 || p[i - 1] == '\n') && (c < '0' || c > '9'))
			return 0;
		if (c != '\n' && (c < 0x20 || c > 0x7e))
			return 0;
	}
	return 1;
}

/*
 * The lines the process left in its buffers (spill.h's side file, spill),
 * appended to fd and counted into u: taken buffers into u->buffers, those
 * whose write to the dump was under way, or that hold no sample lines,
 * into u->buffers_unknown. -1 when there is no such file (then nothing is
 * known of the last buffers), or a write failed.
 */
static int take_buffers(int fd, const char *spill, struct zt_finish *u, struct tids *seen)
{
	int in = open(spill, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct zt_spill_head h;
	uint64_t stride = 0;
	char *buf = NULL;
	struct stat st, dump;
	int rc = 0;

	if (in < 0)
		return -1;
	/*
	 * Made by the collector that made the dump, so its owner's, on its
	 * file system: a file another user left at that predictable name
	 * (the collector's exclusive create then failed) is not taken.
	 */
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || fstat(fd, &dump) < 0 ||
	    st.st_uid != dump.st_uid || st.st_dev != dump.st_dev) {
		close(in);
		return -1;
	}
	for (off_t off = 0; rc == 0 && pread(in, &h, sizeof h, off) == (ssize_t)sizeof h;
	     off += (off_t)stride) {
		uint64_t len = h.len;

		/* One size for all slots: the first's, within reason. */
		if (!stride && (h.magic != ZT_SPILL_MAGIC || h.slot_size <= sizeof h ||
				h.slot_size > ZT_SPILL_SLOT_MAX)) {
			rc = -1;
			break;
		}
		if (!stride)
			stride = h.slot_size;
		if (h.magic != ZT_SPILL_MAGIC || !len)
			continue;	/* reserved, never used; or written out */
		if (h.slot_size != stride || h.writing || len > stride - sizeof h) {
			u->buffers_unknown++;
			continue;
		}
		if (!buf && !(buf = malloc(stride))) {
			rc = -1;
			break;
		}
		if (pread(in, buf, len, off + (off_t)sizeof h) != (ssize_t)len ||
		    !sample_lines(buf, len)) {
			u->buffers_unknown++;
			continue;
		}
		if (write(fd, buf, len) != (ssize_t)len) {
			rc = -1;
			break;
		}
		u->buffers++;
		for (char *p = buf, *nl; p < buf + len; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(buf + len - p));
			*nl = '\0';
			count_line(p, u, seen);
		}
	}
	free(buf);
	close(in);
	/* No slot at all: the process died before its first was in the file. */
	return stride ? rc : -1;
}

/* Append src's whole lines to fd; -1 on a failed write. */
static int append_lines(int fd, const char *src)
{
	char buf[65536];
	off_t total = 0, keep = 0;
	ssize_t n;
	int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (in < 0)
		return 0;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		for (ssize_t i = n; i > 0; i--)
			if (buf[i - 1] == '\n') {
				keep = total + i;
				break;
			}
		total += n;
	}
	for (off_t off = 0; off < keep; off += n) {
		size_t want = keep - off > (off_t)sizeof buf ? sizeof buf : (size_t)(keep - off);

		n = pread(in, buf, want, off);
		if (n <= 0 || write(fd, buf, (size_t)n) != n) {
			close(in);
			return -1;
		}
	}
	close(in);
	return 0;
}

/* Compress the file at from into to (a new file); 0 or -1. */
static int gzip_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, ok = 1;
	gzFile z;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0 || !(z = gzdopen(out, "wb6"))) {
		if (out >= 0)
			close(out);
		close(in);
		return -1;
	}
	while (ok && (n = read(in, buf, sizeof buf)) > 0)
		ok = gzwrite(z, buf, (unsigned)n) == (int)n;
	close(in);
	if (gzclose(z) != Z_OK || !ok) {
		unlink(to);
		return -1;
	}
	return 0;
}

int zt_finish_dump(const char *out, pid_t pid, struct zt_finish *u)
{
	char tmp[PATH_MAX + 64], side[PATH_MAX + 80], spill[PATH_MAX + 80], gz[PATH_MAX + 80];
	struct tids seen = { NULL, 0 };
	off_t keep;
	FILE *f;
	int fd, bad, taken;

	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
	snprintf(side, sizeof side, "%s.maps", tmp);
	snprintf(spill, sizeof spill, "%s" ZT_SPILL_SUFFIX, tmp);
	fd = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		unlink(side);
		unlink(spill);
		return 1;
	}
	keep = unfinished_samples(tmp, u, &seen);
	if (keep < 0 || ftruncate(fd, keep) < 0 || lseek(fd, 0, SEEK_END) != keep) {
		zt_warn("cannot finish the dump '%s' of pid %d: %s; removed", tmp, (int)pid,
			keep < 0 ? "it ended before the dump's header was whole" : strerror(errno));
		close(fd);
		free(seen.tid);
		unlink(tmp);
		unlink(side);
		unlink(spill);
		return -1;
	}
	/* The buffers' lines end the samples section; the side file's sections follow. */
	taken = take_buffers(fd, spill, u, &seen) == 0;
	u->buffers_known = taken;
	free(seen.tid);
	unlink(spill);
	bad = append_lines(fd, side) < 0;
	f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		bad = 1;
	} else {
		fprintf(f, ZT_RAW_SUMMARY "\n" ZT_RAW_FINISHED " " ZT_RAW_FINISHED_LAUNCHER "\n"
			ZT_RAW_NSAMPLES " %" PRIu64 "\n", u->samples);
		if (taken)
			fprintf(f, ZT_RAW_FINISHED_BUFFERS " %zu\n" ZT_RAW_FINISHED_UNKNOWN " %zu\n",
				u->buffers, u->buffers_unknown);
		if (u->ru) {
			uint64_t user = (uint64_t)u->ru->ru_utime.tv_sec * 1000000000u +
					(uint64_t)u->ru->ru_utime.tv_usec * 1000u;
			uint64_t sys = (uint64_t)u->ru->ru_stime.tv_sec * 1000000000u +
				       (uint64_t)u->ru->ru_stime.tv_usec * 1000u;

			fprintf(f, ZT_RAW_CPU_NS " %" PRIu64 "\n" ZT_RAW_CPU_USER_START_NS " 0\n"
				ZT_RAW_CPU_SYS_START_NS " 0\n" ZT_RAW_CPU_USER_NS " %" PRIu64 "\n"
				ZT_RAW_CPU_SYS_NS " %" PRIu64 "\n", user + sys, user, sys);
		}
		fputs(ZT_RAW_END "\n", f);
		bad |= fflush(f) != 0 || fsync(fileno(f)) < 0;
		bad |= fclose(f) != 0;
	}
	unlink(side);
	snprintf(gz, sizeof gz, "%s.gz", tmp);
	if (!bad && u->gzip && gzip_file(tmp, gz) == 0 && rename(gz, out) == 0) {
		unlink(tmp);
		return 0;
	}
	if (!bad && rename(tmp, out) == 0)
		return 0;
	zt_warn("cannot finish the dump '%s' of pid %d: %s; removed", tmp, (int)pid,
		strerror(errno ? errno : EIO));
	unlink(tmp);
	unlink(gz);
	return -1;
}

void zt_finish_remove(const char *out, pid_t pid, const char *status, int say)
{
	char tmp[PATH_MAX + 64];

	/* A whole dump that could not be renamed is kept (zt_status_failure named it). */
	if (zt_status_said(status, pid, ZT_STATUS_RENAME_FAILED))
		return;

	snprintf(tmp, sizeof tmp, "%s.tmp.%d.maps", out, (int)pid);
	unlink(tmp);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d" ZT_SPILL_SUFFIX, out, (int)pid);
	unlink(tmp);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
	if (unlink(tmp) == 0 && say)
		zt_warn("removed the unfinished dump '%s': the program ended before "
			"it could be completed", tmp);
}
