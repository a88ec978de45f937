/*
 * fuzz-perfscript.c — libFuzzer target for the perf script reader and the
 * folding behind zt-fold and zt-stat (lib/perfscript.c, lib/collapse.c,
 * lib/fold.c, lib/psprofile.c), and the `# zt` facts (lib/ztfacts.c). Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-perfscript tests/fuzz/corpus-perfscript
 * The first byte picks the options; the rest is split into lines, each
 * copied to a buffer of its exact size so that AddressSanitizer sees any
 * read past a line's end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "perfscript.h"
#include "profile.h"
#include "psprofile.h"
#include "ztfacts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct zt_collapse_opts o = { 0 };
	struct zt_fold *fold;
	struct zt_ps_reader *r;
	struct zt_profile *p;
	struct zt_psprof *pp;
	struct zt_ps_item it;
	struct zt_facts facts = { 0 };
	unsigned long lineno = 0;
	size_t i = 1;
	int failed = 0;

	if (size < 1)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	o.pid = data[0] & 1;
	o.tid = data[0] & 2;
	o.kernel = data[0] & 4;
	o.jit = data[0] & 8;
	o.addrs = data[0] & 16;
	o.srcline = data[0] & 32;
	fold = zt_fold_new(&o);
	r = zt_ps_reader_new(NULL);
	p = zt_profile_new();
	pp = zt_psprof_new(p, (enum zt_by)((data[0] >> 6) & 3));
	while (i < size && !failed) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
		char *line = malloc(len ? len : 1);

		memcpy(line, data + i, len);
		if (zt_ps_line(r, line, len, ++lineno, &it)) {
			if (zt_fold_item(fold, &it) < 0)
				failed = 1;
			else
				zt_psprof_item(pp, &it);
			if (it.kind == ZT_PS_COMMENT)
				zt_facts_line(&facts, it.text.p, it.text.n);
		}
		free(line);
		i += len + 1;
	}
	if (!failed) {
		uint32_t n;
		uint32_t *ids = zt_profile_sorted(p, &n);

		zt_ps_finish(r, lineno, &it);
		zt_fold_write(fold, devnull);
		free(ids);
	}
	zt_psprof_free(pp);
	zt_profile_free(p);
	zt_ps_reader_free(r);
	zt_fold_free(fold);
	return 0;
}
