/*
 * files.h — zt's own descriptors (files.c; bottom of collect/): each kept
 * with the identity of what it opened, checked before every use, closed
 * only through zt_sys_close; and the writes of whole buffers to them.
 * Async-signal-safe (system calls only).
 */
#ifndef ZT_FILES_H
#define ZT_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "state.h"

/* Take fd as zt's: moved high, close-on-exec, identity recorded. */
ZT_HIDDEN int zt_files_own(struct zt_owned *o, int fd);
ZT_HIDDEN int zt_files_ok(const struct zt_owned *o);
ZT_HIDDEN void zt_files_close(struct zt_owned *o);
ZT_HIDDEN int zt_files_open_in_dir(const char *path, int flags, mode_t mode);
ZT_HIDDEN int zt_files_unlink_in_dir(const char *path);
ZT_HIDDEN int zt_files_rename_in_dir(const char *from, const char *to);
ZT_HIDDEN void zt_files_dir_open(const char *path);
ZT_HIDDEN int zt_files_dump_fd(void);
ZT_HIDDEN void zt_files_write_failed(int err);
ZT_HIDDEN void zt_files_status_init(void);
ZT_HIDDEN pid_t zt_files_name_pid(void);
ZT_HIDDEN void zt_files_status_started(void);
ZT_HIDDEN void zt_files_keep_on_exec(int keep);
ZT_HIDDEN int zt_files_fd_is_ours(int fd);
ZT_HIDDEN int zt_files_perf_ok(const struct zt_thread *t);
ZT_HIDDEN int zt_files_fds_ours(int *out, int max);
/*
 * Register fd (on) as zt's, or no longer (off), for a module above that
 * keeps descriptors without a zt_owned record (offcpu.c's /proc files):
 * zt_files_fd_is_ours and zt_files_fds_ours then count it, so the close
 * interposers spare it. The caller still opens and closes it.
 */
ZT_HIDDEN void zt_files_mark(int fd, int on);
ZT_HIDDEN void zt_files_status(const char *what, int err, uint64_t count);
/* The descriptor whose failed writes are the dump's (zt_files_write_failed); -1 for none. */
ZT_HIDDEN void zt_files_watch(int fd);
/* Write all of p; -1 (and, on the watched descriptor, the error remembered) when it could not. */
ZT_HIDDEN int zt_files_write_all(int fd, const char *p, size_t n);
ZT_HIDDEN void zt_files_puts(int fd, const char *s);
/* A text field the program controls, escaped (formats/raw.md, "Text fields"). */
ZT_HIDDEN void zt_files_put_text(int fd, const char *s, size_t n);

#endif
