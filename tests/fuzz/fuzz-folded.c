/*
 * fuzz-folded.c — libFuzzer target for the folded-stack reader behind
 * zt-stat and zt-diff (lib/folded.c, lib/profile.c, the -s address
 * stripping of lib/foldsrc.c). Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-folded tests/fuzz/corpus-folded
 * Each line is copied to a buffer of its exact size, so AddressSanitizer
 * sees any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "foldsrc.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct zt_profile *p = zt_profile_new();
	size_t i = 0;
	uint32_t n;
	uint32_t *ids;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = malloc(len ? len : 1);
		char *stripped;
		size_t sl, k;
		uint64_t count;

		memcpy(line, data + i, len);
		if (!zt_folded_parse(line, len, &sl, &count)) {
			stripped = malloc(sl * 2 + 8);
			k = zt_strip_hex(line, sl, stripped);
			if (k > sl * 2 + 8)
				abort();
			if (zt_profile_samples(p) <= UINT64_MAX - count)
				zt_profile_add_folded(p, stripped, k, count);
			free(stripped);
		}
		free(line);
		i += len + 1;
	}
	ids = zt_profile_sorted(p, &n);
	for (uint32_t j = 0; j < n; j++)
		if (zt_profile_self(p, ids[j]) > zt_profile_total(p, ids[j]))
			abort();
	free(ids);
	zt_profile_free(p);
	return 0;
}
