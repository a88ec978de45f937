/*
 * labels.c — the host name and the run's labels (labels.h), taken from
 * zt-collect's sealed descriptor in the constructor and written into each
 * dump's header.
 */
#include "labels.h"
#include "files.h"
#include "launch.h"
#include "rawfmt.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#endif
#ifndef F_SEAL_SEAL
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

/* The descriptor's text, checked: its "host" line, then a "label" line per
   pair, each ending in '\n', as written in the dump. */
#define HOST_LINE_MAX (sizeof ZT_RAW_HOST + ZT_LABEL_VALUE_MAX + 1)
#define LABEL_LINE_MAX (sizeof ZT_RAW_LABEL + ZT_LABEL_KEY_MAX + 1 + ZT_LABEL_VALUE_MAX + 1)
static char lines[HOST_LINE_MAX + ZT_LABELS_MAX * LABEL_LINE_MAX + 1];
/* Set when zt-collect's descriptor was not there as it passed it: said on each dump. */
static int lost;
static pid_t said;	/* the process that said so: a forked child says it again */

/*
 * Whether text (n bytes) holds lines a reader takes: "host VALUE" at most
 * once and first, then at most ZT_LABELS_MAX "label KEY VALUE", no key
 * twice, each by the label rules (rawfmt.h) and ending in '\n'.
 */
static int lines_ok(const char *text, size_t n)
{
	const char *keys[ZT_LABELS_MAX];
	size_t keyn[ZT_LABELS_MAX], nkeys = 0;
	const char *p = text, *end = text + n;

	if (n && text[n - 1] != '\n')
		return 0;
	if ((size_t)(end - p) > sizeof ZT_RAW_HOST &&
	    memcmp(p, ZT_RAW_HOST " ", sizeof ZT_RAW_HOST) == 0) {
		const char *v = p + sizeof ZT_RAW_HOST, *nl = memchr(v, '\n', (size_t)(end - v));

		if (!zt_label_value_ok(v, (unsigned long)(nl - v)))
			return 0;
		p = nl + 1;
	}
	while (p < end) {
		const char *k = p + sizeof ZT_RAW_LABEL, *nl, *sp;

		if ((size_t)(end - p) <= sizeof ZT_RAW_LABEL ||
		    memcmp(p, ZT_RAW_LABEL " ", sizeof ZT_RAW_LABEL) != 0 || nkeys == ZT_LABELS_MAX)
			return 0;
		nl = memchr(k, '\n', (size_t)(end - k));
		sp = memchr(k, ' ', (size_t)(nl - k));
		if (!sp || !zt_label_key_ok(k, (unsigned long)(sp - k)) ||
		    !zt_label_value_ok(sp + 1, (unsigned long)(nl - sp - 1)))
			return 0;
		for (size_t i = 0; i < nkeys; i++)
			if (keyn[i] == (size_t)(sp - k) && memcmp(keys[i], k, keyn[i]) == 0)
				return 0;
		keys[nkeys] = k;
		keyn[nkeys++] = (size_t)(sp - k);
		p = nl + 1;
	}
	return 1;
}

void zt_labels_init(void)
{
	const char *fds = getenv(ZT_ENV_LABELS_FD), *inos = getenv(ZT_ENV_LABELS_INO);
	unsigned want = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	struct stat st;
	ssize_t n;
	long fd;
	int seals;

	lines[0] = '\0';
	lost = 1;
	if (!fds || !inos)
		return;
	/* zt-collect's, as it passed it: its number, its inode, sealed against any change. */
	fd = strtol(fds, NULL, 10);
	if (fd < 3 || fd > 1 << 20 || fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_ino != strtoull(inos, NULL, 10) ||
	    st.st_size < 0 || (size_t)st.st_size >= sizeof lines)
		return;
	seals = fcntl((int)fd, F_GET_SEALS);
	if (seals < 0 || ((unsigned)seals & want) != want)
		return;
	/* pread: the offset is shared with every process that holds it. */
	n = pread((int)fd, lines, (size_t)st.st_size, 0);
	if (n != st.st_size || !lines_ok(lines, (size_t)n)) {
		lines[0] = '\0';
		return;
	}
	lines[n] = '\0';
	lost = 0;
	/*
	 * Left open, not close-on-exec, and spared by the close interposers:
	 * a child forked keeps what is read here, an image exec'd (under -f a
	 * descendant, or this process's next program) reads it again.
	 */
	fcntl((int)fd, F_SETFD, 0);
	zt_files_mark((int)fd, 1);
}

void zt_labels_put(int fd)
{
	/*
	 * Once a process, before its "started" (dump.c): a snapshot's next
	 * dump does not say it again after it, so the last word of a process
	 * stays its dump's (zt-collect finishes a dump whose last is "started").
	 */
	if (lost && said != getpid()) {
		said = getpid();
		zt_files_status(ZT_STATUS_LABELS_LOST, 0, 0);
	}
	/* Checked by lines_ok: nothing to escape. */
	zt_files_puts(fd, lines);
}
