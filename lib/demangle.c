/*
 * demangle.c — the one place that calls libiberty's demangler. Only names
 * that look mangled are tried (_Z for C++ and legacy Rust, _R for Rust v0),
 * so a C name is never rewritten by one of the older schemes that
 * DMGL_AUTO also knows.
 */
#include "demangle.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

char *zt_demangle(const char *name)
{
	const char *at;
	char *base, *out, *res;
	size_t n;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	at = strchr(name, '@');
	n = at ? (size_t)(at - name) : strlen(name);
	base = zt_strndup(name, n);
	out = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	free(base);
	if (!out || !at)
		return out;
	res = zt_malloc(strlen(out) + strlen(at) + 1);
	strcpy(res, out);
	strcat(res, at);
	free(out);
	return res;
}
