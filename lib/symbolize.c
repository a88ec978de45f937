/*
 * symbolize.c — the symbolizer: a module per mapped file, opened on first
 * use, and a cache of resolved addresses.
 */
#include "symbolize.h"
#include "elfread.h"
#include "hash.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MOD_UNTRIED, MOD_OK, MOD_FAILED };

struct module {
	char *path;		/* as in the maps */
	char *bracket;		/* "[basename]" */
	const char *buildid;	/* from the dump, or NULL */
	int state;
	struct zt_elf elf;
};

struct cached {
	uint64_t addr;
	int exact;
	struct zt_symres res;
};

struct zt_symbolizer {
	const struct zt_dump *d;
	struct module *mods;
	size_t nmods, capmods;
	struct zt_index modix;
	struct cached *cache;
	size_t ncache, capcache;
	struct zt_index cacheix;
	char **warnings;
	size_t nwarnings, capwarnings;
};

static void warn_once(struct zt_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn_once(struct zt_symbolizer *s, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	zt_warn("%s", buf);
	zt_grow(&s->warnings, &s->capwarnings, s->nwarnings + 1, sizeof *s->warnings);
	s->warnings[s->nwarnings++] = zt_strdup(buf);
}

struct zt_symbolizer *zt_symbolizer_new(const struct zt_dump *d)
{
	struct zt_symbolizer *s = zt_calloc(1, sizeof *s);

	s->d = d;
	return s;
}

static int mod_eq(void *ctx, uint32_t i, const void *key)
{
	struct zt_symbolizer *s = ctx;

	return strcmp(s->mods[i].path, key) == 0;
}

static struct module *module_for(struct zt_symbolizer *s, const struct zt_map *m)
{
	uint64_t h = zt_hash(m->path, strlen(m->path), 0);
	int64_t i = zt_index_find(&s->modix, h, mod_eq, s, m->path);
	struct module *mod;
	const char *base;

	if (i >= 0)
		return &s->mods[i];
	zt_grow(&s->mods, &s->capmods, s->nmods + 1, sizeof *s->mods);
	mod = &s->mods[s->nmods];
	memset(mod, 0, sizeof *mod);
	mod->path = zt_strdup(m->path);
	base = zt_basename(m->path);
	mod->bracket = zt_malloc(strlen(base) + 3);
	sprintf(mod->bracket, "[%s]", base);
	mod->buildid = m->buildid;
	zt_index_add(&s->modix, h, (uint32_t)s->nmods);
	return &s->mods[s->nmods++];
}

static void module_load(struct zt_symbolizer *s, struct module *mod)
{
	char err[256];

	if (mod->state != MOD_UNTRIED)
		return;
	mod->state = MOD_FAILED;
	if (zt_elf_open(mod->path, &mod->elf, err, sizeof err) < 0) {
		warn_once(s, "'%s': %s; its frames are named %s", mod->path, err,
			  mod->bracket);
		zt_elf_close(&mod->elf);
		return;
	}
	if (mod->buildid && strcmp(mod->buildid, mod->elf.buildid) != 0) {
		warn_once(s, "'%s': build-id mismatch: the dump has %s, the file has %s; "
			  "its frames are named %s", mod->path, mod->buildid,
			  mod->elf.buildid[0] ? mod->elf.buildid : "none", mod->bracket);
		zt_elf_close(&mod->elf);
		return;
	}
	mod->state = MOD_OK;
}

static void resolve(struct zt_symbolizer *s, uint64_t addr, int exact,
		    struct zt_symres *r)
{
	const struct zt_map *m;
	struct module *mod;
	uint64_t look = exact ? addr : addr - 1, vaddr;
	const struct zt_sym *sym;

	memset(r, 0, sizeof *r);
	r->name = "[unknown]";
	r->module = "[unknown]";
	m = zt_maps_find(s->d->maps, s->d->nmaps, look);
	if (!m)
		return;
	if (!zt_map_is_file(m)) {
		if (m->path[0]) {
			/* [vdso], [heap], [stack], ...: keep the pseudo-name. */
			r->name = m->path;
			r->module = m->path;
		} else {
			r->name = "[anon]";
			r->module = "//anon";
		}
		return;
	}
	mod = module_for(s, m);
	r->module = mod->path;
	r->name = mod->bracket;
	module_load(s, mod);
	if (mod->state != MOD_OK)
		return;
	if (zt_elf_offset_to_vaddr(&mod->elf, look - m->start + m->offset, &vaddr))
		return;
	sym = zt_elf_lookup(&mod->elf, vaddr);
	if (!sym)
		return;
	r->name = sym->name;
	r->have_sym = 1;
	r->offset = vaddr + (addr - look) - sym->addr;
}

static int cache_eq(void *ctx, uint32_t i, const void *key)
{
	struct zt_symbolizer *s = ctx;
	const struct cached *k = key;

	return s->cache[i].addr == k->addr && s->cache[i].exact == k->exact;
}

void zt_symbolize(struct zt_symbolizer *s, uint64_t addr, int exact,
		  struct zt_symres *out)
{
	struct cached key = { .addr = addr, .exact = exact != 0 };
	uint64_t h = zt_hash_u64(addr * 2 + (uint64_t)key.exact);
	int64_t i = zt_index_find(&s->cacheix, h, cache_eq, s, &key);

	if (i >= 0) {
		*out = s->cache[i].res;
		return;
	}
	resolve(s, addr, key.exact, &key.res);
	zt_grow(&s->cache, &s->capcache, s->ncache + 1, sizeof *s->cache);
	s->cache[s->ncache] = key;
	zt_index_add(&s->cacheix, h, (uint32_t)s->ncache);
	s->ncache++;
	*out = key.res;
}

const char *const *zt_symbolizer_warnings(const struct zt_symbolizer *s, size_t *n)
{
	*n = s->nwarnings;
	return (const char *const *)s->warnings;
}

void zt_symbolizer_free(struct zt_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		free(s->mods[i].path);
		free(s->mods[i].bracket);
		zt_elf_close(&s->mods[i].elf);
	}
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->mods);
	free(s->cache);
	zt_index_free(&s->modix);
	zt_index_free(&s->cacheix);
	free(s);
}
