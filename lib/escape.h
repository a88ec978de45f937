/*
 * escape.h — the \ooo escaping of text the profiled program controls
 * (formats/raw.md, "Text fields"): paths, thread names.
 *
 * The collector writes a control character or a backslash in such a field as
 * a backslash and three octal digits, as the kernel writes a newline in
 * /proc/self/maps; so no name can end a line of a dump or start a section.
 * zt-symbolize writes what it prints the same way, so that no name can
 * forge a record, split a folded stack or reach a terminal raw.
 */
#ifndef ZT_ESCAPE_H
#define ZT_ESCAPE_H

#include <stdio.h>

#include "out.h"

/*
 * Decode each \ooo (000 excepted: a C string cannot hold it) in s, in place.
 * Any other backslash is left as it is.
 */
void zt_escape_decode(char *s);

/*
 * Write s to f with every control character, DEL, backslash and character
 * of extra (may be NULL) as \ooo.
 */
void zt_escape_fput(FILE *f, const char *s, const char *extra);

/*
 * The same into o, the runs between escaped bytes copied whole: for text
 * written once and kept (zt-symbolize's frames).
 */
void zt_escape_out(struct zt_out *o, const char *s, const char *extra);

/*
 * Write s to f with its control characters and DEL as \ooo, backslashes as
 * they are: for messages, where only what a terminal acts on matters.
 */
void zt_escape_fput_safe(FILE *f, const char *s);

#endif
