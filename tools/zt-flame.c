/*
 * zt-flame — folded stacks to one self-contained, interactive SVG flame
 * graph.
 *
 *   zt-fold run.sym | zt-flame > run.svg
 *   zt-diff before.folded after.folded | zt-flame > diff.svg
 *
 * It reads folded stacks (formats/folded.md) or zt-diff's differential
 * layout (formats/diff.md; the first line decides which) from files or
 * stdin, with lib/folded.c's reader and its errors, and draws them with
 * lib/flame.c: the same frames at the same places as flamegraph.pl. Nothing
 * is written until every input has been read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "folded.h"
#include "input.h"
#include "util.h"

/*
 * What a run holds, in file scope so that it stays reachable when an error
 * exits the program (LeakSanitizer would call locals leaked).
 */
static struct zt_flame *flame;
static struct zt_input *in;

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: zt-flame [-i] [-t title] [-w width] [-m minwidth[%%]] [--negate]\n"
		   "                [file ...]\n");
	exit(status);
}

/* "zt-flame: 'file': line 12: problem", or "zt-flame: line 12: ..." for stdin. */
static void die_at(unsigned long line, const char *msg)
{
	const char *name = zt_input_name(in);

	if (line == 0)
		zt_die(ZT_EXIT_DATA, "%s: %s", name, msg);
	if (strcmp(name, "<stdin>") == 0)
		zt_die(ZT_EXIT_DATA, "line %lu: %s", line, msg);
	zt_die(ZT_EXIT_DATA, "%s: line %lu: %s", name, line, msg);
}

/* Add every stack of one input; a line with two counts is differential. */
static void read_input(const char *path)
{
	struct zt_folded_item it;
	uint64_t stacks = 0, before;
	size_t len, stacklen;
	const char *err;

	in = zt_input_open(path);
	for (;;) {
		zt_folded_next(in, &it, &stacks);
		if (it.kind == ZT_FOLDED_ERROR)
			die_at(it.lineno, it.error);
		if (it.kind == ZT_FOLDED_EOF)
			break;
		if (it.kind != ZT_FOLDED_STACK)
			continue;
		len = it.stacklen + 1 + strlen(it.stack + it.stacklen + 1);
		/* A differential line's stack ends in its first count. */
		err = "missing count";
		if (it.stack[it.stacklen - 1] >= '0' && it.stack[it.stacklen - 1] <= '9')
			err = zt_folded_parse(it.stack, it.stacklen, &stacklen, &before);
		if (err && zt_flame_differential(flame) && strcmp(err, "missing count") != 0)
			die_at(it.lineno, err);
		if (err)
			err = zt_flame_add(flame, it.stack, len, it.stacklen, 0, 0, it.count);
		else
			err = zt_flame_add(flame, it.stack, len, stacklen, 1, before, it.count);
		if (err)
			die_at(it.lineno, err);
	}
	zt_input_close(in);
	in = NULL;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "icicle", no_argument, NULL, 'i' },
		{ "inverted", no_argument, NULL, 'i' },
		{ "minwidth", required_argument, NULL, 'm' },
		{ "negate", no_argument, NULL, 'N' },
		{ "title", required_argument, NULL, 't' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct zt_flame_opts o;
	static char obuf[1 << 16];
	const char *err;
	uint64_t v;
	char *end;
	int c;

	zt_setprog(argv[0]);
	zt_flame_defaults(&o);
	while ((c = getopt_long(argc, argv, "him:t:w:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.icicle = 1; break;
		case 'm':
			o.minwidth = strtod(optarg, &end);
			o.minwidth_pct = *end == '%';
			if (end == optarg || *(end + o.minwidth_pct) != '\0' || !(o.minwidth >= 0) ||
			    (o.minwidth_pct && o.minwidth > 100)) {
				zt_warn("--minwidth wants pixels or a percentage, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			break;
		case 'N': o.negate = 1; break;
		case 't': o.title = optarg; break;
		case 'w':
			if (zt_parse_u64(optarg, 10, &v) != 0 || v < 100 || v > 1000000) {
				zt_warn("--width wants pixels from 100 to 1000000, not '%s'", optarg);
				usage(stderr, ZT_EXIT_USAGE);
			}
			o.width = (unsigned)v;
			break;
		case 'h': usage(stdout, ZT_EXIT_OK); break;
		case 'V': zt_version(); return ZT_EXIT_OK;
		default: usage(stderr, ZT_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			for (int j = i + 1; j < argc; j++)
				if (strcmp(argv[j], "-") == 0) {
					zt_warn("stdin can be read only once");
					usage(stderr, ZT_EXIT_USAGE);
				}

	flame = zt_flame_new();
	if (argc == 0)
		read_input(NULL);
	for (int i = 0; i < argc; i++)
		read_input(argv[i]);

	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	err = zt_flame_write(flame, &o, stdout);
	if (err)
		zt_die(ZT_EXIT_DATA, "%s", err);
	zt_flame_free(flame);
	zt_fshut(stdout, "<stdout>");
	return ZT_EXIT_OK;
}
