/*
 * maps.h — lines of /proc/PID/maps, as the raw dump carries them, and the
 * step from a process address to a file offset.
 */
#ifndef ZT_MAPS_H
#define ZT_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct zt_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	uint64_t inode;
	char perms[5];
	char *path;		/* as in the maps, "" for anonymous memory */
	int deleted;		/* the path ended in " (deleted)", now removed */
	char *buildid;		/* hex, from the dump's buildids, or NULL */
	size_t seq;		/* order in the dump, to keep sorting stable */
	uint32_t snap;		/* the maps section (snapshot) it was read in */
	uint32_t up;		/* an enclosing mapping's link (ranges.h) */
};

/*
 * Parse one maps line into m (m->path is allocated, and the caller frees
 * it). Returns 0, or -1 with err set to what is wrong ("bad offset in maps
 * line"); the caller adds the place.
 */
int zt_maps_parse(const char *line, struct zt_map *m, char *err, size_t errlen);

/* Whether the mapping is backed by a file (its path starts with '/'). */
int zt_maps_is_file(const struct zt_map *m);

/*
 * The mapping that holds addr in maps[0..n), which zt_maps_sort must have
 * sorted (and linked); when mappings overlap, the last one in that order
 * that holds addr, the one mapped later. NULL if none.
 */
const struct zt_map *zt_maps_find(const struct zt_map *maps, size_t n,
				  uint64_t addr);

/*
 * Sort maps by start, then by seq, so later duplicates stay later, and link
 * each to the mapping that encloses its start, for zt_maps_find.
 */
void zt_maps_sort(struct zt_map *maps, size_t n);

const char *zt_maps_basename(const char *path);

#endif
