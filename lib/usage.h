/*
 * usage.h — one table per tool for its options: getopt_long's tables and
 * the --help text are both made from it, so an option cannot be parsed
 * without being documented. Every tool has the same shape: main calls
 * parse_options, which ends the run early for --help, --version and bad
 * usage,
 *
 *	*status = ZT_EXIT_USAGE;
 *	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1)
 *		switch (c) {
 *		...
 *		default: return zt_usage_end(&usage, c, NULL, status);
 *		}
 *
 * (--help and --version are taken there), then reads its inputs
 * (zt_usage_inputs) and writes its output (tools/zt-archive.c is the
 * shortest). Exit statuses everywhere: 0 done, 1 the input or the system
 * failed, 2 the command line was wrong (util.h).
 */
#ifndef ZT_USAGE_H
#define ZT_USAGE_H

#include <stdio.h>

struct zt_opt {
	int val;		/* the short letter, or >= 256 for a long-only option */
	const char *name;	/* the long name, without "--" */
	int has_arg;		/* getopt.h's no_argument, required_argument, ... */
	const char *arg;	/* the argument's name in --help ("N"), or NULL */
	const char *help;	/* what it does; each '\n' starts an indented line */
};

struct zt_usage {
	const char *synopsis;	/* after "usage: "; each '\n' starts a line */
	const char *about;	/* printed with --help before the options, or NULL */
	const struct zt_opt *opts;	/* ends with an entry whose name is NULL */
	const char *notes;	/* printed with --help after the options, or NULL */
};

/* The last rows of every tool's table: --help, --version, and its end. */
#define ZT_USAGE_ROWS \
	{ 'h', "help", no_argument, NULL, "print this help" }, \
	{ 'V', "version", no_argument, NULL, "print the version" }, \
	{ 0 }

/*
 * getopt_long over the table: the option's val (optarg set as getopt
 * does), '?' for an unknown option or a missing argument (getopt has said
 * which), -1 after the last option.
 */
int zt_usage_getopt(int argc, char **argv, const struct zt_usage *u);

/*
 * The same, but options end at the first operand, as POSIX getopt: for a
 * launcher (zt-collect) whose operands are a command line with options of
 * its own. zt_usage_getopt, like GNU getopt, takes options anywhere ("zt-stat
 * f.folded -n 5"), as the tools always have.
 */
int zt_usage_getopt_ordered(int argc, char **argv, const struct zt_usage *u);

/*
 * The usage lines; on stdout (--help) also the about text, every option
 * of the table and the notes.
 */
void zt_usage(const struct zt_usage *u, FILE *f);

/* The same on any stream: the whole help when full (for the unit tests). */
void zt_usage_write(const struct zt_usage *u, FILE *f, int full);

/*
 * A row count given to option opt ("-n", "--top"): a whole decimal number,
 * 0 meaning every row. Returns 0, or -1 with the message in err
 * ("-n wants a number of rows, not 'many'").
 */
int zt_usage_rows(const char *opt, const char *s, long *rows, char *err, size_t errlen);

/*
 * The end of parse_options's switch, for every c the tool does not take
 * itself: --help ('h') prints the help on stdout and --version ('V') the
 * version, with *status ZT_EXIT_OK; anything else is bad usage, said by
 * err when it holds a message (NULL or "": getopt has said it), then the
 * usage on stderr, with *status ZT_EXIT_USAGE. Returns -1: main is to end.
 */
int zt_usage_end(const struct zt_usage *u, int c, const char *err, int *status);

/*
 * Bad usage a tool found: its message (zt_warn's), then the usage on
 * stderr. Returns -1, as parse_options does then.
 */
int zt_usage_error(const struct zt_usage *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The n operands as a tool's inputs: "stdin can be read only once" when
 * two are "-", else NULL.
 */
const char *zt_usage_stdin_once(char *const *operands, int n);

/*
 * The inputs the *n operands name: the operands themselves, or with none
 * "-" (standard input) alone, after zt_stdin_note, and *n becomes 1.
 */
char **zt_usage_inputs(char **operands, int *n);

#endif
