/*
 * fuzz-symbolize.c — libFuzzer target for the symbolizer (lib/symbolize.c)
 * over real files of this machine: the other targets' dumps name no file
 * that exists, so the modules, their ELF and .eh_frame reading and the
 * warnings about them are never reached there.
 *
 * At the first input the target takes up to 96 shared libraries of the
 * machine (regular files lib*.so.* under 4 MiB in its multiarch directory,
 * by name, read with zt_elf_open). Each input is a program that writes a
 * raw dump naming them:
 *   byte 0      the dump's version (2, 3 or 4)
 *   then        records of 6 bytes, a sample each: a library (index modulo
 *               their number) and its base (one of 16 slots of 256 MiB),
 *               used when no library is at that base yet; a 24-bit offset
 *               into the library's span; how its build-id is written (its
 *               own, another library's, none); the frame count (1 to 8,
 *               the libraries at the next bases in turn); and (v4) whether
 *               the library at that base is unloaded and this one loaded
 *               there: a new maps snapshot, up to 32
 * The dump is then read as every analysis tool reads it (zt_stage_open_input,
 * zt_stage_folded) and folded to the end; it must parse (the program writes
 * only well-formed dumps) and every folded stack must read.
 * Build with `make fuzz`; run
 *   tests/fuzz/bin/fuzz-symbolize tests/fuzz/corpus-symbolize
 */
#define FUZZ_NAME "fuzz-symbolize"
#include "fuzz.h"
#include "elfread.h"
#include "folded.h"
#include "input.h"
#include "stage.h"
#include "util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAXLIBS 96

struct lib {
	char *path;
	char buildid[129];
	struct zt_load loads[8];
	size_t nloads;
};

static struct lib libs[MAXLIBS];
static size_t nlibs;

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The machine's libraries, once: their PT_LOADs and build-ids. */
static void find_libs(void)
{
	static const char *dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
				      "/lib64", "/usr/lib" };
	char **names = NULL, err[256];
	size_t n = 0, cap = 0;
	const char *dir = NULL;
	struct dirent *de;
	DIR *dp = NULL;

	for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !dp; i++)
		if ((dp = opendir(dirs[i])))
			dir = dirs[i];
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		char path[4096];
		struct stat st;

		if (strncmp(de->d_name, "lib", 3) != 0 || !strstr(de->d_name, ".so."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (4 << 20))
			continue;
		zt_grow(&names, &cap, n + 1, sizeof *names);
		names[n++] = zt_strdup(path);
	}
	closedir(dp);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		struct zt_elf e;

		if (nlibs < MAXLIBS && zt_elf_open(names[i], &e, err, sizeof err) == 0) {
			struct lib *l = &libs[nlibs];

			for (size_t k = 0; k < e.nloads && l->nloads < 8; k++)
				l->loads[l->nloads++] = e.loads[k];
			if (l->nloads) {
				l->path = names[i];
				names[i] = NULL;
				memcpy(l->buildid, e.buildid, sizeof l->buildid);
				nlibs++;
			}
		}
		zt_elf_close(&e);
		free(names[i]);
	}
	free(names);
}

struct text {
	char *p;
	size_t n, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	zt_grow(&t->p, &t->cap, t->n + (size_t)k + 1, 1);
	va_start(ap, fmt);
	vsnprintf(t->p + t->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	t->n += (size_t)k;
}

static uint64_t base_of(unsigned slot)
{
	return 0x7f0000000000ull + (uint64_t)slot * 0x10000000ull;
}

/* Library l mapped at base, as the loader maps it: one line per PT_LOAD. */
static void map_lib(struct text *t, const struct lib *l, uint64_t base, unsigned inode)
{
	for (size_t k = 0; k < l->nloads; k++) {
		const struct zt_load *ld = &l->loads[k];
		uint64_t start = base + (ld->vaddr & ~0xfffull);
		uint64_t end = base + ((ld->vaddr + ld->memsz + 0xfff) & ~0xfffull);

		if (end <= start)
			end = start + 0x1000;
		add(t, "%llx-%llx r%cxp %08llx 08:01 %u   %s\n", (unsigned long long)start,
		    (unsigned long long)end, ld->flags & 2 ? 'w' : '-',
		    (unsigned long long)(ld->offset & ~0xfffull), inode, l->path);
	}
}

#define SLOTS 16
#define MAXSNAPS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct text samples = { 0 }, dump = { 0 };
	int snap[MAXSNAPS][SLOTS];	/* per snapshot, the library at each base, or -1 */
	int idmode[MAXSNAPS][SLOTS];
	unsigned version, nsnaps = 1;
	uint64_t nsamples = 0;
	struct zt_symopts o = { 0 };
	char err[ZT_ERR_MAX] = "";
	struct zt_folded_item it;
	struct zt_folded_reader rd;
	struct zt_input *in;
	struct zt_stage *s;
	int fd, got = 0;

	if (!ready) {
		ready = 1;
		find_libs();
	}
	if (nlibs == 0 || size < 7)
		return 0;
	version = 2 + data[0] % 3;
	memset(snap, -1, sizeof snap);
	for (size_t p = 1; p + 6 <= size; p += 6) {
		const uint8_t *r = data + p;
		unsigned slot = r[1] % SLOTS, frames = 1 + (r[5] >> 4) % 8, cur;
		int li = (int)(r[0] % nlibs);
		uint64_t off = (uint64_t)r[2] << 16 | (uint64_t)r[3] << 8 | r[4];

		/* v4: another library at a base in use is a new snapshot. */
		if (version == 4 && (r[5] & 1) && snap[nsnaps - 1][slot] >= 0 &&
		    snap[nsnaps - 1][slot] != li && nsnaps < MAXSNAPS) {
			memcpy(snap[nsnaps], snap[nsnaps - 1], sizeof snap[0]);
			memcpy(idmode[nsnaps], idmode[nsnaps - 1], sizeof idmode[0]);
			snap[nsnaps][slot] = -1;
			nsnaps++;
		}
		cur = nsnaps - 1;
		if (snap[cur][slot] < 0) {
			snap[cur][slot] = li;
			idmode[cur][slot] = (r[5] >> 1) % 3;
		}
		add(&samples, "1 1");
		if (version >= 3)
			add(&samples, " @%u", cur);
		for (unsigned f = 0; f < frames; f++) {
			unsigned sl = (slot + f) % SLOTS;
			const struct lib *l;
			uint64_t span;

			if (snap[cur][sl] < 0)
				sl = slot;
			l = &libs[snap[cur][sl]];
			span = l->loads[l->nloads - 1].vaddr + l->loads[l->nloads - 1].memsz -
			       (l->loads[0].vaddr & ~0xfffull);
			add(&samples, " %llx", (unsigned long long)(base_of(sl) +
			    (l->loads[0].vaddr & ~0xfffull) + 1 + (span ? (off * (f + 1)) % span : 0)));
		}
		add(&samples, "\n");
		nsamples++;
	}
	add(&dump, "zt-prof %u\npid 1\nexe /bin/true\nhz 997\ntimer perf-task-clock\n", version);
	if (version >= 3)
		add(&dump, "clock monotonic\nstart-ns 1\nunwind auto\n");
	for (unsigned i = 0; i < nsnaps; i++) {
		add(&dump, version == 4 ? "maps @%u\n" : "maps\n", i);
		for (unsigned sl = 0; sl < SLOTS; sl++)
			if (snap[i][sl] >= 0)
				map_lib(&dump, &libs[snap[i][sl]], base_of(sl), 1000 + (unsigned)snap[i][sl]);
	}
	/* Each library's build-id (its own, another's, none) when it appears. */
	add(&dump, "buildids\n");
	for (unsigned i = 0; i < nsnaps; i++)
		for (unsigned sl = 0; sl < SLOTS; sl++) {
			int li = snap[i][sl];
			const struct lib *l;
			const char *id;

			if (li < 0 || (i > 0 && snap[i - 1][sl] == li))
				continue;
			l = &libs[li];
			id = idmode[i][sl] == 0 ? l->buildid :
			     idmode[i][sl] == 1 ? libs[((size_t)li + 1) % nlibs].buildid : "";
			if (!id[0])
				continue;
			add(&dump, "%llx", (unsigned long long)(base_of(sl) +
					(l->loads[0].vaddr & ~0xfffull)));
			if (version == 4)
				add(&dump, " @%u", i);
			add(&dump, " %s %s\n", id, l->path);
		}
	add(&dump, "samples\n%s", samples.p);
	add(&dump, "threads\n1 fuzz\nsummary\nsamples %llu\nlost 0\nend\n",
	    (unsigned long long)nsamples);
	free(samples.p);

	fd = fuzz_memfd((const uint8_t *)dump.p, dump.n);
	if (fd < 0)
		abort();
	in = zt_input_fdopen(fd, "fuzz");
	s = zt_stage_open_input(in, err, sizeof err);
	if (!s)
		fprintf(stderr, FUZZ_NAME ": %s\n%s", err, dump.p);
	CHECK(s != NULL);
	CHECK(zt_stage_kind(s) == ZT_STAGE_RAW);
	got = zt_stage_folded(s, &rd, &o, err, sizeof err);
	if (got < 0)
		fprintf(stderr, FUZZ_NAME ": %s\n%s", err, dump.p);
	CHECK(got == 0);
	while ((got = zt_folded_read(&rd, &it, err, sizeof err)) > 0)
		;
	if (got < 0)
		fprintf(stderr, FUZZ_NAME ": %s\n%s", err, dump.p);
	CHECK(got == 0);
	zt_stage_close(s);
	free(dump.p);
	return 0;
}
