/*
 * dwarfcompat.c — the libdwarf 20210528 workarounds (dwarfcompat.h says why
 * each): a DWARF 5 range-list decoder, the list sections' unit-header
 * checks, and the sections libdwarf reads, decompressed once (libdeflate).
 * Little-endian only, as the ELF reader.
 */
#include "dwarfcompat.h"
#include "elfread.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include <libdwarf/dwarf.h>

static int uleb(const unsigned char *b, size_t n, size_t *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	while (*p < n) {
		unsigned char c = b[(*p)++];

		if (shift < 64)
			x |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int fixed(const unsigned char *b, size_t n, size_t *p, unsigned size, uint64_t *v)
{
	uint64_t x = 0;

	if (size > 8 || *p > n || n - *p < size)
		return -1;
	memcpy(&x, b + *p, size);	/* little-endian only, as the ELF reader */
	*p += size;
	*v = x;
	return 0;
}

/* Address number i of .debug_addr from the CU's base; 0 on success. */
static int addrx(const struct zt_dwarfcompat_lists *l, const struct zt_dwarfcompat_bases *cb,
		 uint64_t i, uint64_t *v)
{
	size_t p;

	if (cb->addr > l->naddr || i > (l->naddr - cb->addr) / 8)
		return -1;
	p = (size_t)(cb->addr + i * 8);
	return fixed(l->addr, l->naddr, &p, 8, v);
}

int zt_dwarfcompat_rnglist(const struct zt_dwarfcompat_lists *l,
			   const struct zt_dwarfcompat_bases *cb, int indexed,
			   uint64_t value, uint64_t **r, size_t *n, size_t *cap)
{
	uint64_t base = cb->lowpc, off, a, b;
	size_t p;

	if (!l->rng)
		return -1;
	if (indexed) {
		/* 32-bit DWARF: 4-byte offsets from the base. */
		if (cb->rnglists > l->nrng || value > (l->nrng - cb->rnglists) / 4)
			return -1;
		p = (size_t)(cb->rnglists + value * 4);
		if (fixed(l->rng, l->nrng, &p, 4, &off) < 0 || off > l->nrng - cb->rnglists)
			return -1;
		p = (size_t)(cb->rnglists + off);
	} else {
		if (value >= l->nrng)
			return -1;
		p = (size_t)value;
	}
	for (int count = 0; count < 100000; count++) {
		unsigned char kind;

		if (p >= l->nrng)
			return -1;
		kind = l->rng[p++];
		switch (kind) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			if (uleb(l->rng, l->nrng, &p, &a) < 0 || addrx(l, cb, a, &base) < 0)
				return -1;
			continue;
		case DW_RLE_startx_endx:
			if (uleb(l->rng, l->nrng, &p, &a) < 0 || uleb(l->rng, l->nrng, &p, &b) < 0 ||
			    addrx(l, cb, a, &a) < 0 || addrx(l, cb, b, &b) < 0)
				return -1;
			break;
		case DW_RLE_startx_length:
			if (uleb(l->rng, l->nrng, &p, &a) < 0 || uleb(l->rng, l->nrng, &p, &b) < 0 ||
			    addrx(l, cb, a, &a) < 0)
				return -1;
			b += a;
			break;
		case DW_RLE_offset_pair:
			if (uleb(l->rng, l->nrng, &p, &a) < 0 || uleb(l->rng, l->nrng, &p, &b) < 0)
				return -1;
			a += base;
			b += base;
			break;
		case DW_RLE_base_address:
			if (fixed(l->rng, l->nrng, &p, 8, &base) < 0)
				return -1;
			continue;
		case DW_RLE_start_end:
			if (fixed(l->rng, l->nrng, &p, 8, &a) < 0 ||
			    fixed(l->rng, l->nrng, &p, 8, &b) < 0)
				return -1;
			break;
		case DW_RLE_start_length:
			if (fixed(l->rng, l->nrng, &p, 8, &a) < 0 || uleb(l->rng, l->nrng, &p, &b) < 0)
				return -1;
			b += a;
			break;
		default:
			return -1;
		}
		if (b > a) {
			zt_grow(r, cap, *n + 2, sizeof **r);
			(*r)[(*n)++] = a;
			(*r)[(*n)++] = b;
		}
	}
	return -1;
}

/*
 * The size of section sec's bytes as DWARF reads them: its own, or for a
 * compressed one (SHF_COMPRESSED, zlib) the size its header gives. -1 when
 * that header is missing, of another kind, or claims more than 1 GiB.
 */
static int64_t plain_size(const struct zt_elf *e, const struct zt_section *sec)
{
	Elf64_Chdr ch;

	if (sec->type == SHT_NOBITS || sec->offset > e->size ||
	    sec->size > e->size - sec->offset)
		return sec->type == SHT_NOBITS ? 0 : -1;
	if (!(sec->flags & SHF_COMPRESSED))
		return (int64_t)sec->size;
	if (sec->size < sizeof ch)
		return -1;
	memcpy(&ch, e->data + sec->offset, sizeof ch);
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1u << 30))
		return -1;
	return (int64_t)ch.ch_size;
}

int zt_dwarfcompat_abbrevs(const unsigned char *b, size_t n, uint64_t off,
			   int (*each)(void *ctx, uint64_t code, uint64_t tag, uint64_t attr,
				       uint64_t form),
			   void *ctx)
{
	size_t p;

	if (!b || off >= n)
		return -1;
	p = (size_t)off;
	for (;;) {
		uint64_t code, tag, at, form, skip;

		if (uleb(b, n, &p, &code) < 0)
			return -1;
		if (code == 0)
			return 0;
		if (uleb(b, n, &p, &tag) < 0 || p >= n)
			return -1;
		p++;	/* DW_CHILDREN_yes or _no */
		do {
			if (uleb(b, n, &p, &at) < 0 || uleb(b, n, &p, &form) < 0)
				return -1;
			/* DW_FORM_implicit_const keeps its value here, signed. */
			if (form == DW_FORM_implicit_const && uleb(b, n, &p, &skip) < 0)
				return -1;
			if ((at != 0 || form == 0) && each(ctx, code, tag, at, form))
				return 1;
		} while (at != 0 || form != 0);
	}
}

void zt_dwarfcompat_secs_open(const struct zt_elf *e, struct zt_dwarfcompat_secs *c)
{
	memset(c, 0, sizeof *c);
	c->e = e;
	c->n = e->nsections;
	c->data = zt_calloc(c->n ? c->n : 1, sizeof *c->data);
	c->size = zt_calloc(c->n ? c->n : 1, sizeof *c->size);
	c->state = zt_calloc(c->n ? c->n : 1, 1);
}

int64_t zt_dwarfcompat_section_size(const struct zt_dwarfcompat_secs *c, size_t i)
{
	if (i >= c->n)
		return -1;
	return plain_size(c->e, &c->e->sections[i]);
}

/* state: 0 not read yet, 1 the file's bytes, 2 decompressed (owned), 3 unreadable. */
const unsigned char *zt_dwarfcompat_section(struct zt_dwarfcompat_secs *c, size_t i, size_t *n)
{
	static const unsigned char none[1];
	const struct zt_section *sec;
	int64_t len;
	unsigned char *out;
	size_t got = 0;

	if (i >= c->n)
		return NULL;
	if (c->state[i] == 0) {
		sec = &c->e->sections[i];
		len = plain_size(c->e, sec);
		c->state[i] = 3;
		if (len == 0) {
			c->data[i] = none;
			c->state[i] = 1;
		} else if (len > 0 && !(sec->flags & SHF_COMPRESSED)) {
			c->data[i] = c->e->data + sec->offset;
			c->size[i] = (size_t)len;
			c->state[i] = 1;
		} else if (len > 0) {
			if (!c->inflater && !(c->inflater = libdeflate_alloc_decompressor()))
				zt_out_of_memory("a decompressor");
			out = zt_malloc((size_t)len);
			if (libdeflate_zlib_decompress(c->inflater,
						       c->e->data + sec->offset + sizeof(Elf64_Chdr),
						       (size_t)(sec->size - sizeof(Elf64_Chdr)), out,
						       (size_t)len, &got) != LIBDEFLATE_SUCCESS ||
			    got != (size_t)len) {
				free(out);
			} else {
				c->data[i] = out;
				c->size[i] = (size_t)len;
				c->state[i] = 2;
			}
		}
	}
	if (c->state[i] == 3)
		return NULL;
	*n = c->size[i];
	return c->data[i];
}

void zt_dwarfcompat_secs_close(struct zt_dwarfcompat_secs *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->state[i] == 2)
			free((void *)c->data[i]);
	if (c->inflater)
		libdeflate_free_decompressor(c->inflater);
	free(c->data);
	free(c->size);
	free(c->state);
	memset(c, 0, sizeof *c);
}

/* Section name's bytes from c, or NULL (*n 0) when e has no such section. */
static const unsigned char *named_bytes(struct zt_dwarfcompat_secs *c, const char *name,
					size_t *n, int *missing)
{
	const struct zt_section *sec = zt_elf_section(c->e, name);

	*n = 0;
	*missing = !sec;
	return sec ? zt_dwarfcompat_section(c, (size_t)(sec - c->e->sections), n) : NULL;
}

int zt_dwarfcompat_check_lists(struct zt_dwarfcompat_secs *c, char *err, size_t errlen)
{
	static const char *const names[] = { ".debug_rnglists", ".debug_loclists" };

	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		const unsigned char *b;
		size_t n, p = 0;
		int missing;
		const char *bad = NULL;

		b = named_bytes(c, names[k], &n, &missing);
		if (missing)
			continue;
		if (!b) {
			zt_errf(err, errlen, "corrupt DWARF: %s cannot be read", names[k]);
			return -1;
		}
		while (p < n && !bad) {
			uint64_t len;
			size_t hdr = 4;
			uint32_t l32;
			uint16_t ver;

			if (n - p < 4) {
				bad = "a unit header past the section end";
				break;
			}
			memcpy(&l32, b + p, 4);
			len = l32;
			if (l32 == 0xffffffffu) {
				if (n - p < 12) {
					bad = "a unit header past the section end";
					break;
				}
				memcpy(&len, b + p + 4, 8);
				hdr = 12;
			} else if (l32 >= 0xfffffff0u) {
				bad = "a reserved unit length";
				break;
			}
			if (len > n - p - hdr || len < 8) {
				bad = "a unit longer than the section";
				break;
			}
			memcpy(&ver, b + p + hdr, 2);
			if (ver != 5 || (b[p + hdr + 2] != 4 && b[p + hdr + 2] != 8) ||
			    b[p + hdr + 3] != 0)
				bad = "a unit header of an unknown kind";
			else {
				uint32_t cnt;

				memcpy(&cnt, b + p + hdr + 4, 4);
				if ((uint64_t)cnt * (hdr == 4 ? 4 : 8) > len - 8)
					bad = "more offsets than the unit holds";
			}
			p += hdr + len;
		}
		if (bad) {
			zt_errf(err, errlen, "corrupt DWARF: %s: %s", names[k], bad);
			return -1;
		}
	}
	return 0;
}

void zt_dwarfcompat_lists_open(struct zt_dwarfcompat_secs *c, struct zt_dwarfcompat_lists *l)
{
	int missing;

	memset(l, 0, sizeof *l);
	if (!(l->rng = named_bytes(c, ".debug_rnglists", &l->nrng, &missing)))
		l->nrng = 0;
	if (!(l->addr = named_bytes(c, ".debug_addr", &l->naddr, &missing)))
		l->naddr = 0;
}
