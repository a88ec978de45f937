/*
 * symargs.h — the command line of the tools that symbolize a raw dump
 * (zt-symbolize and every analysis tool, lib/stage.c): the symbolizer's
 * options (where to find files, source lines, demangling) as rows for
 * their option tables (usage.h), and one function that takes them, so the
 * tools cannot drift apart.
 */
#ifndef ZT_SYMARGS_H
#define ZT_SYMARGS_H

#include <getopt.h>

#include "symbolize.h"
#include "usage.h"

/* The long-only options; a tool's own start at ZT_SYMARGS_NEXT. */
enum { ZT_SYMARGS_NO_DEMANGLE = 256, ZT_SYMARGS_SYSROOT, ZT_SYMARGS_NO_DEBUGINFOD,
       ZT_SYMARGS_EVENT, ZT_SYMARGS_NEXT };

/* The rows, for a tool's table of struct zt_opt. */
#define ZT_SYMARGS_ROWS \
	{ 'd', "debug-dir", required_argument, "DIR", \
	  "look for binaries and debug files by build-id in\n" \
	  "DIR/.build-id/ (repeatable; before /usr/lib/debug)" }, \
	{ 'l', "lines", no_argument, NULL, "source lines and inlined frames, from DWARF" }, \
	{ ZT_SYMARGS_NO_DEMANGLE, "no-demangle", no_argument, NULL, \
	  "keep C++ and Rust names as they are mangled" }, \
	{ ZT_SYMARGS_SYSROOT, "sysroot", required_argument, "DIR", \
	  "look for the dump's files under DIR" }, \
	{ ZT_SYMARGS_NO_DEBUGINFOD, "no-debuginfod", no_argument, NULL, \
	  "never fetch files from the servers of DEBUGINFOD_URLS" }

struct zt_symargs {
	struct zt_symopts opts;	/* for zt_symbolizer_new */
	const char **dirs;	/* the --debug-dir values; opts.debug_dirs */
};

/*
 * Ready a for a command line of argc words: with DEBUGINFOD_URLS set,
 * opts.debuginfod is a session that every symbolizer made with opts shares
 * (each build-id is asked once in the process), until --no-debuginfod.
 * Free it with zt_symargs_free.
 */
void zt_symargs_init(struct zt_symargs *a, int argc);

/*
 * Take option c, with its argument arg, when it is one of ZT_SYMARGS_ROWS
 * or the analysis tools' --event (event.h's ZT_EVENT_ROW, into opts.view).
 * Returns 1 when taken, 0 when c is not one of them, -1 with the message
 * in err when a directory cannot be read (zt_dir_check) or --event names
 * no view: bad usage.
 */
int zt_symargs_take(struct zt_symargs *a, int c, const char *arg, char *err, size_t errlen);

/*
 * zt_usage_getopt for a tool whose table holds ZT_SYMARGS_ROWS: takes those
 * options into a and returns the tool's own, -1 after the last. A
 * directory that cannot be read returns '?' with the message in err;
 * getopt's own '?' (it has said why) leaves err empty.
 */
int zt_symargs_getopt(int argc, char **argv, const struct zt_usage *u,
		      struct zt_symargs *a, char *err, size_t errlen);

void zt_symargs_free(struct zt_symargs *a);

#endif
