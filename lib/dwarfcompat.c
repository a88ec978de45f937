/*
 * dwarfcompat.c — the libdwarf 20210528 workarounds (dwarfcompat.h says why
 * each): a DWARF 5 range-list decoder, the list sections' unit-header
 * checks, and section decompression. Little-endian only, as the ELF reader.
 */
#include "dwarfcompat.h"
#include "elfread.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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
 * The bytes of section sec of e, decompressed when SHF_COMPRESSED (zlib);
 * *owned says whether the caller frees them. NULL if they cannot be had.
 */
static const unsigned char *section_bytes(const struct zt_elf *e,
					  const struct zt_section *sec, size_t *n,
					  int *owned)
{
	Elf64_Chdr ch;
	unsigned char *out;
	uLongf len;

	*owned = 0;
	if (sec->type == SHT_NOBITS || sec->offset > e->size ||
	    sec->size > e->size - sec->offset)
		return NULL;
	if (!(sec->flags & SHF_COMPRESSED)) {
		*n = sec->size;
		return e->data + sec->offset;
	}
	if (sec->size < sizeof ch)
		return NULL;
	memcpy(&ch, e->data + sec->offset, sizeof ch);
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1u << 30))
		return NULL;
	len = (uLongf)ch.ch_size;
	out = zt_malloc(len ? len : 1);
	if (uncompress(out, &len, e->data + sec->offset + sizeof ch,
		       (uLong)(sec->size - sizeof ch)) != Z_OK || len != ch.ch_size) {
		free(out);
		return NULL;
	}
	*owned = 1;
	*n = len;
	return out;
}

int zt_dwarfcompat_check_lists(const struct zt_elf *e, char *err, size_t errlen)
{
	static const char *const names[] = { ".debug_rnglists", ".debug_loclists" };

	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		const struct zt_section *sec = zt_elf_section(e, names[k]);
		const unsigned char *b;
		size_t n, p = 0;
		int owned;
		const char *bad = NULL;

		if (!sec)
			continue;
		b = section_bytes(e, sec, &n, &owned);
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
		if (owned)
			free((void *)b);
		if (bad) {
			zt_errf(err, errlen, "corrupt DWARF: %s: %s", names[k], bad);
			return -1;
		}
	}
	return 0;
}

void zt_dwarfcompat_lists_open(const struct zt_elf *e, struct zt_dwarfcompat_lists *l)
{
	const struct zt_section *sec;
	size_t n;

	memset(l, 0, sizeof *l);
	if ((sec = zt_elf_section(e, ".debug_rnglists")) != NULL &&
	    (l->rng = section_bytes(e, sec, &n, &l->own_rng)) != NULL)
		l->nrng = n;
	if ((sec = zt_elf_section(e, ".debug_addr")) != NULL &&
	    (l->addr = section_bytes(e, sec, &n, &l->own_addr)) != NULL)
		l->naddr = n;
}

void zt_dwarfcompat_lists_close(struct zt_dwarfcompat_lists *l)
{
	if (l->own_rng)
		free((void *)l->rng);
	if (l->own_addr)
		free((void *)l->addr);
	memset(l, 0, sizeof *l);
}
