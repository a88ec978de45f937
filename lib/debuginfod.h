/*
 * debuginfod.h — a binary's files fetched by build-id from the servers that
 * DEBUGINFOD_URLS names, through libdebuginfod (elfutils' client, as gdb
 * and perf use it): the last place the symbolizer looks, after --debug-dir,
 * /usr/lib/debug and an archive (lib/symbolize.c).
 *
 * libdebuginfod keeps what it fetched in its cache (DEBUGINFOD_CACHE_PATH,
 * else ~/.cache/debuginfod_client) and gives up on a server after
 * DEBUGINFOD_TIMEOUT seconds without progress. zt asks each build-id at
 * most once per session, makes one attempt a question unless
 * DEBUGINFOD_RETRY_LIMIT says otherwise, and asks nothing more once the
 * servers have failed (a time-out, a refused connection: anything but
 * "not found"), so a dead server costs one time-out.
 */
#ifndef ZT_DEBUGINFOD_H
#define ZT_DEBUGINFOD_H

#include "elfread.h"

struct zt_debuginfod;

enum zt_debuginfod_kind {
	ZT_DEBUGINFOD_EXECUTABLE,	/* the file that ran */
	ZT_DEBUGINFOD_DEBUGINFO,	/* its separate debug file */
};

/*
 * A session over the servers of DEBUGINFOD_URLS, or NULL when it is unset
 * or empty: then nothing is ever fetched. Nothing is asked before the first
 * zt_debuginfod_open. The caller frees it with zt_debuginfod_free.
 */
struct zt_debuginfod *zt_debuginfod_new(void);
void zt_debuginfod_free(struct zt_debuginfod *df);

/*
 * Open the file of kind for buildid (lowercase hex), from the cache or a
 * server, into out; name is the binary's path, for the report and the
 * progress line. A file whose build-id is not buildid is not used (the
 * report names where it came from). A question asked before in this
 * session gets the same answer, without asking again. Returns 0 with out
 * open (the caller closes it), or -1 (out closed).
 */
int zt_debuginfod_open(struct zt_debuginfod *df, const char *buildid,
		       enum zt_debuginfod_kind kind, const char *name, struct zt_elf *out);

/*
 * Say that the file zt_debuginfod_open gave for buildid and kind cannot be
 * used after all (why: a debug file asked as the executable, another
 * architecture): the report names it as ignored, with why, and the same
 * question gets no file again.
 */
void zt_debuginfod_refuse(struct zt_debuginfod *df, const char *buildid,
			  enum zt_debuginfod_kind kind, const char *why);

/*
 * One line, without the program's name, on what was asked since the last
 * call: the files fetched and where from (a server, or the cache), the
 * build-ids not found, the answers ignored, the servers' failure. NULL when
 * nothing was asked. The caller frees it.
 */
char *zt_debuginfod_report(struct zt_debuginfod *df);

#endif
