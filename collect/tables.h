/*
 * tables.h — the unwind tables of every loaded object, published to the
 * handler (tables.c; above cfi.h).
 */
#ifndef ZT_TABLES_H
#define ZT_TABLES_H

#include "cfi.h"
#include "state.h"

ZT_HIDDEN void zt_tables_update(void);
ZT_HIDDEN const struct zt_cfi_set *zt_tables_enter(void);
ZT_HIDDEN void zt_tables_leave(void);
/*
 * Around a dlclose, whose object's code may be unmapped while a handler
 * reads it: after zt_tables_closing returns, no handler reads code
 * (zt_tables_code_readable is 0 for the ones that start) until
 * zt_tables_closed. Not for signal handlers, except zt_tables_code_readable.
 */
ZT_HIDDEN void zt_tables_closing(void);
ZT_HIDDEN void zt_tables_closed(void);
ZT_HIDDEN int zt_tables_code_readable(void);

#endif
