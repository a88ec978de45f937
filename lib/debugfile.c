/*
 * debugfile.c — build-id directories and .gnu_debuglink, as gdb and perf
 * search them. Nothing is trusted by its name alone: a file found by
 * build-id must carry that build-id, and a file found by debug link must
 * match the link's CRC (and the binary's build-id when both have one).
 */
#include "debugfile.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

void zt_debugfile_buildid_path(char *buf, size_t len, const char *dir, const char *buildid,
			       const char *suffix)
{
	snprintf(buf, len, "%s/.build-id/%.2s/%s%s", dir, buildid,
		 strlen(buildid) > 2 ? buildid + 2 : "", suffix);
}

uint32_t zt_debugfile_crc32(const unsigned char *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (n > 0) {
		uInt chunk = n > (1u << 30) ? 1u << 30 : (uInt)n;

		crc = crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return (uint32_t)crc;
}

int zt_debugfile_by_buildid(const char *const *dirs, const char *const *roots, size_t ndirs,
			    const char *buildid, const char *suffix, struct zt_elf *out)
{
	char path[4096], err[256];

	if (!buildid || strlen(buildid) < 3)
		return -1;
	for (size_t i = 0; i < ndirs; i++) {
		zt_debugfile_buildid_path(path, sizeof path, dirs[i], buildid, suffix);
		if (zt_elf_open_in(roots ? roots[i] : NULL, path, out, err, sizeof err) == 0 &&
		    strcmp(out->buildid, buildid) == 0)
			return 0;
		zt_elf_close(out);
	}
	return -1;
}

/* Try one debug-link candidate. */
static int try_link(const struct zt_elf *run, const char *root, const char *cand,
		    struct zt_elf *out, char *warn, size_t warnlen)
{
	char err[256];

	if (zt_elf_open_in(root, cand, out, err, sizeof err) < 0) {
		zt_elf_close(out);
		return -1;
	}
	if (zt_debugfile_crc32(out->data, out->size) != run->debuglink_crc) {
		if (!*warn)
			zt_errf(warn, warnlen, "debug file '%s' fails its CRC check; not used",
				out->path);
		zt_elf_close(out);
		return -1;
	}
	if (run->buildid[0] && out->buildid[0] && strcmp(run->buildid, out->buildid) != 0) {
		if (!*warn)
			zt_errf(warn, warnlen, "debug file '%s' has build-id %s, not %s; not used",
				out->path, out->buildid, run->buildid);
		zt_elf_close(out);
		return -1;
	}
	if (out->machine != run->machine) {
		if (!*warn)
			zt_errf(warn, warnlen, "debug file '%s' is for ELF machine %u, not %u; "
				"not used", out->path, (unsigned)out->machine,
				(unsigned)run->machine);
		zt_elf_close(out);
		return -1;
	}
	return 0;
}

int zt_debugfile_find(const struct zt_elf *run, const char *path,
		      const char *const *dirs, const char *const *roots, size_t ndirs,
		      struct zt_elf *out, char *warn, size_t warnlen)
{
	char cand[4096], dir[4096];
	const char *slash;

	*warn = '\0';
	if (run->buildid[0] &&
	    zt_debugfile_by_buildid(dirs, roots, ndirs, run->buildid, ".debug", out) == 0) {
		if (out->machine == run->machine)
			return 0;
		zt_elf_close(out);
	}
	if (!run->debuglink || strchr(run->debuglink, '/'))
		return -1;
	slash = strrchr(path, '/');
	if (snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1,
		     slash ? path : ".") >= (int)sizeof dir)
		return -1;
	if (snprintf(cand, sizeof cand, "%s/%s", dir, run->debuglink) < (int)sizeof cand &&
	    strcmp(cand, path) != 0 && try_link(run, run->root, cand, out, warn, warnlen) == 0)
		return 0;
	if (snprintf(cand, sizeof cand, "%s/.debug/%s", dir, run->debuglink) < (int)sizeof cand &&
	    try_link(run, run->root, cand, out, warn, warnlen) == 0)
		return 0;
	for (size_t i = 0; i < ndirs; i++) {
		if (snprintf(cand, sizeof cand, "%s%s/%s", dirs[i], dir,
			     run->debuglink) < (int)sizeof cand &&
		    try_link(run, roots ? roots[i] : NULL, cand, out, warn, warnlen) == 0)
			return 0;
	}
	return -1;
}
