/*
 * json.h — the little JSON writing the reports need (zt-stat --json,
 * zt-diff --report --json).
 */
#ifndef ZT_JSON_H
#define ZT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write s (n bytes) as a JSON string, quoted and escaped. Bytes >= 0x80
   are written as they are (frame names are UTF-8 or ASCII in practice). */
void zt_json_string(FILE *f, const char *s, size_t n);

/* Write a finite number with up to 6 significant digits, or null. */
void zt_json_number(FILE *f, double v);

#endif
