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
 *		case 'h': zt_usage(&usage, stdout); *status = ZT_EXIT_OK; return -1;
 *		case 'V': zt_version(); *status = ZT_EXIT_OK; return -1;
 *		default: zt_usage(&usage, stderr); return -1;
 *		}
 *
 * then reads its inputs and writes its output (tools/zt-archive.c is the
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

#endif
