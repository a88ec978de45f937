/*
 * fuzz-flame.c — libFuzzer target for zt-flame's reader and writer: folded
 * and differential lines through zt_folded_next (lib/folded.c, lib/input.c)
 * into zt_flame_item and zt_flame_add, then the whole SVG through zt_flame_write
 * (lib/flame.c: the layout, colours, deltas of up to 2^64 - 1 either way,
 * titles, XML escaping). Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-flame tests/fuzz/corpus-flame
 * The input's first byte picks the options (--negate, --inverted, a
 * minimum width in %, a narrow image), so every input is drawn four ways.
 */
#define FUZZ_NAME "fuzz-flame"
#include "fuzz.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flame.h"
#include "folded.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_input *in;
	struct zt_flame *f;
	struct zt_folded_item it;
	struct zt_flame_opts o;
	uint64_t stacks = 0;
	char err[512], *svg = NULL;
	size_t svglen = 0;
	unsigned opts = size ? data[0] : 0;
	int got, bad = 0;
	FILE *out;

	if (!(in = fuzz_input(data, size)))
		return 0;
	f = zt_flame_new();
	/* zt-flame --clock, from the first byte's top bits. */
	zt_flame_set_clock(f, (enum zt_flame_clock)((opts >> 7) & 1 ? (opts >> 6) % 3 : 0));
	while ((got = zt_folded_next(in, &it, &stacks, err, sizeof err)) > 0) {
		/* A wall-clock profile's declaration, as zt-flame takes it. */
		if (it.kind == ZT_FOLDED_COMMENT && it.stacklen == 15 &&
		    memcmp(it.stack, "# zt weight: ns", 15) == 0 && stacks == 0)
			zt_flame_set_wall(f, 1);
		/* An allocation profile's, as zt-flame takes it. */
		if (it.kind == ZT_FOLDED_COMMENT && stacks == 0) {
			uint64_t rate;
			int alloc = zt_weight_declares_alloc(it.stack, it.stacklen, &rate);

			if (alloc)
				(void)zt_flame_set_alloc(f, alloc);
		}
		if (it.kind != ZT_FOLDED_STACK)
			continue;
		size_t len, stacklen;
		uint64_t before;
		const char *line;
		int diff;

		if (zt_flame_item(f, &it, &line, &len, &stacklen, &diff, &before) ||
		    zt_flame_add(f, line, len, stacklen, diff, before, it.count)) {
			bad = 1;
			break;
		}
	}
	if (got < 0)
		CHECK(err[0]);
	zt_input_close(in);
	if (got == 0 && !bad) {
		zt_flame_defaults(&o);
		o.negate = opts & 1;
		o.icicle = (opts >> 1) & 1;
		if (opts & 4) {
			o.minwidth = (opts >> 3) & 7;
			o.minwidth_pct = 1;
		}
		if (opts & 64)
			o.width = 100;
		out = open_memstream(&svg, &svglen);
		CHECK(out);
		err[0] = '\0';
		if (zt_flame_write(f, &o, out, err, sizeof err) < 0)
			CHECK(err[0]);
		CHECK(fclose(out) == 0);
		/* A whole image, or none at all. */
		CHECK(svglen == 0 || (svglen >= 7 && memcmp(svg + svglen - 7, "</svg>\n", 7) == 0));
		free(svg);
	}
	zt_flame_free(f);
	return 0;
}
