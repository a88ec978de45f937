/*
 * debugfile.h — finding the files that describe a binary: a copy of it kept
 * under a build-id directory (zt-archive's DIR/.build-id/xx/rest), and its
 * separate debug file (DIR/.build-id/xx/rest.debug, or .gnu_debuglink's name
 * beside it, in .debug/ beside it, or under a debug directory). Every file
 * found is checked: by build-id, and by CRC32 for a debug link.
 */
#ifndef ZT_DEBUGFILE_H
#define ZT_DEBUGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "elfread.h"

/* "dir/.build-id/xx/rest" followed by suffix ("" or ".debug"). */
void zt_debugfile_buildid_path(char *buf, size_t len, const char *dir, const char *buildid,
			       const char *suffix);

/* The CRC32 that .gnu_debuglink records (zlib's crc32). */
uint32_t zt_debugfile_crc32(const unsigned char *p, size_t n);

/*
 * Open the first dirs[i]/.build-id/xx/rest<suffix> whose own build-id is
 * buildid, looked up inside roots[i] when roots and roots[i] are not NULL
 * (zt_elf_open_file). Returns 0 with *out open, or -1 (out closed).
 */
int zt_debugfile_by_buildid(const char *const *dirs, const char *const *roots, size_t ndirs,
			    const char *buildid, const char *suffix, struct zt_elf *out);

/*
 * The separate debug file of run, which was opened from path (inside
 * run->root, if it has one): by run's build-id under dirs (and roots, as
 * for zt_debugfile_by_buildid), then by run's .gnu_debuglink beside path, in
 * path's .debug/ (both inside run->root), and under each dir followed by
 * path's directory. A
 * candidate whose CRC or build-id does not match is skipped, and the first
 * such problem is described in warn (else warn is ""). Returns 0 with *out
 * open, or -1.
 */
int zt_debugfile_find(const struct zt_elf *run, const char *path,
		      const char *const *dirs, const char *const *roots, size_t ndirs,
		      struct zt_elf *out,
		      char *warn, size_t warnlen);

#endif
