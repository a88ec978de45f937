/*
 * status.c — zt-collect's side of the status pipe: the lines the
 * collectors of the program's tree wrote (collect/files.c writes them),
 * read back. What each process's last word was, which processes started a
 * dump, the CPU time of their exit work, and the failures that cost a dump,
 * said as zt-collect's messages. zt-collect owns the text (it reads the
 * pipe, status_drain); this file owns the reading of its grammar, "PID
 * WHAT ERRNO COUNT [NAME]", one line per event of a process's dump.
 */
#include "status.h"
#define ZT_SPILL_READER
#include "spill.h"
#include "launch.h"
#include "rawfmt.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *zt_status_last(const char *status, pid_t pid, char *what, size_t cap)
{
	const char *found = NULL;

	for (const char *line = status; line && *line;) {
		char w[ZT_STATUS_WORD_MAX + 1];
		long p;

		if (sscanf(line, "%ld %" ZT_STR(ZT_STATUS_WORD_MAX) "s", &p, w) == 2 && p == pid) {
			snprintf(what, cap, "%s", w);
			found = what;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return found;
}

size_t zt_status_exit_cpu(const char *status, struct zt_exit_cpu **out)
{
	static const char word[] = " " ZT_STATUS_EXIT_CPU_NS " ";
	struct zt_exit_cpu *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *line = status; line && *line;) {
		const char *nl = strchr(line, '\n'), *w = strstr(line, word);
		long p;
		int err;
		unsigned long long ns;

		if (w && (!nl || w < nl) &&
		    sscanf(line, "%ld " ZT_STATUS_EXIT_CPU_NS " %d %llu", &p, &err, &ns) == 3) {
			size_t i = 0;

			while (i < n && v[i].pid != (pid_t)p)
				i++;
			if (i == n) {
				zt_grow(&v, &cap, n + 1, sizeof *v);
				v[n++].pid = (pid_t)p;
			}
			v[i].ns = ns;
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = v;
	return n;
}

int zt_status_failure(const char *status, pid_t pid, const char *out)
{
	const char *line = status;

	while (line && *line) {
		char what[ZT_STATUS_WORD_MAX + 1];
		long p;
		int err;
		unsigned long long count;

		if (sscanf(line, "%ld %" ZT_STR(ZT_STATUS_WORD_MAX) "s %d %llu", &p, what, &err, &count) == 4 && p == pid) {
			if (strcmp(what, ZT_STATUS_WRITE_FAILED) == 0) {
				zt_warn("cannot write the dump '%s.tmp.%d': %s: no dump was written, "
					"%llu samples lost", out, (int)pid, strerror(err), count);
				return 1;
			}
			if (strcmp(what, ZT_STATUS_DESCRIPTOR_LOST) == 0) {
				zt_warn("the program closed the dump's descriptor and its file "
					"'%s.tmp.%d' could not be reopened: no dump was written, "
					"%llu samples lost", out, (int)pid, count);
				return 1;
			}
			if (strcmp(what, ZT_STATUS_OPEN_FAILED) == 0) {
				zt_warn("cannot create '%s.tmp.%d': %s: the program ran unsampled",
					out, (int)pid, strerror(err));
				return 1;
			}
			if (strcmp(what, ZT_STATUS_RENAME_FAILED) == 0) {
				/*
				 * The dump is whole, but the program could not
				 * rename it (it dropped root, say, and the
				 * directory is root's): zt-collect, with the
				 * rights it started with, publishes it, or keeps
				 * it and names it. Never removed.
				 */
				char tmp[PATH_MAX + 32], side[PATH_MAX + 40];

				snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)pid);
				/* Its side files (the maps copied into it; its buffers, written
				   out), the program could not remove either. */
				snprintf(side, sizeof side, "%s.maps", tmp);
				unlink(side);
				snprintf(side, sizeof side, "%s" ZT_SPILL_SUFFIX, tmp);
				unlink(side);
				if (rename(tmp, out) == 0) {
					zt_warn("note: the program could not rename its dump '%s' "
						"to '%s' (%s: it changed its credentials?); "
						"zt-collect published it", tmp, out, strerror(err));
					line = strchr(line, '\n');
					if (line)
						line++;
					continue;
				}
				zt_warn("cannot rename '%s' to '%s': %s (the program), %s "
					"(zt-collect): the whole dump is kept as '%s'", tmp, out,
					strerror(err), strerror(errno), tmp);
				return 1;
			}
			if (strncmp(what, ZT_STATUS_SECCOMP_REFUSES, strlen(ZT_STATUS_SECCOMP_REFUSES)) == 0) {
				zt_warn("the program runs under a seccomp filter that would kill "
					"zt's %s system call: it ran unsampled, and no dump was "
					"written", what + strlen(ZT_STATUS_SECCOMP_REFUSES));
				return 1;
			}
			if (strcmp(what, ZT_STATUS_CONTROL_FAILED) == 0)
				zt_warn("cannot serve zt-ctl in pid %ld: %s: sampling stayed as it "
					"started", p, strerror(err));
			if (strcmp(what, ZT_STATUS_GZIP_FAILED) == 0)
				zt_warn("cannot compress '%s': %s: the dump was kept "
					"uncompressed", out, strerror(err));
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

int zt_status_descendants_failed(const char *status, pid_t child, const char *out)
{
	static const char *const bad[] = {
		ZT_STATUS_WRITE_FAILED, ZT_STATUS_DESCRIPTOR_LOST, ZT_STATUS_OPEN_FAILED,
		ZT_STATUS_RENAME_FAILED, ZT_STATUS_SECCOMP_REFUSES,
	};
	pid_t seen[256];
	int nseen = 0, failed = 0;

	for (const char *line = status; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char what[ZT_STATUS_WORD_MAX + 1], path[PATH_MAX + 32];
		long p;
		int known = 0, is_bad = 0;

		if (sscanf(line, "%ld %" ZT_STR(ZT_STATUS_WORD_MAX) "s", &p, what) != 2 || p == child)
			continue;
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			is_bad |= strncmp(what, bad[i], strlen(bad[i])) == 0;
		for (int i = 0; i < nseen; i++)
			known |= seen[i] == (pid_t)p;
		if (!is_bad || known || nseen == 256)
			continue;
		seen[nseen++] = (pid_t)p;
		snprintf(path, sizeof path, "%s.%ld", out, p);
		failed += zt_status_failure(status, (pid_t)p, path);
	}
	return failed;
}

int zt_status_labels_lost(const char *status, pid_t child, const char *shown, const char *out)
{
	pid_t seen[256];
	int nseen = 0;

	for (const char *line = status; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char what[ZT_STATUS_WORD_MAX + 1];
		long p;
		int known = 0;

		if (sscanf(line, "%ld %" ZT_STR(ZT_STATUS_WORD_MAX) "s", &p, what) != 2 ||
		    strcmp(what, ZT_STATUS_LABELS_LOST) != 0)
			continue;
		for (int i = 0; i < nseen; i++)
			known |= seen[i] == (pid_t)p;
		if (known || nseen == 256)
			continue;
		seen[nseen++] = (pid_t)p;
		if ((pid_t)p == child)
			zt_warn("the dump '%s' has no host name and no labels: the descriptor "
				"zt-collect passed them in was gone (the program closed it, or "
				"changed " ZT_ENV_LABELS_FD " or " ZT_ENV_LABELS_INO ")", shown);
		else
			zt_warn("the dump '%s.%ld' of descendant %ld has no host name and no "
				"labels: the descriptor zt-collect passed them in was gone (a "
				"process of the tree closed it, or changed " ZT_ENV_LABELS_FD " or "
				ZT_ENV_LABELS_INO ")", out, p, p);
	}
	return nseen;
}

const char *zt_status_started_name(const char *line, char *name, size_t cap)
{
	unsigned e;
	unsigned long long c;
	int at = -1;

	if (sscanf(line, ZT_STATUS_STARTED " %u %llu %n", &e, &c, &at) < 2 || at < 0 || !line[at] ||
	    line[at] == '\n')
		return "?";
	snprintf(name, cap, "%.*s", (int)strcspn(line + at, " \n"), line + at);
	/* The pipe is the program's too: what it wrote there reaches no terminal raw. */
	for (char *c = name; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 127)
			*c = '?';
	return name;
}

const char *zt_status_last_line(const char *status, pid_t pid)
{
	char key[64];
	const char *last = NULL, *q = status;
	int len = snprintf(key, sizeof key, "%d ", (int)pid);

	for (; (q = strstr(q, key)); q += len)
		if (q == status || q[-1] == '\n')
			last = q + len;
	return last;
}

int zt_status_said(const char *status, pid_t pid, const char *what)
{
	char key[96];

	snprintf(key, sizeof key, "\n%d %s ", (int)pid, what);
	return strstr(status, key) || strncmp(status, key + 1, strlen(key + 1)) == 0;
}

size_t zt_status_started(const char *status, pid_t except, pid_t **pids)
{
	size_t n = 0, cap = 0;

	*pids = NULL;
	for (const char *line = status; *line;) {
		const char *nl = strchr(line, '\n');
		char what[ZT_STATUS_WORD_MAX + 1];
		long p;
		int known = 0;

		if (sscanf(line, "%ld %" ZT_STR(ZT_STATUS_WORD_MAX) "s", &p, what) == 2 && p != except &&
		    strcmp(what, ZT_STATUS_STARTED) == 0) {
			for (size_t i = 0; i < n; i++)
				known |= (*pids)[i] == (pid_t)p;
			if (!known) {
				zt_grow(pids, &cap, n + 1, sizeof **pids);
				(*pids)[n++] = (pid_t)p;
			}
		}
		line = nl ? nl + 1 : line + strlen(line);
	}
	return n;
}
