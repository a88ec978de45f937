/*
 * progress.h — what a long run has done so far, on a terminal.
 *
 * DESIGN.md: any work that can take seconds shows progress on stderr when
 * stderr is a terminal, and never when it is not. A tool turns it on
 * (zt_progress_start with stderr, when isatty says so); the long loops of
 * lib/ report through it: every input read (lib/input.c: "'f': 120 MiB
 * read"), the distinct addresses of a raw dump resolved (lib/symbolize.c).
 * One line, "prog: what", is redrawn in place at most every 250 ms (the
 * environment's ZT_PROGRESS_MS, for tests: 0 redraws at every report), and
 * cleared before a message and at exit. Off, every call returns at once.
 * This is not an error message: lib/ still never prints one.
 */
#ifndef ZT_PROGRESS_H
#define ZT_PROGRESS_H

#include <stdio.h>

/* Show progress on tty (NULL: never); cleared at exit. */
void zt_progress_start(FILE *tty);

/* Whether it is time to redraw: cheap when off, a clock read when on. */
int zt_progress_due(void);

/* Redraw the line with fmt's text after "prog: ", control characters escaped. */
void zt_progress_show(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Clear the line, if one is shown (before a message; the next show redraws it). */
void zt_progress_clear(void);

#endif
