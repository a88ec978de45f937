/*
 * fuzz-foldedsort.c — libFuzzer target for the folded sources behind zt-diff
 * (lib/foldedsort.c): one input streamed (zt_foldedsort_from) and several
 * summed in memory (zt_foldedsort_sum_new, _add, _end), their stacks rewritten
 * as the options say (--no-root, --root=NAME, -s), then walked with
 * zt_foldedsort_next. Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-foldedsort tests/fuzz/corpus-foldedsort
 * The first byte chooses the options; the rest is split into inputs at
 * each NUL byte (at most 4), each a memfd read as the tools read a file.
 *
 * What must hold: the stacks come in zt_folded_cmp's order, each once;
 * their counts add up to the total the source gave, with no overflow; a
 * source refused says why; the inputs' sum holds every input's stacks.
 */
#define FUZZ_NAME "fuzz-foldedsort"
#include "fuzz.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "foldedsort.h"

enum { MAXIN = 4 };

/* Walk s: order, each once, the counts' sum against total. */
static void walk(struct zt_foldedsort *s, uint64_t total)
{
	char *prev = NULL, err[256];
	size_t nprev = 0, len;
	const char *stack;
	uint64_t count, sum = 0;
	int rc;

	err[0] = 0;
	while ((rc = zt_foldedsort_next(s, &stack, &len, &count, err, sizeof err)) == 1) {
		/* A count of 0 is a stack of the format (formats/folded.md). */
		CHECK(sum <= UINT64_MAX - count);
		sum += count;
		if (prev)
			CHECK(zt_folded_cmp(prev, nprev, stack, len) < 0);
		free(prev);
		prev = malloc(len ? len : 1);
		memcpy(prev, stack, len);
		nprev = len;
	}
	free(prev);
	/* The memfd does not change between the two reads. */
	CHECK(rc == 0);
	CHECK(sum == total);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_foldedsort_opts o = { 0 };
	const uint8_t *part[MAXIN];
	size_t plen[MAXIN], n = 0, i;
	char err[256];
	uint64_t total;

	if (size < 1)
		return 0;
	o.strip = data[0] & 1;
	o.root.how = (enum zt_root_how)(data[0] >> 1 & 3) % 3;
	o.root.name = "root;x";
	data++, size--;
	for (i = 0; n < MAXIN; n++) {
		const uint8_t *z = i < size ? memchr(data + i, 0, size - i) : NULL;
		size_t len = z ? (size_t)(z - (data + i)) : size - i;

		part[n] = data + i;
		plen[n] = len;
		if (!z) {
			n++;
			break;
		}
		i += len + 1;
	}

	/* The first input alone, streamed (no reopen: loaded, as stdin is). */
	{
		struct zt_input *in = fuzz_input(part[0], plen[0]);
		struct zt_folded_reader rd;
		struct zt_foldedsort *s;

		if (!in)
			return 0;
		err[0] = 0;
		zt_folded_reader_init(&rd, in);
		s = zt_foldedsort_from(&rd, NULL, &o, &total, err, sizeof err);
		zt_input_close(in);
		if (s) {
			walk(s, total);
			zt_foldedsort_close(s);
		} else {
			CHECK(err[0]);
		}
	}

	/* Every input summed, one open at a time. */
	{
		struct zt_foldedsort *s = zt_foldedsort_sum_new();
		int bad = 0;

		for (i = 0; i < n && !bad; i++) {
			struct zt_input *in = fuzz_input(part[i], plen[i]);
			struct zt_folded_reader rd;

			if (!in)
				break;
			err[0] = 0;
			zt_folded_reader_init(&rd, in);
			if (zt_foldedsort_sum_add(s, &rd, i ? "<first>" : NULL, &o, err,
						  sizeof err) < 0) {
				CHECK(err[0]);
				bad = 1;
			}
			zt_input_close(in);
		}
		if (!bad && i == n) {
			err[0] = 0;
			if (zt_foldedsort_sum_end(s, "<sum>", &total, err, sizeof err) == 0)
				walk(s, total);
			else
				CHECK(err[0]);
		}
		zt_foldedsort_close(s);
	}
	return 0;
}
