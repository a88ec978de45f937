/*
 * zt-ctl — sampling windows of a program running under zt-collect
 * --paused (or --control): turn sampling on or off, or have it write a
 * snapshot of what was sampled since the last one, without stopping it.
 *
 *   zt-ctl PID start|stop|snapshot
 *
 * PID may be zt-collect's own (a shell's $!): the request then goes to the
 * program it runs and, with -f, to each descendant that has a channel, as
 * kill %1 reaches the whole job (lib/ctl.c finds them).
 *
 * Prints the process's answer ("sampling on", "wrote 'zt.raw.1' ..."),
 * each after "pid N: " when several processes answered; exit 1 when there
 * is no channel, it is another user's, or a process refused.
 */
#include "ctl.h"
#include "usage.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct zt_opt options[] = {
	ZT_USAGE_ROWS,
};

static const struct zt_usage usage = {
	"zt-ctl PID start|stop|snapshot",
	"Control the sampling of process PID, run under 'zt-collect --paused' or\n"
	"'--control': start and stop turn sampling on and off; snapshot writes the\n"
	"samples since the last snapshot (or the start) as a whole raw dump\n"
	"FILE.N next to the run's dump FILE. Only the process's own user may.\n"
	"PID may be zt-collect's: then its program and, with -f, every descendant\n"
	"that has a channel.",
	options,
	NULL,
};

static int parse_options(int argc, char **argv, int *status)
{
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		default: return zt_usage_end(&usage, c, NULL, status);
		}
	}
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	char reply[8192], err[ZT_ERR_MAX];
	struct zt_ctl_target *targets;
	uint64_t pid;
	int status, rc, n;

	zt_setprog(argv[0]);
	if (parse_options(argc, argv, &status) < 0)
		return status;
	argc -= optind;
	argv += optind;
	if (argc != 2) {
		zt_usage_error(&usage, "%s", argc < 2 ? "a PID and a request are needed"
							 : "too many arguments");
		return ZT_EXIT_USAGE;
	}
	if (zt_parse_u64(argv[0], 10, &pid) || pid < 1 || pid > 0x3fffffff) {
		zt_usage_error(&usage, "'%s' is not a process id", argv[0]);
		return ZT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "start") && strcmp(argv[1], "stop") && strcmp(argv[1], "snapshot")) {
		zt_usage_error(&usage, "'%s' is not start, stop or snapshot", argv[1]);
		return ZT_EXIT_USAGE;
	}
	n = zt_ctl_targets((pid_t)pid, &targets, err, sizeof err);
	if (n < 0) {
		zt_warn("%s", err);
		return ZT_EXIT_DATA;
	}
	for (int i = 0; i < n; i++) {
		rc = zt_ctl_request(&targets[i], argv[1], reply, sizeof reply, err, sizeof err);
		/* A descendant that ended since it was found: not asked, no failure. */
		if (rc < 0 && i > 0 && !zt_ctl_serves(targets[i].pid))
			continue;
		if (rc < 0) {
			zt_warn("%s", err);
			status = ZT_EXIT_DATA;
		} else if (rc > 0) {
			zt_warn("%s: %s", targets[i].who, reply);
			status = ZT_EXIT_DATA;
		} else if (n > 1) {
			printf("pid %d: %s\n", (int)targets[i].pid, reply);
		} else {
			printf("%s\n", reply);
		}
	}
	free(targets);
	return status;
}
