/*
 * escape.c — the \ooo escaping of program-controlled text (escape.h).
 */
#include "escape.h"

#include <stdint.h>
#include <string.h>

static int octal(char c)
{
	return c >= '0' && c <= '7';
}

void zt_escape_decode(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && octal(s[1]) && octal(s[2]) && octal(s[3]) && s[1] <= '3') {
			int v = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');

			if (v != 0) {
				*out++ = (char)v;
				s += 4;
				continue;
			}
		}
		*out++ = *s++;
	}
	*out = '\0';
}

void zt_escape_fput_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\%03o", c);
		else
			putc(c, f);
	}
}

void zt_escape_fput(FILE *f, const char *s, const char *extra)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\' || (extra && strchr(extra, c)))
			fprintf(f, "\\%03o", c);
		else
			putc(c, f);
	}
}

void zt_escape_out(struct zt_out *o, const char *s, const char *extra)
{
	/* Bit c of esc: byte c is written \ooo. Control characters (0x00 to
	   0x1f), backslash (0x5c) and DEL (0x7f) always, extra's for this call. */
	uint64_t esc[4] = { 0xffffffffu, (uint64_t)1 << ('\\' - 64) | (uint64_t)1 << (0x7f - 64),
			    0, 0 };
	const char *run = s;

	for (const char *x = extra; x && *x; x++) {
		unsigned char c = (unsigned char)*x;

		esc[c >> 6] |= (uint64_t)1 << (c & 63);
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (esc[c >> 6] >> (c & 63) & 1) {
			zt_out_write(o, run, (size_t)(s - run));
			zt_out_byte(o, '\\');
			zt_out_byte(o, (char)('0' + (c >> 6)));
			zt_out_byte(o, (char)('0' + (c >> 3 & 7)));
			zt_out_byte(o, (char)('0' + (c & 7)));
			run = s + 1;
		}
	}
	zt_out_write(o, run, (size_t)(s - run));
}
