/*
 * fmt.c — numbers written as text without stdio (fmt.h).
 */
#include "fmt.h"

static const char hexdigits[] = "0123456789abcdef";

char *zt_fmt_u64(char *p, uint64_t v, int base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = hexdigits[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}
