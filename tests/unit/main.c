/*
 * main.c — runs every UNIT_TEST linked into tests/unit/run and prints the
 * closing line CI reads: "unit: N passed, N failed".
 */
#include "unit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct unit { const char *name; unit_fn fn; };

static struct unit units[512];
static int nunits;
static int failures_now;

void unit_register(const char *name, unit_fn fn)
{
	if (nunits < (int)(sizeof units / sizeof units[0]))
		units[nunits++] = (struct unit){ name, fn };
}

void unit_fail(const char *file, int line, const char *expr)
{
	fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, expr);
	failures_now++;
}

static char dir[64];

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

const char *unit_dir(void)
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/zt-unit-XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return NULL;
		}
		atexit(remove_dir);
	}
	return dir;
}

int unit_make(const char *name, const char *text, const char *cmd)
{
	char path[256], line[1024];
	FILE *f;

	if (!unit_dir())
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	snprintf(line, sizeof line, "cd '%s' && %s", dir, cmd);
	return system(line) == 0 ? 0 : -1;
}

void unit_stderr(void (*fn)(void *), void *arg, char *buf, size_t cap)
{
	char path[256];
	int fd, saved;
	ssize_t n = -1;

	buf[0] = '\0';
	if (!unit_dir())
		return;
	snprintf(path, sizeof path, "%s/stderr", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0) {
		fn(arg);
	} else {
		fn(arg);
		fflush(stderr);
		dup2(saved, 2);
		n = pread(fd, buf, cap - 1, 0);
	}
	if (saved >= 0)
		close(saved);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	/* One line per unit as it ends, also through make check's pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < nunits; i++) {
		if (argc > 1 && !strstr(units[i].name, argv[1]))
			continue;
		failures_now = 0;
		units[i].fn();
		if (failures_now) {
			printf("FAIL %s\n", units[i].name);
			failed++;
		} else {
			printf("ok   %s\n", units[i].name);
			passed++;
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
