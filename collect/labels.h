/*
 * labels.h — where a dump was taken and what its run was called: the host
 * name and zt-collect's --label KEY=VALUE pairs, written as header keys of
 * every dump (formats/raw.md: "host", "label"). Beside vdso, below dump,
 * which calls zt_labels_put when it writes a dump's header. The module
 * owns its state: nothing else reads it.
 */
#ifndef ZT_LABELS_H
#define ZT_LABELS_H

#include "state.h"

/*
 * Read the host name and ZT_ENV_LABELS (lib/launch.h), once, in the constructor (the program
 * may change its environment later). A pair that breaks the label rules
 * (rawfmt.h) is left out: a dump never holds a line a reader refuses.
 */
ZT_HIDDEN void zt_labels_init(void);

/* Write the "host" line and a "label" line per pair to fd (write(2) only). */
ZT_HIDDEN void zt_labels_put(int fd);

#endif
