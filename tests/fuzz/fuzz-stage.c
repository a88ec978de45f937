/*
 * fuzz-stage.c — libFuzzer target for the reader every analysis tool reads
 * through (lib/stage.c): telling a raw dump, perf script text, folded and
 * differential stacks and the kinds no tool reads apart from their first
 * bytes and lines (with lib/input.c's peek), a raw dump's records made from
 * lib/symstream.c's lines, and records folded into zt-fold's bytes and read
 * back. Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-stage tests/fuzz/corpus-stage
 * The input goes through a memfd, with a line limit of 8 + its last byte,
 * as fuzz-raw does. A raw dump's files are looked up under a sysroot that
 * does not exist, so that no file of the machine is opened.
 */
#define FUZZ_NAME "fuzz-stage"
#include "fuzz.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folded.h"
#include "input.h"
#include "stage.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_symopts o = { .sysroot = "/nonexistent-zt-fuzz" };
	int fd = fuzz_memfd(data, size);
	char err[ZT_ERR_MAX] = "";
	struct zt_folded_item it;
	struct zt_folded_reader rd;
	struct zt_input *in;
	struct zt_stage *s;
	int folded, got;

	if (fd < 0)
		abort();
	in = zt_input_fdopen(fd, "fuzz");
	zt_input_set_max_line(in, 8 + (size ? data[size - 1] : 0));
	s = zt_stage_open_input(in, err, sizeof err);
	if (!s) {
		if (!err[0])
			abort();
		return 0;
	}
	if (zt_stage_kind(s) > ZT_STAGE_DIFF)
		abort();
	folded = zt_stage_folded(s, &rd, &o, err, sizeof err) == 0;
	if (!folded && !err[0])
		abort();
	/* Records with no sample: an input of no stacks, never to be read
	   (zt_stage_empty), which the tools name as empty. */
	if (folded && zt_stage_empty(s)) {
		if (zt_stage_kind(s) != ZT_STAGE_RAW && zt_stage_kind(s) != ZT_STAGE_SCRIPT)
			abort();
		zt_stage_close(s);
		return 0;
	}
	while (folded && (got = zt_folded_read(&rd, &it, err, sizeof err)) > 0)
		;
	/* Stacks folded from records always read as folded stacks. */
	if (folded && got < 0 && (zt_stage_kind(s) == ZT_STAGE_RAW ||
				  zt_stage_kind(s) == ZT_STAGE_SCRIPT))
		abort();
	zt_stage_close(s);
	return 0;
}
