/*
 * main.c — runs every UNIT_TEST linked into tests/unit/run and prints the
 * closing line CI reads: "unit: N passed, N failed".
 */
#include "unit.h"

#include <stdlib.h>

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

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

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
