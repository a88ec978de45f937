/*
 * dump.h — the dump file: its header, its end, the build-ids (dump.c;
 * above store, snapshot and perfmap, which write into it).
 */
#ifndef ZT_DUMP_H
#define ZT_DUMP_H

#include "state.h"

ZT_HIDDEN int zt_dump_open(void);
ZT_HIDDEN void zt_dump_finish(void);
ZT_HIDDEN void zt_dump_abandon(void);
ZT_HIDDEN void zt_dump_buildids_scan(void);
/*
 * Snapshots (control.c): with sampling held and every buffer flushed,
 * finish the dump in progress and publish it as path (0, or an errno);
 * then zt_dump_reopen starts the next one on the same time origin.
 */
ZT_HIDDEN int zt_dump_snapshot(const char *path);
ZT_HIDDEN int zt_dump_reopen(void);

/*
 * A part of every dump's summary that a module above writes (offcpu.c's,
 * in a wall profile): own_cpu_ns, the CPU time of a thread of zt's own that
 * the program's unsampled time leaves out; put_summary, its keys, written
 * to fd after the dump's own. Both async-signal-safe (a fatal signal ends
 * the dump). Registered once, before the first dump opens; the caller keeps
 * *part alive.
 */
struct zt_dump_part {
	uint64_t (*own_cpu_ns)(void);
	void (*put_summary)(int fd);
};
ZT_HIDDEN void zt_dump_register(const struct zt_dump_part *part);

#endif
