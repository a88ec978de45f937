/*
 * maps.c — parsing maps lines and finding the mapping of an address.
 * A mapping [start, end) at file offset off puts address a at file offset
 * a - start + off; the ELF reader takes it from there (elfread.h).
 */
#include "maps.h"
#include "hex.h"
#include "ranges.h"
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

/* The fields of a maps line into m; NULL, or what is wrong. */
static const char *parse(const char *line, struct zt_map *m)
{
	const char *s = line, *f, *e, *dash;
	size_t len;

	memset(m, 0, sizeof *m);
	if (!(f = field(&s, &e)))
		return "empty maps line";
	dash = memchr(f, '-', (size_t)(e - f));
	/* Each field is hex digits and nothing else, at most 16 of them. */
	if (!dash || zt_hex(f, dash, &m->start) != dash || zt_hex(dash + 1, e, &m->end) != e)
		return "bad address range in maps line";
	if (m->end <= m->start)
		return "empty or reversed address range in maps line";
	if (!(f = field(&s, &e)) || e - f != 4)
		return "bad permissions in maps line";
	memcpy(m->perms, f, 4);
	if (!(f = field(&s, &e)) || zt_hex(f, e, &m->offset) != e)
		return "bad offset in maps line";
	if (!(f = field(&s, &e)))
		return "missing device in maps line";
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

int zt_maps_parse(const char *line, struct zt_map *m, char *err, size_t errlen)
{
	const char *why = parse(line, m);

	if (why) {
		zt_errf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}

int zt_maps_is_file(const struct zt_map *m)
{
	return m->path && m->path[0] == '/';
}

static int map_holds(const void *p, uint64_t addr)
{
	const struct zt_map *m = p;

	return addr >= m->start && addr < m->end;
}

#define MAP_RANGES(maps, n) ZT_RANGES(maps, n, struct zt_map, start, up, map_holds)

const struct zt_map *zt_maps_find(const struct zt_map *maps, size_t n,
				  uint64_t addr)
{
	size_t i = zt_ranges_holder(&MAP_RANGES(maps, n), addr);

	return i ? &maps[i - 1] : NULL;
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
	if (n == 0)
		return;	/* maps may be NULL, which qsort must not see */
	qsort(maps, n, sizeof *maps, cmp_map);
	/* Overlaps (a library unloaded, another mapped there): the links. */
	zt_ranges_link(&MAP_RANGES(maps, n));
}

const char *zt_maps_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
