/*
 * labels.h — where a dump was taken and what its run was called: the host
 * name and zt-collect's --label KEY=VALUE pairs, written as header keys of
 * every dump (formats/raw.md: "host", "label"). Beside vdso, below dump,
 * which calls zt_labels_put when it writes a dump's header. The module
 * owns its state: nothing else reads it.
 *
 * They come from zt-collect, never from what the program can write: the
 * lines are in a sealed memfd (lib/launch.h ZT_ENV_LABELS_FD) that no one
 * can change once zt-collect made it, passed down the tree as zt-collect's
 * other descriptors are, so a program that rewrites its environment (or
 * its host name, in a namespace of its own) before it forks or execs does
 * not change its descendants' dumps.
 */
#ifndef ZT_LABELS_H
#define ZT_LABELS_H

#include "state.h"

/*
 * Read the host and label lines from zt-collect's descriptor, once, in the
 * constructor. Taken only if it is still the one zt-collect passed (its
 * inode), sealed, and every line keeps the label rules (rawfmt.h): a dump
 * never holds a line a reader refuses. Otherwise the dumps have neither,
 * and say so on the status pipe (ZT_STATUS_LABELS_LOST).
 */
ZT_HIDDEN void zt_labels_init(void);

/*
 * Write the "host" line and a "label" line per pair to fd (write(2) only);
 * when there were none to take, the status line that says so.
 */
ZT_HIDDEN void zt_labels_put(int fd);

#endif
