/*
 * archive.c — zt-archive's work. Files are copied to a temporary name in
 * the target directory and renamed into place, so a reader never sees half
 * a file, and a file already archived is checked, not copied again.
 */
#include "archive.h"
#include "arch.h"
#include "debugfile.h"
#include "elfread.h"
#include "hash.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p; 0 on success. */
static int mkdirs(const char *path)
{
	char *p = zt_strdup(path);

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return 0;
}

/* Write n bytes to dest through a temporary file; 0, or -1 with errno. */
static int store(const char *dest, const unsigned char *data, size_t n)
{
	char *tmp = zt_malloc(strlen(dest) + 16);
	int fd, saved;

	sprintf(tmp, "%s.tmpXXXXXX", dest);
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	while (n > 0) {
		ssize_t w = write(fd, data, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		data += w;
		n -= (size_t)w;
	}
	if (fchmod(fd, 0644) < 0 || close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, dest) < 0) {
		fd = -1;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	saved = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = saved;
	return -1;
}

static struct zt_archived *add(struct zt_archived **a, size_t *n, size_t *cap,
			       const char *path)
{
	struct zt_archived *e;

	zt_grow(a, cap, *n + 1, sizeof **a);
	e = &(*a)[(*n)++];
	memset(e, 0, sizeof *e);
	e->path = zt_strdup(path);
	return e;
}

static void problem(struct zt_archived *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct zt_archived *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e->status = ZT_ARCH_SKIPPED;
	e->problem = zt_vstrdupf(fmt, ap);
	va_end(ap);
}

/* Put f (whose build-id is buildid) at dir/.build-id/xx/rest<suffix>. */
static void put(struct zt_archived *e, const char *dir, const char *buildid,
		const char *suffix, const struct zt_elf *f)
{
	char dest[4096];
	struct zt_elf old;
	char err[256];

	zt_debugfile_buildid_path(dest, sizeof dest, dir, buildid, suffix);
	e->dest = zt_strdup(dest);
	if (zt_elf_open(dest, &old, err, sizeof err) == 0 &&
	    strcmp(old.buildid, buildid) == 0) {
		e->status = ZT_ARCH_PRESENT;
		zt_elf_close(&old);
		return;
	}
	zt_elf_close(&old);
	*strrchr(dest, '/') = '\0';
	if (mkdirs(dest) < 0) {
		problem(e, "cannot create '%s': %s", dest, strerror(errno));
		return;
	}
	if (store(e->dest, f->data, f->size) < 0) {
		problem(e, "cannot write '%s': %s", e->dest, strerror(errno));
		return;
	}
	e->status = ZT_ARCH_STORED;
}

/* Whether mapping i is of the same file and build as the one looked up. */
static int same_file(void *ctx, uint32_t i, const void *key)
{
	const struct zt_raw *d = ctx;
	const struct zt_map *a = &d->maps[i], *b = key;

	return strcmp(a->path, b->path) == 0 &&
	       (a->buildid && b->buildid ? strcmp(a->buildid, b->buildid) == 0 :
		a->buildid == b->buildid);
}

static uint64_t file_hash(const struct zt_map *m)
{
	return zt_hash(m->path, strlen(m->path),
		       m->buildid ? zt_hash(m->buildid, strlen(m->buildid), 1) : 0);
}

int zt_archive(const struct zt_raw *d, const char *dir, const char *sysroot,
	       struct zt_archived **out, size_t *nout, char *err, size_t errlen)
{
	/* Files seen, by path and build: a dump's snapshots of the maps
	 * repeat each file many times. */
	struct zt_hash_index seenix = { 0 };
	struct zt_archived *a = NULL;
	size_t n = 0, cap = 0;
	static const char *const sysdirs[] = { "/usr/lib/debug" };
	const char *const roots[] = { sysroot };

	if (mkdirs(dir) < 0) {
		zt_errf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < d->nmaps; i++) {
		const struct zt_map *m = &d->maps[i];
		struct zt_elf f, dbg;
		struct zt_archived *e;
		char why[512], dwarn[600];
		uint64_t h;

		if (!zt_maps_is_file(m))
			continue;
		h = file_hash(m);
		if (zt_hash_index_find(&seenix, h, same_file, (void *)d, m) >= 0)
			continue;
		zt_hash_index_add(&seenix, h, (uint32_t)i);
		if (zt_elf_open_in(sysroot, m->path, &f, why, sizeof why) < 0) {
			/* Not ELF (a font, a locale archive): nothing to symbolize. */
			if (m->buildid || !strstr(why, "ELF")) {
				e = add(&a, &n, &cap, f.path);	/* sysroot and path */
				problem(e, "%s", why);
			}
			zt_elf_close(&f);
			continue;
		}
		e = add(&a, &n, &cap, f.path);
		if (zt_arch_check((enum zt_arch)d->arch, f.machine, why, sizeof why) < 0) {
			problem(e, "%s", why);
		} else if (!m->buildid) {
			problem(e, "the dump records no build-id for it");
		} else if (strcmp(m->buildid, f.buildid) != 0) {
			problem(e, "build-id mismatch: the dump has %s, the file has %s",
				m->buildid, f.buildid[0] ? f.buildid : "none");
		} else {
			put(e, dir, m->buildid, "", &f);
			if (zt_debugfile_find(&f, m->path, sysdirs, roots, 1, &dbg, dwarn,
					      sizeof dwarn) == 0) {
				e = add(&a, &n, &cap, dbg.path);
				put(e, dir, m->buildid, ".debug", &dbg);
			} else if (dwarn[0]) {
				e = add(&a, &n, &cap, f.path);
				problem(e, "%s", dwarn);
			}
			zt_elf_close(&dbg);
		}
		zt_elf_close(&f);
	}
	zt_hash_index_free(&seenix);
	*out = a;
	*nout = n;
	return 0;
}

void zt_archived_free(struct zt_archived *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].path);
		free(a[i].dest);
		free(a[i].problem);
	}
	free(a);
}
