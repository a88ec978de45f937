/*
 * maps.c — parsing maps lines and finding the mapping of an address.
 * A mapping [start, end) at file offset off puts address a at file offset
 * a - start + off; the ELF reader takes it from there (elf.h).
 */
#include "maps.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *field(const char **s, const char **end)
{
	const char *p = *s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	*end = p;
	while (**end && **end != ' ' && **end != '\t')
		(*end)++;
	*s = *end;
	return p;
}

static int hexnum(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (p == end || end - p > 16)
		return -1;
	for (; p < end; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

const char *zt_map_parse(const char *line, struct zt_map *m)
{
	const char *s = line, *f, *e, *dash;
	size_t len;
	uint64_t dev;

	memset(m, 0, sizeof *m);
	if (!(f = field(&s, &e)))
		return "empty maps line";
	dash = memchr(f, '-', (size_t)(e - f));
	if (!dash || hexnum(f, dash, &m->start) || hexnum(dash + 1, e, &m->end))
		return "bad address range in maps line";
	if (m->end <= m->start)
		return "empty or reversed address range in maps line";
	if (!(f = field(&s, &e)) || e - f != 4)
		return "bad permissions in maps line";
	memcpy(m->perms, f, 4);
	if (!(f = field(&s, &e)) || hexnum(f, e, &m->offset))
		return "bad offset in maps line";
	if (!(f = field(&s, &e)))
		return "missing device in maps line";
	(void)dev;
	if (!(f = field(&s, &e)))
		return "missing inode in maps line";
	m->inode = strtoull(f, NULL, 10);
	while (*s == ' ' || *s == '\t')
		s++;
	len = strlen(s);
	if (len >= 10 && strcmp(s + len - 10, " (deleted)") == 0) {
		m->deleted = 1;
		len -= 10;
	}
	m->path = zt_strndup(s, len);
	return NULL;
}

int zt_map_is_file(const struct zt_map *m)
{
	return m->path && m->path[0] == '/';
}

const struct zt_map *zt_maps_find(const struct zt_map *maps, size_t n,
				  uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* The last mapping that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Overlaps (a library unloaded, another loaded there) make an earlier
	 * mapping hold addr too: look back. Each address is resolved once, so
	 * the scan for an address in no mapping costs little.
	 */
	for (size_t i = lo; i > 0; i--)
		if (addr < maps[i - 1].end)
			return &maps[i - 1];
	return NULL;
}

static int cmp_map(const void *a, const void *b)
{
	const struct zt_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void zt_maps_sort(struct zt_map *maps, size_t n)
{
	if (n < 2)
		return;	/* maps may be NULL, which qsort must not see */
	qsort(maps, n, sizeof *maps, cmp_map);
}

const char *zt_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
