/*
 * symbolize.c — the symbolizer: a module per mapped file (and build), opened
 * on first use, and a cache of resolved addresses.
 *
 * A module has up to two files: the one that ran (its PT_LOADs turn a file
 * offset into a link-time address) and its separate debug file (names from
 * its .symtab; its code sections are NOBITS, but its symbol values are the
 * same addresses). When only the debug file is left, addresses are mapped
 * with the load bias read from the dump's maps instead.
 */
#include "symbolize.h"
#include "strtab.h"
#include "arch.h"
#include "debugfile.h"
#include "debuginfod.h"
#include "demangle.h"
#include "ehframe.h"
#include "elfread.h"
#include "hash.h"
#include "srcline.h"
#include "util.h"
#include "progress.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MOD_UNTRIED, MOD_OK, MOD_FAILED };

struct module {
	char *path;		/* as in the maps */
	char *bracket;		/* "[basename]" */
	const char *buildid;	/* from the dump, or NULL */
	int state;
	struct zt_elf run;	/* the file that ran, or its archived copy */
	struct zt_elf dbg;	/* its separate debug file, if any */
	int have_run, have_dbg;
	const struct zt_elf *names;	/* where symbols come from */
	uint64_t bias;		/* without run: vaddr = address - bias */
	struct zt_dwarf *dw;	/* with --lines, opened on first use */
	int dw_tried, dw_warned;
	struct zt_ehframe cfi;	/* its FDEs, read when an address has no symbol */
	int cfi_read;
	char **fdename;		/* "[basename+0xSTART]" per FDE, made on first use */
	uint64_t unnamed;	/* samples whose innermost frame here no symbol names */
	size_t last_stack;	/* 1 + the last stack counted in unnamed */
	int vdso;		/* the vDSO, its image from the dump: no file, and an
				   address no symbol names stays "[vdso]" */
};

struct cached {
	uint64_t addr;
	int exact;
	const struct zt_map *map;	/* the mapping it was looked up in */
	struct zt_symres res;
};

struct demangled {
	const char *mangled;	/* a symbol's name, inside a mapped file */
	char *out;		/* NULL: not mangled */
};

struct zt_symbolizer {
	const struct zt_raw *d;
	struct zt_symopts o;
	const char **dirs;	/* the debug directories, then the system's */
	const char **roots;	/* each one's root: NULL, or the sysroot */
	size_t ndirs;
	struct module **mods;	/* each allocated on its own: a module never
				   moves, so a pointer to it (a place's, its
				   names) stays valid as modules are added */
	size_t nmods, capmods;
	struct zt_hash_index modix;
	struct cached *cache;
	size_t ncache, capcache;
	struct zt_hash_index cacheix;
	struct demangled *dm;
	size_t ndm, capdm;
	struct zt_hash_index dmix;
	char **warnings;
	size_t nwarnings, capwarnings;
	struct zt_srcframe **chains;	/* the inlined frames of cached results */
	size_t nchains, capchains;
	int summarized;		/* the warnings about unnamed samples are made */
	unsigned char *named;	/* per dump address, a bit: has a symbol
				   (zt_symbolizer_named), or NULL */
	char *perfmap;		/* "/tmp/perf-PID.map": the module of JIT frames */
	struct module *vdso;	/* the dump's vDSO image, parsed on first use */
	int vdso_tried;
	char *dfnote;		/* what debuginfod fetched (zt_debuginfod_report) */
	int dfnoted;		/* dfnote is made */
};

static void warn_once(struct zt_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn_once(struct zt_symbolizer *s, const char *fmt, ...)
{
	va_list ap;

	zt_grow(&s->warnings, &s->capwarnings, s->nwarnings + 1, sizeof *s->warnings);
	va_start(ap, fmt);
	s->warnings[s->nwarnings++] = zt_vstrdupf(fmt, ap);
	va_end(ap);
}

struct zt_symbolizer *zt_symbolizer_new(const struct zt_raw *d,
					const struct zt_symopts *o)
{
	struct zt_symbolizer *s = zt_calloc(1, sizeof *s);

	s->d = d;
	if (o)
		s->o = *o;
	s->dirs = zt_calloc(s->o.ndebug_dirs + 1, sizeof *s->dirs);
	s->roots = zt_calloc(s->o.ndebug_dirs + 1, sizeof *s->roots);
	for (size_t i = 0; i < s->o.ndebug_dirs; i++)
		s->dirs[s->ndirs++] = s->o.debug_dirs[i];
	/* The system's debug files are the sysroot's, looked up inside it. */
	s->roots[s->ndirs] = s->o.sysroot;
	s->dirs[s->ndirs++] = "/usr/lib/debug";
	s->perfmap = zt_malloc(48);
	snprintf(s->perfmap, 48, "/tmp/perf-%llu.map", (unsigned long long)d->pid);
	if (d->vdso_problem)
		warn_once(s, "%s", d->vdso_problem);
	return s;
}

struct modkey {
	const char *path, *buildid;
};

static int mod_eq(void *ctx, uint32_t i, const void *key)
{
	struct zt_symbolizer *s = ctx;
	const struct modkey *k = key;
	const char *b = s->mods[i]->buildid;

	return strcmp(s->mods[i]->path, k->path) == 0 &&
	       (b && k->buildid ? strcmp(b, k->buildid) == 0 : b == k->buildid);
}

static struct module *module_for(struct zt_symbolizer *s, const struct zt_map *m)
{
	struct modkey k = { m->path, m->buildid };
	uint64_t h = zt_hash(m->path, strlen(m->path),
			     m->buildid ? zt_hash(m->buildid, strlen(m->buildid), 0) : 0);
	int64_t i = zt_hash_index_find(&s->modix, h, mod_eq, s, &k);
	struct module *mod;
	const char *base;

	if (i >= 0)
		return s->mods[i];
	zt_grow(&s->mods, &s->capmods, s->nmods + 1, sizeof *s->mods);
	mod = zt_calloc(1, sizeof *mod);
	s->mods[s->nmods] = mod;
	mod->path = zt_strdup(m->path);
	base = zt_maps_basename(m->path);
	mod->bracket = zt_malloc(strlen(base) + 3);
	sprintf(mod->bracket, "[%s]", base);
	mod->buildid = m->buildid;
	zt_hash_index_add(&s->modix, h, (uint32_t)s->nmods++);
	return mod;
}

/* The load bias of mod, from the first mapping of its file in the dump. */
static int module_bias(struct zt_symbolizer *s, struct module *mod, const struct zt_elf *e)
{
	uint64_t lo = UINT64_MAX;

	for (size_t i = 0; i < e->nloads; i++)
		if (e->loads[i].vaddr < lo)
			lo = e->loads[i].vaddr;
	if (lo == UINT64_MAX)
		return -1;
	for (size_t i = 0; i < s->d->nmaps; i++) {
		const struct zt_map *m = &s->d->maps[i];

		if (m->offset == 0 && strcmp(m->path, mod->path) == 0 &&
		    (!mod->buildid || (m->buildid && strcmp(m->buildid, mod->buildid) == 0))) {
			mod->bias = m->start - (lo & ~(uint64_t)0xfff);
			return 0;
		}
	}
	return -1;
}

/*
 * Whether e was built for another machine than the dump's (why, into buf).
 * Such an object is never read for names: its link-time addresses and
 * symbols would name the dump's addresses wrongly.
 */
static int wrong_arch(const struct zt_symbolizer *s, const struct zt_elf *e, char *buf,
		      size_t len)
{
	return zt_arch_check((enum zt_arch)s->d->arch, e->machine, buf, len) < 0;
}

/*
 * The file of mod of kind, with build-id id, through debuginfod (when the
 * options ask for it) into *e: 0 when it is of the dump's machine and, for
 * an executable, not a debug file (whose code is NOBITS); else -1, e
 * closed.
 */
static int fetch(struct zt_symbolizer *s, struct module *mod, const char *id,
		 enum zt_debuginfod_kind kind, struct zt_elf *e)
{
	char other[200];
	const char *why = NULL;

	if (zt_debuginfod_open(s->o.debuginfod, id, kind, mod->path, e) < 0)
		return -1;
	if (kind == ZT_DEBUGINFOD_EXECUTABLE && e->nobits_text)
		why = "a debug file: its code is not in it";
	else if (wrong_arch(s, e, other, sizeof other))
		why = other;
	if (why) {
		zt_debuginfod_refuse(s->o.debuginfod, id, kind, why);
		zt_elf_close(e);
		return -1;
	}
	return 0;
}

static void module_load(struct zt_symbolizer *s, struct module *mod)
{
	char err[512], warn[600], dwarn[600] = "", other[200], *path;
	const char *problem = NULL;

	if (mod->state != MOD_UNTRIED)
		return;
	mod->state = MOD_FAILED;
	/* Every lookup of a dump's path stays inside the sysroot. */
	path = zt_malloc(strlen(s->o.sysroot ? s->o.sysroot : "") + strlen(mod->path) + 1);
	sprintf(path, "%s%s", s->o.sysroot ? s->o.sysroot : "", mod->path);
	if (zt_elf_open_in(s->o.sysroot, mod->path, &mod->run, err, sizeof err) < 0) {
		problem = err;
		zt_elf_close(&mod->run);
	} else if (wrong_arch(s, &mod->run, warn, sizeof warn)) {
		problem = warn;
		zt_elf_close(&mod->run);
	} else if (mod->buildid && strcmp(mod->buildid, mod->run.buildid) != 0) {
		snprintf(warn, sizeof warn, "build-id mismatch: the dump has %s, the file has %s",
			 mod->buildid, mod->run.buildid[0] ? mod->run.buildid : "none");
		problem = warn;
		zt_elf_close(&mod->run);
	} else {
		mod->have_run = 1;
	}
	/* Not the right file: a copy of the right build, or its debug file. */
	if (problem && mod->buildid) {
		if (zt_debugfile_by_buildid(s->dirs, s->roots, s->ndirs, mod->buildid, "",
					    &mod->run) == 0 &&
		    !mod->run.nobits_text && !wrong_arch(s, &mod->run, other, sizeof other)) {
			mod->have_run = 1;
			problem = NULL;
		}
		if (!mod->have_run) {
			zt_elf_close(&mod->run);
			if (zt_debugfile_by_buildid(s->dirs, s->roots, s->ndirs, mod->buildid,
						    ".debug", &mod->dbg) == 0 &&
			    !wrong_arch(s, &mod->dbg, other, sizeof other) &&
			    module_bias(s, mod, &mod->dbg) == 0) {
				mod->have_dbg = 1;
				problem = NULL;
			} else {
				zt_elf_close(&mod->dbg);
			}
		}
		/* Nothing here: the servers of DEBUGINFOD_URLS, last. */
		if (!mod->have_run && !mod->have_dbg) {
			if (fetch(s, mod, mod->buildid, ZT_DEBUGINFOD_EXECUTABLE,
				  &mod->run) == 0) {
				mod->have_run = 1;
				problem = NULL;
			} else if (fetch(s, mod, mod->buildid, ZT_DEBUGINFOD_DEBUGINFO,
					 &mod->dbg) == 0) {
				if (module_bias(s, mod, &mod->dbg) == 0) {
					mod->have_dbg = 1;
					problem = NULL;
				} else {
					zt_elf_close(&mod->dbg);
				}
			}
		}
	}
	if (problem) {
		warn_once(s, "'%s': %s; its frames are named %s", path, problem, mod->bracket);
		free(path);
		return;
	}
	if (mod->have_run && mod->run.damage)
		warn_once(s, "'%s': %s; no symbols read from it", path, mod->run.damage);
	if (mod->have_run && (!mod->run.symtab || s->o.lines) &&
	    zt_debugfile_find(&mod->run, mod->run.path + mod->run.rootlen, s->dirs, s->roots,
			      s->ndirs, &mod->dbg,
			      dwarn, sizeof dwarn) == 0)
		mod->have_dbg = 1;
	else if (mod->have_run && (!mod->run.symtab || s->o.lines) && mod->run.buildid[0] &&
		 fetch(s, mod, mod->run.buildid, ZT_DEBUGINFOD_DEBUGINFO, &mod->dbg) == 0)
		mod->have_dbg = 1;
	else if (mod->have_run)
		zt_elf_close(&mod->dbg);
	if (mod->have_run && !mod->have_dbg && dwarn[0])
		warn_once(s, "'%s': %s", path, dwarn);
	mod->names = mod->have_dbg && mod->dbg.nsyms && mod->dbg.symtab ? &mod->dbg :
		     mod->have_run ? &mod->run : &mod->dbg;
	/* A corrupt symbol table: say so, and use the symbols that are valid. */
	if (mod->have_run && mod->run.symproblem[0])
		warn_once(s, "'%s': corrupt symbol table: %s; only its valid symbols are used",
			  mod->run.path, mod->run.symproblem);
	if (mod->have_dbg && mod->dbg.symproblem[0])
		warn_once(s, "'%s': corrupt symbol table: %s; only its valid symbols are used",
			  mod->dbg.path, mod->dbg.symproblem);
	mod->state = MOD_OK;
	free(path);
}

static int dm_eq(void *ctx, uint32_t i, const void *key)
{
	struct zt_symbolizer *s = ctx;

	return s->dm[i].mangled == key;
}

/* name, demangled unless --no-demangle; the result lives as long as s. */
static const char *display_name(struct zt_symbolizer *s, const char *name)
{
	uint64_t h;
	int64_t i;

	if (s->o.no_demangle)
		return name;
	h = zt_hash_u64((uint64_t)(uintptr_t)name);
	i = zt_hash_index_find(&s->dmix, h, dm_eq, s, name);
	if (i < 0) {
		zt_grow(&s->dm, &s->capdm, s->ndm + 1, sizeof *s->dm);
		s->dm[s->ndm].mangled = name;
		s->dm[s->ndm].out = zt_demangle(name);
		zt_hash_index_add(&s->dmix, h, (uint32_t)s->ndm);
		i = (int64_t)s->ndm++;
	}
	return s->dm[i].out ? s->dm[i].out : name;
}

/* The module's DWARF: its debug file's, else its own; NULL if none. */
static struct zt_dwarf *module_dwarf(struct zt_symbolizer *s, struct module *mod)
{
	const struct zt_elf *e;
	char err[512];

	if (mod->dw_tried)
		return mod->dw;
	mod->dw_tried = 1;
	e = mod->have_dbg ? &mod->dbg : &mod->run;
	if (!zt_elf_section(e, ".debug_info"))
		return NULL;
	mod->dw = zt_dwarf_open(e->path, e, err, sizeof err);
	if (!mod->dw && err[0])
		warn_once(s, "'%s': %s; no source lines from it", e->path, err);
	return mod->dw;
}

/* The first problem in mod's DWARF, said once. */
static void dwarf_warn(struct zt_symbolizer *s, struct module *mod, const struct zt_dwarf *dw)
{
	const char *problem = zt_dwarf_problem(dw);

	if (problem && !mod->dw_warned) {
		mod->dw_warned = 1;
		warn_once(s, "'%s': %s; lines from it may be missing",
			  mod->have_dbg ? mod->dbg.path : mod->run.path, problem);
	}
}

/* Source lines and inlined frames of vaddr in mod, into r. */
static void add_lines(struct zt_symbolizer *s, struct module *mod, uint64_t vaddr,
		      struct zt_symres *r)
{
	struct zt_srcframe f[64];
	struct zt_dwarf *dw = module_dwarf(s, mod);
	size_t n;

	if (!dw)
		return;
	n = zt_dwarf_lookup(dw, vaddr, f, 64, !r->have_sym);
	dwarf_warn(s, mod, dw);
	if (n == 0)
		return;
	r->file = f[n - 1].file;
	r->line = f[n - 1].line;
	if (!r->have_sym && f[n - 1].name)
		r->name = display_name(s, f[n - 1].name);
	if (n == 1)
		return;
	r->ninl = n - 1;
	zt_grow(&s->chains, &s->capchains, s->nchains + 1, sizeof *s->chains);
	s->chains[s->nchains] = zt_calloc(n - 1, sizeof **s->chains);
	for (size_t i = 0; i + 1 < n; i++) {
		s->chains[s->nchains][i] = f[i];
		s->chains[s->nchains][i].name = f[i].name ? display_name(s, f[i].name) :
							    "[unknown]";
	}
	r->inl = s->chains[s->nchains++];
}

/*
 * The module of the dump's vDSO image (formats/raw.md, "The vDSO"), parsed
 * on first use; NULL when the dump has none, or it is not an ELF object of
 * the dump's machine (said once: its frames stay "[vdso]").
 */
static struct module *vdso_module(struct zt_symbolizer *s)
{
	const struct zt_raw *d = s->d;
	struct module *mod;
	char err[256];

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = 1;
	if (!d->vdso)
		return NULL;
	mod = zt_calloc(1, sizeof *mod);
	mod->vdso = 1;
	if (zt_elf_parse(d->vdso, d->vdso_size, &mod->run, err, sizeof err) < 0 ||
	    wrong_arch(s, &mod->run, err, sizeof err)) {
		warn_once(s, "%s: the vDSO's image: %s; its frames stay [vdso]", d->vdso_where,
			  err);
		zt_elf_close(&mod->run);
		free(mod);
		return NULL;
	}
	if (mod->run.symproblem[0])
		warn_once(s, "%s: the vDSO's image: corrupt symbol table: %s; only its valid "
			  "symbols are used", d->vdso_where, mod->run.symproblem);
	mod->have_run = 1;
	mod->names = &mod->run;
	mod->state = MOD_OK;
	s->vdso = mod;
	return mod;
}

/* Where an address is: its module (loaded) and link-time address. */
struct place {
	struct module *mod;	/* NULL: r is already the whole answer */
	uint64_t look, vaddr;
};

/*
 * The first half of resolving addr (exact, or a return address looked up
 * at addr - 1) in mapping m: its module (opened, with its warnings) and its
 * link-time address. r gets what is known so far.
 */
static void locate(struct zt_symbolizer *s, uint64_t addr, int exact, const struct zt_map *m,
		   struct zt_symres *r, struct place *pl)
{
	struct module *mod;

	memset(r, 0, sizeof *r);
	pl->mod = NULL;
	pl->look = exact ? addr : addr - 1;
	r->name = "[unknown]";
	r->module = "[unknown]";
	if (s->d->have_perfmap && (!m || (!m->path[0] && m->perms[2] == 'x'))) {
		/* JIT code, named by the program's perf map, as perf names it. */
		const struct zt_jitsym *j = zt_raw_jit_at(s->d, pl->look);

		if (j) {
			r->name = j->name;
			r->have_sym = 1;
			r->offset = addr - j->start;
			r->module = s->perfmap;
		} else if (m) {
			r->module = s->perfmap;
		}
		return;
	}
	if (!m)
		return;
	if (s->d->vdso && m->start == s->d->vdso_addr && strcmp(m->path, "[vdso]") == 0 &&
	    (mod = vdso_module(s))) {
		/* Named from its image in the dump; its module stays [vdso]. */
		r->name = m->path;
		r->module = m->path;
		if (zt_elf_offset_to_vaddr(&mod->run, pl->look - m->start + m->offset, &pl->vaddr))
			return;
		pl->mod = mod;
		return;
	}
	if (!zt_maps_is_file(m)) {
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
	if (mod->have_run) {
		if (zt_elf_offset_to_vaddr(&mod->run, pl->look - m->start + m->offset,
					   &pl->vaddr))
			return;
	} else {
		pl->vaddr = pl->look - mod->bias;
	}
	pl->mod = mod;
}

/*
 * The name of the FDE of mod's file that holds vaddr, "[basename+0xSTART]",
 * with *start set; NULL when none does. The FDEs are read on first use, so
 * a file whose every address has a symbol never has its .eh_frame read.
 */
static const char *fde_name(struct zt_symbolizer *s, struct module *mod, uint64_t vaddr,
			    uint64_t *start)
{
	const struct zt_fde *f;
	const char *base;
	size_t i;

	if (!mod->cfi_read) {
		mod->cfi_read = 1;
		zt_ehframe_read(&mod->run, &mod->cfi);
		if (mod->cfi.problem[0])
			warn_once(s, "'%s': corrupt .eh_frame_hdr: %s; .eh_frame read instead",
				  mod->run.path, mod->cfi.problem);
		mod->fdename = zt_calloc(mod->cfi.n ? mod->cfi.n : 1, sizeof *mod->fdename);
	}
	f = zt_ehframe_lookup(&mod->cfi, vaddr);
	if (!f)
		return NULL;
	i = (size_t)(f - mod->cfi.fdes);
	if (!mod->fdename[i]) {
		base = zt_maps_basename(mod->path);
		mod->fdename[i] = zt_malloc(strlen(base) + 22);
		sprintf(mod->fdename[i], "[%s+0x%" PRIx64 "]", base, f->start);
	}
	*start = f->start;
	return mod->fdename[i];
}

/*
 * The second half: the symbol at the place, else its FDE's name, and its
 * lines with --lines.
 */
static void finish(struct zt_symbolizer *s, uint64_t addr, const struct place *pl,
		   struct zt_symres *r)
{
	struct module *mod = pl->mod;
	const struct zt_sym *sym = NULL;
	const char *fname;
	uint64_t fstart;

	if (!mod)
		return;
	if (mod->have_run)
		sym = zt_elf_lookup_plt(&mod->run, pl->vaddr);
	if (!sym)
		sym = zt_elf_lookup(mod->names, pl->vaddr);
	if (!sym && mod->have_run && mod->names != &mod->run)
		sym = zt_elf_lookup(&mod->run, pl->vaddr);
	if (sym) {
		r->name = display_name(s, sym->name);
		r->have_sym = 1;
		r->offset = pl->vaddr + (addr - pl->look) - sym->addr;
	} else if (mod->have_run && !mod->vdso && (fname = fde_name(s, mod, pl->vaddr, &fstart))) {
		r->name = fname;
		r->fde = 1;
		r->offset = pl->vaddr + (addr - pl->look) - fstart;
	}
	if (s->o.lines)
		add_lines(s, mod, pl->vaddr, r);
}

static int cache_eq(void *ctx, uint32_t i, const void *key)
{
	struct zt_symbolizer *s = ctx;
	const struct cached *k = key;

	return s->cache[i].addr == k->addr && s->cache[i].exact == k->exact &&
	       s->cache[i].map == k->map;
}

static void cache_add(struct zt_symbolizer *s, uint64_t h, const struct cached *c)
{
	zt_grow(&s->cache, &s->capcache, s->ncache + 1, sizeof *s->cache);
	s->cache[s->ncache] = *c;
	zt_hash_index_add(&s->cacheix, h, (uint32_t)s->ncache);
	s->ncache++;
}

static uint64_t cache_hash(const struct cached *k)
{
	return zt_hash_u64(k->addr * 2 + (uint64_t)k->exact) ^
	       zt_hash_u64((uint64_t)(uintptr_t)k->map);
}

void zt_symbolize_gen(struct zt_symbolizer *s, uint64_t addr, int exact, uint32_t gen,
		      struct zt_symres *out)
{
	struct cached key = { .addr = addr, .exact = exact != 0 };
	uint64_t h;
	int64_t i;
	struct place pl;

	key.map = zt_raw_map_at(s->d, key.exact ? addr : addr - 1, gen);
	h = cache_hash(&key);
	i = zt_hash_index_find(&s->cacheix, h, cache_eq, s, &key);

	if (i >= 0) {
		*out = s->cache[i].res;
		return;
	}
	locate(s, addr, key.exact, key.map, &key.res, &pl);
	finish(s, addr, &pl, &key.res);
	cache_add(s, h, &key);
	*out = key.res;
}

int zt_symres_same(const struct zt_symres *a, const struct zt_symres *b)
{
	return a->name == b->name && a->module == b->module && a->offset == b->offset &&
	       a->have_sym == b->have_sym && a->fde == b->fde && a->file == b->file &&
	       a->line == b->line && a->inl == b->inl && a->ninl == b->ninl;
}

/* An address of zt_symbolize_all's: sorted by (addr, exact), then first seen. */
struct todo {
	uint64_t addr;
	uint32_t i;		/* its index in the caller's arrays */
	int exact;
	const struct zt_map *map;	/* where it is looked up (its gen's maps) */
};

/*
 * Sort t by (addr, exact), keeping the order of equal ones: a radix sort,
 * least significant byte first, each pass stable, passes skipped where
 * every element has the same byte (the high bytes of user addresses).
 */
static void sort_todo(struct todo *t, size_t n)
{
	struct todo *tmp = zt_malloc(n * sizeof *tmp), *src = t, *dst = tmp;

	for (int pass = -1; pass < 8; pass++) {
		size_t count[256] = { 0 }, pos = 0;

		for (size_t i = 0; i < n; i++)
			count[pass < 0 ? (unsigned)src[i].exact : (src[i].addr >> (8 * pass)) & 0xff]++;
		if (count[pass < 0 ? (unsigned)src[0].exact : (src[0].addr >> (8 * pass)) & 0xff] == n)
			continue;
		for (int c = 0; c < 256; c++) {
			size_t k = count[c];

			count[c] = pos;
			pos += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[pass < 0 ? (unsigned)src[i].exact :
					     (src[i].addr >> (8 * pass)) & 0xff]++] = src[i];
		src = dst;
		dst = src == t ? tmp : t;
	}
	if (src != t)
		memcpy(t, src, n * sizeof *t);
	free(tmp);
}

void zt_symbolize_all(struct zt_symbolizer *s, const uint64_t *addr, const uint8_t *exact,
		      const uint32_t *gen, size_t n, struct zt_symres *out)
{
	struct todo *t;
	struct place *pl;
	uint32_t *first;	/* per index: the sorted position of its first copy */
	uint32_t *ci;		/* per first copy's position: its cache entry */
	char *fresh;		/* per first copy's position: resolved here */
	size_t i, p, distinct = 0, done = 0, named = 0;

	if (n == 0)
		return;
	if (n >= UINT32_MAX)
		zt_out_of_memory("more than 2^32 addresses at once");
	t = zt_malloc(n * sizeof *t);
	first = zt_malloc(n * sizeof *first);
	ci = zt_malloc(n * sizeof *ci);
	fresh = zt_calloc(n, 1);
	pl = zt_malloc(n * sizeof *pl);
	for (i = 0; i < n; i++) {
		t[i].addr = addr[i];
		t[i].exact = exact[i] != 0;
		t[i].i = (uint32_t)i;
		t[i].map = zt_raw_map_at(s->d, t[i].exact ? addr[i] : addr[i] - 1,
					 gen ? gen[i] : ZT_RAW_GEN_ANY);
	}
	sort_todo(t, n);
	/* The head of each run of equal addresses is its first copy. */
	for (p = 0; p < n; p++) {
		first[t[p].i] = p > 0 && t[p].addr == t[p - 1].addr &&
					t[p].exact == t[p - 1].exact && t[p].map == t[p - 1].map ?
				first[t[p - 1].i] : (uint32_t)p;
		distinct += first[t[p].i] == p;
	}
	/*
	 * Modules are opened, and their DWARF's CUs read, in the caller's
	 * order, so that warnings come in the order that one zt_symbolize per
	 * address gives them; symbols and lines are then looked up in address
	 * order, a CU's rows and scopes while they are in the processor's
	 * cache.
	 */
	for (i = 0; i < n; i++) {
		struct cached key = { .addr = addr[i], .exact = exact[i] != 0 };
		int64_t c;

		p = first[i];
		key.map = t[p].map;
		if (t[p].i != i)
			continue;	/* a later copy */
		if ((done++ & 63) == 0 && zt_progress_due())
			zt_progress_show("%zu of %zu distinct addresses located", done - 1, distinct);
		c = s->ncache ? zt_hash_index_find(&s->cacheix, cache_hash(&key), cache_eq, s, &key)
			      : -1;
		if (c >= 0) {
			ci[p] = (uint32_t)c;
			continue;
		}
		fresh[p] = 1;
		locate(s, key.addr, key.exact, key.map, &out[i], &pl[p]);
		if (s->o.lines && pl[p].mod) {
			struct zt_dwarf *dw = module_dwarf(s, pl[p].mod);

			if (dw) {
				zt_dwarf_load(dw, pl[p].vaddr);
				dwarf_warn(s, pl[p].mod, dw);
			}
		}
	}
	/* Room for every fresh one at once: growing copies, into new pages. */
	for (p = 0, i = 0; p < n; p++)
		i += fresh[p] != 0;
	zt_grow(&s->cache, &s->capcache, s->ncache + i, sizeof *s->cache);
	zt_hash_index_reserve(&s->cacheix, i);
	for (p = 0; p < n; p++) {
		struct cached key;

		if (!fresh[p])
			continue;
		if ((named++ & 63) == 0 && zt_progress_due())
			zt_progress_show("%zu of %zu distinct addresses resolved", named - 1, distinct);
		key.addr = t[p].addr;
		key.exact = t[p].exact;
		key.map = t[p].map;
		key.res = out[t[p].i];
		finish(s, key.addr, &pl[p], &key.res);
		ci[p] = (uint32_t)s->ncache;
		cache_add(s, cache_hash(&key), &key);
	}
	for (i = 0; i < n; i++)
		out[i] = s->cache[ci[first[i]]].res;
	free(t);
	free(first);
	free(ci);
	free(fresh);
	free(pl);
}

/*
 * One warning per file that no symbol names the innermost frame of in at
 * least ZT_UNNAMED_PCT percent of the dump's samples, and ZT_UNNAMED_MIN of
 * them: the frame where the sample's time in that file goes (a stripped
 * binary's hot function named from .dynsym counts as named, whatever
 * unnamed static functions called it), in the order the files were first
 * seen: the share, how its frames are named instead, and where names would
 * come from. A file that could not be used, or whose section headers are
 * damaged, has said so already, and gets no second warning; a file is
 * warned about once in a process, whatever the number of dumps read
 * (zt-stat build.raw.gz*), with the share in the first dump where it
 * passes both bounds.
 */
static void unnamed_warnings(struct zt_symbolizer *s)
{
	static struct zt_strtab *warned;	/* "path\nbuild-id" said already */
	const struct zt_raw *d = s->d;
	uint64_t total = 0;

	for (size_t i = 0; i < d->nstacks; i++) {
		const struct zt_stack *st = &d->stacks[i];

		total += st->count;
		/* Leaf first: a file's innermost frame in the stack decides. */
		for (size_t j = st->first; j < st->first + st->naddr; j++) {
			const struct zt_map *m;
			struct zt_symres r;
			struct module *mod;
			int named;

			m = zt_raw_map_at(d, d->exact[j] ? d->addr[j] : d->addr[j] - 1, st->gen);
			if (!m || !zt_maps_is_file(m))
				continue;
			mod = module_for(s, m);
			if (mod->last_stack == i + 1)
				continue;
			mod->last_stack = i + 1;
			if (s->named) {
				named = (s->named[j / 8] & (1u << (j % 8))) != 0;
			} else {
				zt_symbolize_gen(s, d->addr[j], d->exact[j], st->gen, &r);
				named = r.have_sym;
			}
			if (!named)
				mod->unnamed += st->count;	/* modules never move */
		}
	}
	for (size_t i = 0; i < s->nmods && total; i++) {
		const struct module *mod = s->mods[i];
		const char *id = mod->buildid ? mod->buildid :
				 mod->have_run && mod->run.buildid[0] ? mod->run.buildid : NULL;
		const char *base = zt_maps_basename(mod->path);
		char file[200], *key;
		size_t klen;
		int isnew;

		if ((double)mod->unnamed * 100 < ZT_UNNAMED_PCT * (double)total ||
		    mod->unnamed < ZT_UNNAMED_MIN)
			continue;
		/* A file that could not be used, or whose symbols could not be
		 * read, has its warning already. */
		if (mod->state != MOD_OK || (mod->have_run && mod->run.damage))
			continue;
		if (!warned)
			warned = zt_strtab_new();
		/* The file by its path and build-id: once in a process. */
		klen = strlen(mod->path) + 1 + (id ? strlen(id) : 0);
		key = zt_malloc(klen + 1);
		snprintf(key, klen + 1, "%s\n%s", mod->path, id ? id : "");
		zt_strtab_intern(warned, key, klen, &isnew);
		free(key);
		if (!isnew)
			continue;
		if (id && strlen(id) > 2 && strlen(id) < 160)
			snprintf(file, sizeof file, ".build-id/%.2s/%s.debug", id, id + 2);
		else
			snprintf(file, sizeof file, "(found by build-id)");
		warn_once(s, "'%s': no symbol for its innermost frame in %.1f%% of the samples: "
			  "those frames are named [%s%s] %s; for names, put its debug file %s under /usr/lib/debug "
			  "or a --debug-dir (on Debian, install the -dbgsym package of the package "
			  "that 'dpkg -S %s' names)",
			  mod->path, (double)mod->unnamed * 100 / (double)total, base,
			  mod->cfi.n ? "+0xSTART" : "",
			  mod->cfi.n ? "by the .eh_frame function that holds them" :
				       "(it has no .eh_frame)",
			  file, mod->path);
	}
}

void zt_symbolizer_named(struct zt_symbolizer *s, const struct zt_raw *d,
			 const struct zt_symres *res)
{
	size_t n = d->naddr;

	if (d != s->d)
		return;
	free(s->named);
	s->named = zt_calloc(n / 8 + 1, 1);
	for (size_t j = 0; j < n; j++)
		if (res[j].have_sym)
			s->named[j / 8] |= (unsigned char)(1u << (j % 8));
}

const char *const *zt_symbolizer_warnings(struct zt_symbolizer *s, size_t *n)
{
	if (!s->summarized) {
		s->summarized = 1;
		unnamed_warnings(s);
	}
	*n = s->nwarnings;
	return (const char *const *)s->warnings;
}

const char *zt_symbolizer_debuginfod_note(struct zt_symbolizer *s)
{
	size_t n;

	if (!s->dfnoted) {
		s->dfnoted = 1;
		zt_symbolizer_warnings(s, &n);
		/* Every file this symbolizer opens is open now. */
		s->dfnote = zt_debuginfod_report(s->o.debuginfod);
	}
	return s->dfnote;
}

void zt_symbolizer_free(struct zt_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		struct module *mod = s->mods[i];

		free(mod->path);
		free(mod->bracket);
		zt_dwarf_close(mod->dw);
		for (size_t k = 0; mod->fdename && k < mod->cfi.n; k++)
			free(mod->fdename[k]);
		free(mod->fdename);
		zt_ehframe_free(&mod->cfi);
		zt_elf_close(&mod->run);
		zt_elf_close(&mod->dbg);
		free(mod);
	}
	for (size_t i = 0; i < s->nchains; i++)
		free(s->chains[i]);
	free(s->chains);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	for (size_t i = 0; i < s->ndm; i++)
		free(s->dm[i].out);
	free(s->dm);
	free(s->warnings);
	free(s->mods);
	free(s->cache);
	free(s->named);
	free(s->dirs);
	free(s->perfmap);
	if (s->vdso) {
		zt_elf_close(&s->vdso->run);
		free(s->vdso);
	}
	free(s->roots);
	free(s->dfnote);
	zt_hash_index_free(&s->modix);
	zt_hash_index_free(&s->cacheix);
	zt_hash_index_free(&s->dmix);
	free(s);
}
