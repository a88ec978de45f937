/*
 * archive.h — keeping the files a raw dump needs, by build-id, so that the
 * dump can be symbolized after they were rebuilt or deleted (zt-archive).
 * The layout is the debug-file directory's: DIR/.build-id/xx/rest for the
 * binary and DIR/.build-id/xx/rest.debug for its separate debug file, which
 * zt-symbolize --debug-dir=DIR reads.
 */
#ifndef ZT_ARCHIVE_H
#define ZT_ARCHIVE_H

#include <stddef.h>

#include "raw.h"

enum zt_arch_status {
	ZT_ARCH_STORED,		/* copied into the archive now */
	ZT_ARCH_PRESENT,	/* the archive had it already */
	ZT_ARCH_SKIPPED,	/* not archived: see problem */
};

struct zt_archived {
	char *path;		/* the file read (a debug file's own path) */
	char *dest;		/* where it is in the archive, or NULL */
	int status;
	char *problem;		/* why it was skipped, or NULL */
};

/*
 * Archive every ELF file that d maps, under dir (created if need be), with
 * its separate debug file when one is found (by build-id under
 * /usr/lib/debug, or by .gnu_debuglink). With sysroot (not NULL), the
 * dump's paths and /usr/lib/debug are looked up inside it, as zt-symbolize
 * --sysroot does (the root file system of the machine that ran, mounted
 * here). A file is archived only under the build-id the dump recorded,
 * only when the file on disk still has it, and only when it is built for
 * the dump's architecture; files that are not ELF are ignored. Returns the
 * entries in *out (the caller frees them with zt_archived_free) and 0, or
 * -1 with err set when dir cannot be made.
 */
int zt_archive(const struct zt_raw *d, const char *dir, const char *sysroot,
	       struct zt_archived **out, size_t *nout, char *err, size_t errlen);

void zt_archived_free(struct zt_archived *a, size_t n);

#endif
