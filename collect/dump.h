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
 * A part of every dump that a module above writes (offcpu.c's in a wall
 * profile, alloc.c's with --alloc): version, the dump version it needs at
 * least (0: any); put_header, its header keys, after the dump's own;
 * put_samples, lines of its own at the end of the samples section (before
 * the final maps); own_cpu_ns, the CPU time of a thread of zt's own that
 * the program's unsampled time leaves out; put_summary, its keys, written
 * to fd after the dump's own. Any of them may be NULL. Those called at
 * the end are async-signal-safe (a fatal signal ends the dump). Registered
 * before the first dump opens, at most ZT_DUMP_PARTS; the caller keeps
 * *part alive.
 */
struct zt_dump_part {
	int version;
	void (*put_header)(int fd);
	void (*put_samples)(int fd);
	uint64_t (*own_cpu_ns)(void);
	void (*put_summary)(int fd);
};
enum { ZT_DUMP_PARTS = 8 };
ZT_HIDDEN void zt_dump_register(const struct zt_dump_part *part);
/* "KEY VALUE\n", a decimal value, at fd: a header or summary key of a part. */
ZT_HIDDEN void zt_dump_put_key(int fd, const char *key, uint64_t v);
/* [*lo, *hi): libzt-prof.so's own loaded extent; 0 when it cannot be found. */
ZT_HIDDEN int zt_dump_own_code(uintptr_t *lo, uintptr_t *hi);

#endif
