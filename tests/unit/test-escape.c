/*
 * test-escape.c — the \ooo escaping of program-controlled text: what the
 * collector writes decodes back, and what zt-symbolize prints holds no
 * control character.
 */
#include "unit.h"
#include "escape.h"

#include <stdlib.h>

UNIT_TEST(unescape_decodes_octal_and_keeps_the_rest)
{
	char s[] = "a\\012b\\134c\\000d\\9x\\1\\0412";

	zt_escape_decode(s);
	CHECK_STR(s, "a\nb\\c\\000d\\9x\\1!2");
}

UNIT_TEST(escape_then_unescape_gives_the_name_back)
{
	const char *name = "\nsamples\n1 99 1\t\\\033[2J\x7f";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	zt_escape_fput(f, name, NULL);
	fclose(f);
	CHECK_STR(buf, "\\012samples\\0121 99 1\\011\\134\\033[2J\\177");
	zt_escape_decode(buf);
	CHECK_STR(buf, name);
	free(buf);
}

UNIT_TEST(escape_takes_extra_characters)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	zt_escape_fput(f, "/a b (c);d", " ()");
	fclose(f);
	CHECK_STR(buf, "/a\\040b\\040\\050c\\051;d");
	free(buf);
}

UNIT_TEST(messages_escape_controls_only)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	zt_escape_fput_safe(f, "a\\b\033[2J\n");
	fclose(f);
	CHECK_STR(buf, "a\\b\\033[2J\\012");
	free(buf);
}
