/*
 * progress.c — the one progress line of a tool on a terminal (progress.h).
 */
#include "progress.h"
#include "escape.h"
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static FILE *tty;
static int shown;
static int64_t every_ms = 250, next_ms;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void at_exit(void)
{
	zt_progress_clear();
	tty = NULL;
}

void zt_progress_start(FILE *f)
{
	const char *ms = getenv("ZT_PROGRESS_MS");
	uint64_t v;
	static int registered;

	tty = f;
	if (!f)
		return;
	zt_before_message(zt_progress_clear);
	if (ms && zt_parse_u64(ms, 10, &v) == 0 && v <= 60000)
		every_ms = (int64_t)v;
	/* A run shorter than one interval shows nothing. */
	next_ms = now_ms() + every_ms;
	if (!registered++)
		atexit(at_exit);
}

int zt_progress_due(void)
{
	int64_t now;

	if (!tty)
		return 0;
	if (every_ms == 0)
		return 1;
	now = now_ms();
	if (now < next_ms)
		return 0;
	next_ms = now + every_ms;
	return 1;
}

void zt_progress_show(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!tty)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(tty, "\r%s: ", zt_prog);
	zt_escape_fput_safe(tty, line);
	fputs("\033[K", tty);
	fflush(tty);
	shown = 1;
}

void zt_progress_clear(void)
{
	if (tty && shown) {
		fputs("\r\033[K", tty);
		fflush(tty);
	}
	shown = 0;
}
