/*
 * labels.c — the host name and the run's labels (labels.h), kept from the
 * constructor and written into each dump's header.
 */
#include "labels.h"
#include "files.h"
#include "launch.h"
#include "rawfmt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* "KEY VALUE" lines, each ending in '\n', and the host's line: at most
   ZT_LABELS_MAX pairs of a key, a space, a value and a newline. */
static char lines[ZT_LABELS_MAX * (ZT_LABEL_KEY_MAX + ZT_LABEL_VALUE_MAX + 2) + 1];
static char host[ZT_LABEL_VALUE_MAX + 1];

void zt_labels_init(void)
{
	const char *env = getenv(ZT_ENV_LABELS), *p, *end, *eq;
	struct utsname u;
	size_t len = 0, n = 0;

	/* The kernel's node name (uname), as hostname(1) prints it. */
	if (uname(&u) == 0 && zt_label_value_ok(u.nodename, strlen(u.nodename)))
		memcpy(host, u.nodename, strlen(u.nodename) + 1);
	for (p = env; p && *p && n < ZT_LABELS_MAX; p = *end ? end + 1 : end) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || !zt_label_key_ok(p, (unsigned long)(eq - p)) ||
		    !zt_label_value_ok(eq + 1, (unsigned long)(end - eq - 1)))
			continue;
		memcpy(lines + len, p, (size_t)(end - p));
		lines[len + (size_t)(eq - p)] = ' ';
		len += (size_t)(end - p);
		lines[len++] = '\n';
		n++;
	}
	lines[len] = '\0';
}

void zt_labels_put(int fd)
{
	const char *p = lines;

	if (host[0]) {
		zt_files_puts(fd, ZT_RAW_HOST " ");
		zt_files_puts(fd, host);
		zt_files_puts(fd, "\n");
	}
	while (*p) {
		const char *nl = strchr(p, '\n');

		/* Checked by the label rules in zt_labels_init: nothing to escape. */
		zt_files_puts(fd, ZT_RAW_LABEL " ");
		zt_files_write_all(fd, p, (size_t)(nl - p + 1));
		p = nl + 1;
	}
}
