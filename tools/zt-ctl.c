/*
 * zt-ctl — sampling windows of a program running under zt-collect
 * --paused (or --control): turn sampling on or off, or have it write a
 * snapshot of what was sampled since the last one, without stopping it.
 *
 *   zt-ctl PID start|stop|snapshot
 *
 * Prints the process's answer ("sampling on", "wrote 'zt.raw.1' ...");
 * exit 1 when there is no channel, it is another user's, or the process
 * refused.
 */
#include "ctl.h"
#include "usage.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct zt_opt options[] = {
	{ 'h', "help", no_argument, NULL, "print this help" },
	{ 'V', "version", no_argument, NULL, "print the version" },
	{ 0 },
};

static const struct zt_usage usage = {
	"zt-ctl PID start|stop|snapshot",
	"Control the sampling of process PID, run under 'zt-collect --paused' or\n"
	"'--control': start and stop turn sampling on and off; snapshot writes the\n"
	"samples since the last snapshot (or the start) as a whole raw dump\n"
	"FILE.N next to the run's dump FILE. Only the process's own user may.",
	options,
	NULL,
};

static int parse_options(int argc, char **argv, int *status)
{
	int c;

	*status = ZT_EXIT_USAGE;
	while ((c = zt_usage_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'h': zt_usage(&usage, stdout); *status = ZT_EXIT_OK; return -1;
		case 'V': zt_version(); *status = ZT_EXIT_OK; return -1;
		default: zt_usage(&usage, stderr); return -1;
		}
	}
	*status = ZT_EXIT_OK;
	return 0;
}

int main(int argc, char **argv)
{
	char reply[8192], err[ZT_ERR_MAX];
	uint64_t pid;
	int status, rc;

	zt_setprog(argv[0]);
	if (parse_options(argc, argv, &status) < 0)
		return status;
	argc -= optind;
	argv += optind;
	if (argc != 2) {
		zt_warn("%s", argc < 2 ? "a PID and a request are needed" : "too many arguments");
		zt_usage(&usage, stderr);
		return ZT_EXIT_USAGE;
	}
	if (zt_parse_u64(argv[0], 10, &pid) || pid < 1 || pid > 0x3fffffff) {
		zt_warn("'%s' is not a process id", argv[0]);
		zt_usage(&usage, stderr);
		return ZT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "start") && strcmp(argv[1], "stop") && strcmp(argv[1], "snapshot")) {
		zt_warn("'%s' is not start, stop or snapshot", argv[1]);
		zt_usage(&usage, stderr);
		return ZT_EXIT_USAGE;
	}
	rc = zt_ctl_request((pid_t)pid, argv[1], reply, sizeof reply, err, sizeof err);
	if (rc < 0) {
		zt_warn("%s", err);
		return ZT_EXIT_DATA;
	}
	if (rc > 0) {
		zt_warn("pid %d: %s", (int)pid, reply);
		return ZT_EXIT_DATA;
	}
	printf("%s\n", reply);
	return ZT_EXIT_OK;
}
