/*
 * usage.c — getopt_long's tables and --help from one table of options.
 */
#include "usage.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Where the help of an option starts, as in GNU tools' --help. */
enum { HELP_COLUMN = 22 };

static int is_short(const struct zt_opt *o)
{
	return o->val > 0 && o->val < 256;
}

static int getopt_table(int argc, char **argv, const struct zt_usage *u, int ordered)
{
	/* Made once per table: a tool parses one command line. */
	static const struct zt_usage *made;
	static int made_ordered;
	static struct option *longopts;
	static char *shortopts;
	size_t n = 0, k = 0;

	if (made != u || made_ordered != ordered) {
		while (u->opts[n].name)
			n++;
		free(longopts);
		free(shortopts);
		longopts = zt_calloc(n + 1, sizeof *longopts);
		shortopts = zt_malloc(3 * n + 2);
		if (ordered)
			shortopts[k++] = '+';
		for (size_t i = 0; i < n; i++) {
			const struct zt_opt *o = &u->opts[i];

			longopts[i] = (struct option){ o->name, o->has_arg, NULL, o->val };
			if (!is_short(o))
				continue;
			shortopts[k++] = (char)o->val;
			if (o->has_arg != no_argument)
				shortopts[k++] = ':';
			if (o->has_arg == optional_argument)
				shortopts[k++] = ':';
		}
		shortopts[k] = '\0';
		made = u;
		made_ordered = ordered;
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

int zt_usage_getopt(int argc, char **argv, const struct zt_usage *u)
{
	return getopt_table(argc, argv, u, 0);
}

int zt_usage_getopt_ordered(int argc, char **argv, const struct zt_usage *u)
{
	return getopt_table(argc, argv, u, 1);
}

/* Lines of text, each after indent spaces but the first. */
static void indented(FILE *f, const char *s, int indent)
{
	for (; *s; s++) {
		fputc(*s, f);
		if (*s == '\n' && s[1])
			fprintf(f, "%*s", indent, "");
	}
}

void zt_usage(const struct zt_usage *u, FILE *f)
{
	zt_usage_write(u, f, f == stdout);
}

void zt_usage_write(const struct zt_usage *u, FILE *f, int full)
{
	fputs("usage: ", f);
	indented(f, u->synopsis, 0);
	fputc('\n', f);
	if (!full)
		return;
	if (u->about) {
		fputc('\n', f);
		indented(f, u->about, 0);
		fputc('\n', f);
	}
	fputc('\n', f);
	for (const struct zt_opt *o = u->opts; o->name; o++) {
		int col;

		if (is_short(o))
			col = fprintf(f, "  -%c, --%s", o->val, o->name);
		else
			col = fprintf(f, "      --%s", o->name);
		if (o->arg)
			col += fprintf(f, o->has_arg == optional_argument ? "[=%s]" : "=%s", o->arg);
		if (col >= HELP_COLUMN - 1) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", HELP_COLUMN - col, "");
		indented(f, o->help, HELP_COLUMN);
		fputc('\n', f);
	}
	if (u->notes) {
		fputc('\n', f);
		indented(f, u->notes, 0);
		fputc('\n', f);
	}
}

int zt_usage_rows(const char *opt, const char *s, long *rows, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 0 || *s == '+' || *s == ' ') {
		zt_errf(err, errlen, "%s wants a number of rows, not '%s'", opt, s);
		return -1;
	}
	*rows = v;
	return 0;
}

int zt_usage_end(const struct zt_usage *u, int c, const char *err, int *status)
{
	if (c == 'h' || c == 'V') {
		if (c == 'h')
			zt_usage(u, stdout);
		else
			zt_version();
		*status = ZT_EXIT_OK;
		return -1;
	}
	if (err && err[0])
		zt_warn("%s", err);
	zt_usage(u, stderr);
	*status = ZT_EXIT_USAGE;
	return -1;
}

int zt_usage_error(const struct zt_usage *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zt_vwarn(fmt, ap);
	va_end(ap);
	zt_usage(u, stderr);
	return -1;
}

const char *zt_usage_stdin_once(char *const *operands, int n)
{
	int seen = 0;

	for (int i = 0; i < n; i++)
		if (strcmp(operands[i], "-") == 0 && seen++)
			return "stdin can be read only once";
	return NULL;
}

char **zt_usage_inputs(char **operands, int *n)
{
	static char *stdin_only[] = { (char *)"-", NULL };

	if (*n > 0)
		return operands;
	zt_stdin_note();
	*n = 1;
	return stdin_only;
}
