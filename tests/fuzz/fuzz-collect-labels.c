/*
 * fuzz-collect-labels.c — libFuzzer target for the collector's reading of
 * zt-collect's host and labels (collect/labels.c): the memfd zt-collect
 * passes (ZT_LABELS_FD, ZT_LABELS_INO), which a program could fake. Built
 * with collect/labels.c itself and stand-ins for the files module it
 * writes through. Byte 0 says how the descriptor is passed: bit 0 clear,
 * sealed against writes, shrinking and growth; set, one seal (0-3, bits
 * 1-2) left out; bit 3, the wrong inode in ZT_LABELS_INO; bit 4, no
 * ZT_LABELS_FD. The rest is the memfd's text.
 *
 * The text is taken, and written into the dump's header as it is, exactly
 * when the descriptor is passed whole and the text is lines a reader
 * takes (checked here again, plainly: "host VALUE" at most once and
 * first, then at most 32 "label KEY VALUE", no key twice, by the label
 * rules, each ending in a newline); otherwise nothing is written but
 * the one status line that says the labels were lost.
 */
#define FUZZ_NAME "fuzz-collect-labels"
#include "fuzz.h"
#include "labels.c"

#include <stdio.h>
#include <string.h>

static char written[16384];
static size_t nwritten;
static int nstatus;

void zt_files_status(const char *what, int err, uint64_t count)
{
	(void)err;
	(void)count;
	CHECK(strcmp(what, ZT_STATUS_LABELS_LOST) == 0);
	nstatus++;
}

void zt_files_puts(int fd, const char *s)
{
	size_t n = strlen(s);

	(void)fd;
	CHECK(nwritten + n < sizeof written);
	memcpy(written + nwritten, s, n);
	nwritten += n;
}

void zt_files_mark(int fd, int on)
{
	(void)fd;
	(void)on;
}

/* Whether text (n bytes) is lines a reader takes, checked plainly. */
static int plain_ok(const char *text, size_t n)
{
	char keys[ZT_LABELS_MAX][ZT_LABEL_KEY_MAX + 1];
	size_t nkeys = 0, i = 0;
	int first = 1;

	while (i < n) {
		const char *line = text + i, *nl = memchr(line, '\n', n - i), *sp;
		size_t len;

		if (!nl)
			return 0;
		len = (size_t)(nl - line);
		i += len + 1;
		if (first && len >= 5 && memcmp(line, "host ", 5) == 0) {
			first = 0;
			if (!zt_label_value_ok(line + 5, len - 5))
				return 0;
			continue;
		}
		first = 0;
		if (len < 6 || memcmp(line, "label ", 6) != 0 || nkeys == ZT_LABELS_MAX)
			return 0;
		sp = memchr(line + 6, ' ', len - 6);
		if (!sp || !zt_label_key_ok(line + 6, (unsigned long)(sp - line - 6)) ||
		    !zt_label_value_ok(sp + 1, (unsigned long)(nl - sp - 1)))
			return 0;
		for (size_t k = 0; k < nkeys; k++)
			if (strlen(keys[k]) == (size_t)(sp - line - 6) &&
			    memcmp(keys[k], line + 6, (size_t)(sp - line - 6)) == 0)
				return 0;
		memcpy(keys[nkeys], line + 6, (size_t)(sp - line - 6));
		keys[nkeys++][sp - line - 6] = '\0';
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	char fdbuf[32], inobuf[32];
	struct stat st;
	int fd, whole;
	uint8_t how;

	if (size == 0)
		return 0;
	how = data[0];
	data++;
	size--;
	fd = memfd_create("zt-labels", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	if (how & 1)
		seals &= ~(1u << ((how >> 1) & 3));
	CHECK(fcntl(fd, F_ADD_SEALS, seals) == 0);
	CHECK(fstat(fd, &st) == 0);
	snprintf(fdbuf, sizeof fdbuf, "%d", fd);
	snprintf(inobuf, sizeof inobuf, "%llu",
		 (unsigned long long)st.st_ino + (how & 8 ? 1 : 0));
	if (how & 16)
		unsetenv(ZT_ENV_LABELS_FD);
	else
		setenv(ZT_ENV_LABELS_FD, fdbuf, 1);
	setenv(ZT_ENV_LABELS_INO, inobuf, 1);
	nwritten = 0;
	nstatus = 0;
	said = 0;
	zt_labels_init();
	zt_labels_put(1);
	zt_labels_put(1);	/* a snapshot's next dump: the same lines, no word again */
	whole = !(how & (1 | 8 | 16)) && plain_ok((const char *)data, size);
	if (whole) {
		CHECK(nstatus == 0 && nwritten == 2 * size);
		CHECK(memcmp(written, data, size) == 0 && memcmp(written + size, data, size) == 0);
	} else {
		CHECK(nstatus == 1 && nwritten == 0);
	}
	close(fd);
	return 0;
}
