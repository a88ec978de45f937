/*
 * snapshot.h — the maps as they were when each sample was taken
 * (snapshot.c; above state and files).
 */
#ifndef ZT_SNAPSHOT_H
#define ZT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

ZT_HIDDEN void zt_snap_init(void);
ZT_HIDDEN void zt_snap_reset(void);
ZT_HIDDEN void zt_snap_lock(void);
ZT_HIDDEN void zt_snap_unlock(void);
ZT_HIDDEN void zt_snap_take(void);
ZT_HIDDEN void zt_snap_if_stale(void);
ZT_HIDDEN int zt_snap_pc_known(uint64_t pc);
ZT_HIDDEN int zt_snap_overlaps_exec(uint64_t addr, size_t len);
ZT_HIDDEN int zt_snap_covered_exec(uint64_t addr, size_t len);
ZT_HIDDEN void zt_snap_finish(int fd);
/*
 * The side file (FILE.tmp.PID.maps) holds the maps sections as they are
 * taken; other whole sections written to zt_snap_side_fd (the build-ids),
 * with the lock held, are copied into the dump with them at the end. zt_snap_side_gen counts the
 * side files made: a new one (the program closed the last) holds nothing
 * written before.
 */
ZT_HIDDEN int zt_snap_side_fd(void);
ZT_HIDDEN unsigned zt_snap_side_gen(void);

#endif
