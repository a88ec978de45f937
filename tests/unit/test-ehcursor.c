/*
 * test-ehcursor.c — lib/ehcursor.h, the .eh_frame cursor collect/cfi.c and
 * lib/ehframe.c share: fields, LEB128, pointer encodings, and a read that
 * fails leaving nothing more to read.
 */
#include "unit.h"
#include "ehcursor.h"

static struct zt_ehcursor over(const unsigned char *p, size_t n, uint64_t addr)
{
	return (struct zt_ehcursor){ .p = p, .end = p + n, .mem = p, .addr = addr };
}

UNIT_TEST(ehcursor_fields_and_leb128)
{
	static const unsigned char b[] = { 0x34, 0x12, 0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x7f, 0x01 };
	struct zt_ehcursor c = over(b, sizeof b, 0x1000);

	CHECK_EQ_U(zt_ehcursor_fixed(&c, 2), 0x1234);
	CHECK_EQ_U(zt_ehcursor_uleb(&c), 624485);
	CHECK(zt_ehcursor_sleb(&c) == -1);
	CHECK(zt_ehcursor_sleb(&c) == -128);
	CHECK_EQ_U(zt_ehcursor_here(&c), 0x1008);
	CHECK_EQ_U(zt_ehcursor_u8(&c), 1);
	CHECK(!c.bad);
	/* Past the end: 0, bad, and it stays so. */
	CHECK_EQ_U(zt_ehcursor_u8(&c), 0);
	CHECK(c.bad);
	c = over(b, 3, 0);
	CHECK_EQ_U(zt_ehcursor_fixed(&c, 4), 0);
	CHECK(c.bad && c.p == c.end);
	c = over(b + 6, 1, 0);	/* a LEB128 cut short */
	CHECK_EQ_U(zt_ehcursor_uleb(&c), 0);
	CHECK(c.bad);
}

UNIT_TEST(ehcursor_pointer_encodings)
{
	static const unsigned char b[] = { 0xf0, 0xff, 0xff, 0xff, 0x10, 0x00, 0x00, 0x00,
					   0x08, 0x00, 0x00, 0x00 };
	struct zt_ehcursor c = over(b, sizeof b, 0x4000);

	/* pcrel sdata4: the field's own address plus -16. */
	CHECK_EQ_U(zt_ehcursor_pointer(&c, PE_PCREL | PE_SDATA4), 0x4000 - 16);
	CHECK_EQ_U(zt_ehcursor_pointer(&c, PE_OMIT), 0);
	CHECK(!c.bad && c.p == b + 4);
	/* datarel: its base where allowed, malformed where not. */
	c.datarel = 0x9000;
	c.datarel_ok = 1;
	CHECK_EQ_U(zt_ehcursor_pointer(&c, PE_DATAREL | PE_UDATA4), 0x9010);
	c.datarel_ok = 0;
	CHECK_EQ_U(zt_ehcursor_pointer(&c, PE_DATAREL | PE_UDATA4), 0);
	CHECK(c.bad && c.p == c.end);
	/* An unknown form or base is malformed. */
	c = over(b, sizeof b, 0);
	CHECK_EQ_U(zt_ehcursor_pointer(&c, 0x05), 0);
	CHECK(c.bad);
	c = over(b, sizeof b, 0);
	CHECK_EQ_U(zt_ehcursor_pointer(&c, 0x20 | PE_UDATA4), 0);
	CHECK(c.bad);
}
