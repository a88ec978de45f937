/*
 * pprof.c — a raw dump as pprof's profile.proto (lib/pprof.h): its tables,
 * built from the dump and the symbolizer; a hand-written encoder of the
 * wire format; gzip.
 *
 * What goes where (formats follow profile.proto's field numbers):
 * - one Sample per distinct (thread, stack) of the dump, valued [count,
 *   count x period], labelled with the thread id and name; in a wall-clock
 *   profile (raw version 5) valued [count, its ns] as samples/count and
 *   wall/nanoseconds, labelled with its state too, an off-CPU stack's leaf
 *   location its wait ("[futex]", at address 0), as zt-symbolize's;
 * - one Location per distinct address (and exactness: an exact pc and a
 *   return address are looked up at different addresses), its address as
 *   the dump has it, its Lines the frames zt-symbolize prints for it,
 *   innermost inlined frame first; a partial stack ends in one more
 *   location, the function "[truncated]" ("[depth limit]" for a stack the
 *   collector cut at its max-depth), as zt-symbolize's root frame;
 * - one Mapping per line of the dump's maps that holds a sampled address,
 *   the executable's first;
 * - one Function per name, so that pprof aggregates as zt-fold and zt-stat
 *   do; its file is the first seen with that name.
 * Every name is escaped as zt-symbolize escapes it (formats/symbolized.md),
 * so no name from a binary reaches pprof's terminal raw, and names match
 * zt-fold's.
 */
#include "pprof.h"
#include "symstream.h"
#include "escape.h"
#include "event.h"
#include "hash.h"
#include "rawfmt.h"
#include "maps.h"
#include "util.h"
#include "waitframes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The string's id in the table, escaped when it holds anything to escape. */
static uint64_t str(struct zt_pprof *p, const char *s)
{
	const unsigned char *c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	uint64_t id;

	for (c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f || *c == '\\')
			break;
	if (!*c)
		return zt_strtab_intern(p->strtab, s, strlen(s), NULL);
	f = open_memstream(&buf, &len);
	if (!f)
		zt_out_of_memory("open_memstream");
	zt_escape_fput(f, s, NULL);
	if (fclose(f) != 0)
		zt_out_of_memory("open_memstream");
	id = zt_strtab_intern(p->strtab, buf, len, NULL);
	free(buf);
	return id;
}

static uint64_t strf(struct zt_pprof *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static uint64_t strf(struct zt_pprof *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return str(p, buf);
}

/* The state of one build: what the profile does not keep. */
struct builder {
	struct zt_pprof *p;
	const struct zt_raw *d;
	struct zt_symbolizer *s;
	int lines;
	struct zt_hash_index locix;		/* locations by (address, exact) */
	uint8_t *locexact;		/* per location */
	size_t *locmap;			/* per location: dump map index, or SIZE_MAX */
	uint64_t *func_of;		/* per string id: function id, 0 if none */
	size_t capfunc_of;
	uint8_t *mapflags;		/* per dump map: USED, FILES, LINES */
	uint64_t root[2];		/* "[truncated]" and "[depth limit]", 0 until needed */
	uint64_t own;			/* the "[zt]" location, 0 until needed */
	uint64_t *waitloc;		/* per wait of the dump: its location, 0 until needed */
	int wall;			/* folded: a wall-clock profile's stacks */
};

enum { MAP_USED = 1, MAP_FILES = 2, MAP_LINES = 4 };

/* The function named name (an escaped string id), made on first use. */
static uint64_t function(struct builder *b, const char *name, const char *file)
{
	struct zt_pprof *p = b->p;
	uint64_t n = str(p, name);

	if (n >= b->capfunc_of) {
		size_t old = b->capfunc_of;

		zt_grow(&b->func_of, &b->capfunc_of, n + 1, sizeof *b->func_of);
		memset(b->func_of + old, 0, (b->capfunc_of - old) * sizeof *b->func_of);
	}
	if (!b->func_of[n]) {
		zt_grow(&p->functions, &p->capfunctions, p->nfunctions + 1,
			sizeof *p->functions);
		p->functions[p->nfunctions] = (struct zt_pprof_function){
			.id = p->nfunctions + 1, .name = n,
		};
		b->func_of[n] = ++p->nfunctions;
	}
	/* The first file seen for the name: a function's own. */
	if (file && !p->functions[b->func_of[n] - 1].filename)
		p->functions[b->func_of[n] - 1].filename = str(p, file);
	return b->func_of[n];
}

static void add_line(struct builder *b, const char *name, const char *file, unsigned line)
{
	struct zt_pprof *p = b->p;

	zt_grow(&p->lines, &p->caplines, p->nlines + 1, sizeof *p->lines);
	p->lines[p->nlines].function_id = function(b, name, file);
	p->lines[p->nlines].line = line;
	p->nlines++;
}

static uint64_t new_location(struct builder *b, uint64_t addr, int exact, size_t map)
{
	struct zt_pprof *p = b->p;
	size_t cap = p->caplocations;

	zt_grow(&p->locations, &p->caplocations, p->nlocations + 1, sizeof *p->locations);
	if (p->caplocations != cap) {
		b->locexact = zt_realloc(b->locexact, p->caplocations * sizeof *b->locexact);
		b->locmap = zt_realloc(b->locmap, p->caplocations * sizeof *b->locmap);
	}
	p->locations[p->nlocations] = (struct zt_pprof_location){
		.id = p->nlocations + 1, .address = addr, .first_line = p->nlines,
	};
	b->locexact[p->nlocations] = (uint8_t)exact;
	b->locmap[p->nlocations] = map;
	return ++p->nlocations;
}

struct lockey {
	uint64_t addr;
	int exact;
	size_t map;		/* the dump map index it was found in, or SIZE_MAX */
};

static int loc_eq(void *ctx, uint32_t i, const void *key)
{
	struct builder *b = ctx;
	const struct lockey *k = key;

	return b->p->locations[i].address == k->addr && b->locexact[i] == k->exact &&
	       b->locmap[i] == k->map;
}

/*
 * The location of addr: symbolized on first sight, once, as zt-symbolize
 * does (a return address is looked up at addr - 1, in the mapping that
 * holds addr - 1).
 */
static uint64_t location(struct builder *b, uint64_t addr, int exact, uint32_t gen)
{
	struct lockey k = { addr, exact != 0, SIZE_MAX };
	const struct zt_map *m = zt_raw_map_at(b->d, k.exact ? addr : addr - 1, gen);
	uint64_t h;
	int64_t i;
	struct zt_pprof_location *loc;
	struct zt_symres r;
	size_t map = SIZE_MAX;
	uint64_t id;

	if (m)
		k.map = (size_t)(m - b->d->maps);
	h = zt_hash_u64(addr * 2 + (uint64_t)k.exact) ^ zt_hash_u64(k.map);
	i = zt_hash_index_find(&b->locix, h, loc_eq, b, &k);
	if (i >= 0)
		return b->p->locations[i].id;
	zt_symbolize_gen(b->s, addr, k.exact, gen, &r);
	if (m) {
		map = k.map;
		b->mapflags[map] |= MAP_USED;
		if (r.file)
			b->mapflags[map] |= MAP_FILES | MAP_LINES;
	}
	id = new_location(b, addr, k.exact, map);
	zt_hash_index_add(&b->locix, h, (uint32_t)(id - 1));
	for (size_t j = 0; j < r.ninl; j++)
		add_line(b, r.inl[j].name, r.inl[j].file, r.inl[j].file ? r.inl[j].line : 0);
	add_line(b, r.name, r.file, r.file ? r.line : 0);
	loc = &b->p->locations[id - 1];
	loc->nlines = b->p->nlines - loc->first_line;
	return id;
}

/* Whether partial stack st's outermost frame is a Go runtime root (zt_symstream_go_root). */
static int go_rooted(struct builder *b, const struct zt_raw *d, const struct zt_stack *st)
{
	struct zt_symres r;
	size_t j = st->first + st->naddr - 1;
	char text[256];

	if (!st->naddr)
		return 0;
	zt_symbolize_gen(b->s, d->addr[j], d->exact[j], st->gen, &r);
	if (!r.name || strlen(r.name) + 3 > sizeof text)
		return 0;
	snprintf(text, sizeof text, " %s+", r.name);
	return zt_symstream_go_root(text, strlen(text));
}

/* The root frame of partial stack st, as zt-symbolize prints it. */
static uint64_t root_location(struct builder *b, const struct zt_stack *st)
{
	struct zt_pprof_location *loc;
	int depth = st->partial == ZT_STACK_DEPTH;
	uint64_t *id = &b->root[depth];

	if (*id)
		return *id;
	*id = new_location(b, 0, 1, SIZE_MAX);
	add_line(b, zt_symstream_root_name(st->partial), NULL, 0);
	loc = &b->p->locations[*id - 1];
	loc->nlines = b->p->nlines - loc->first_line;
	return *id;
}

/* The leaf of a stack of zt's own work (raw.h's own): "[zt]". */
static uint64_t own_location(struct builder *b)
{
	struct zt_pprof_location *loc;

	if (b->own)
		return b->own;
	b->own = new_location(b, 0, 1, SIZE_MAX);
	add_line(b, ZT_OWN_FRAME, NULL, 0);
	loc = &b->p->locations[b->own - 1];
	loc->nlines = b->p->nlines - loc->first_line;
	return b->own;
}

/* The leaf of an off-CPU stack: its wait, "[futex]", as zt-symbolize prints it. */
static uint64_t wait_location(struct builder *b, const struct zt_stack *st)
{
	struct zt_pprof_location *loc;
	uint64_t *id = &b->waitloc[st->wait - 1];
	struct zt_out name = { 0 };

	if (*id)
		return *id;
	*id = new_location(b, 0, 1, SIZE_MAX);
	zt_symstream_wait_name(&name, zt_raw_wait(b->d, st), NULL);
	zt_out_byte(&name, '\0');
	add_line(b, name.buf, NULL, 0);
	zt_out_free(&name);
	loc = &b->p->locations[*id - 1];
	loc->nlines = b->p->nlines - loc->first_line;
	return *id;
}

/* A sample's "state" label. */
static uint64_t state_of(struct zt_pprof *p, enum zt_state s)
{
	return str(p, zt_waitframes_state_name(s));
}

static void push_locid(struct zt_pprof *p, uint64_t id)
{
	zt_grow(&p->locids, &p->caplocids, p->nlocids + 1, sizeof *p->locids);
	p->locids[p->nlocids++] = id;
}

static void comment(struct zt_pprof *p, uint64_t id)
{
	zt_grow(&p->comments, &p->capcomments, p->ncomments + 1, sizeof *p->comments);
	p->comments[p->ncomments++] = id;
}

/* The executable's name, as the dump's maps spell it: its mappings go first. */
static int is_exe(const struct zt_raw *d, const struct zt_map *m)
{
	return d->exe && strcmp(d->exe, m->path) == 0;
}

/* Mapping ids: the executable's mappings first (pprof takes mapping 1 as
 * the main binary), then the others, each in address order. */
static void add_mappings(struct builder *b)
{
	struct zt_pprof *p = b->p;
	const struct zt_raw *d = b->d;
	uint64_t *ids = zt_calloc(d->nmaps ? d->nmaps : 1, sizeof *ids);

	p->mappings = zt_calloc(d->nmaps ? d->nmaps : 1, sizeof *p->mappings);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->nmaps; i++) {
			const struct zt_map *m = &d->maps[i];
			struct zt_pprof_mapping *pm = &p->mappings[p->nmappings];

			if (!(b->mapflags[i] & MAP_USED) || is_exe(d, m) != (pass == 0))
				continue;
			pm->id = ids[i] = ++p->nmappings;
			pm->start = m->start;
			pm->limit = m->end;
			pm->offset = m->offset;
			pm->file = str(p, zt_maps_is_file(m) || m->path[0] ? m->path : "//anon");
			pm->build_id = m->buildid ? str(p, m->buildid) : 0;
			/* Every frame has a name, if only "[module]": pprof must not
			 * symbolize again, from a binary that may not be the one
			 * that ran. */
			pm->has_functions = 1;
			pm->has_filenames = !!(b->mapflags[i] & MAP_FILES);
			pm->has_line_numbers = !!(b->mapflags[i] & MAP_LINES);
			pm->has_inline_frames = b->lines && pm->has_line_numbers;
		}
	for (size_t i = 0; i < p->nlocations; i++)
		if (b->locmap[i] != SIZE_MAX)
			p->locations[i].mapping_id = ids[b->locmap[i]];
	free(ids);
}

/* Append to the facts line. */
static void fact(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fact(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/*
 * zt's facts (zt-symbolize's "# zt" lines) as comments, which pprof prints
 * above every report: one line, then one per warning.
 */
static void add_comments(struct zt_pprof *p, const struct zt_raw *d,
			 struct zt_symbolizer *s)
{
	const char *const *warn;
	char buf[1024] = "";
	size_t nwarn;

	fact(buf, sizeof buf, "zt: dump version %d", d->version);
	if (d->have_pid)
		fact(buf, sizeof buf, ", pid %" PRIu64, d->pid);
	fact(buf, sizeof buf, ", %" PRIu64 " samples, %" PRIu64 " lost", d->nsamples, d->lost);
	if (d->lost_detail)
		fact(buf, sizeof buf, " (%s)", d->lost_detail);
	if (d->have_partial)
		fact(buf, sizeof buf, ", %" PRIu64 " partial", d->partial);
	if (d->truncated)
		fact(buf, sizeof buf, ", %" PRIu64 " truncated", d->truncated);
	if (d->unsampled)
		fact(buf, sizeof buf, ", %" PRIu64 " unsampled threads", d->unsampled);
	fact(buf, sizeof buf, ", %u Hz requested, timer %s", d->hz,
	     d->timer ? d->timer : "unknown");
	if (d->rate_cap)
		fact(buf, sizeof buf, " (rate-cap %s)", d->rate_cap);
	if (d->unwind)
		fact(buf, sizeof buf, ", unwind %s", d->unwind);
	if (d->have_cpu)
		fact(buf, sizeof buf, ", cpu-ns %" PRIu64, d->cpu_ns);
	else
		fact(buf, sizeof buf, ", cpu-ns unknown (duration 0)");
	if (d->wall)
		fact(buf, sizeof buf, ", wall-clock profile (off-CPU at %u Hz, %" PRIu64
		     " off-CPU samples, %" PRIu64 " torn)", d->off_cpu_hz, d->off_cpu_samples,
		     d->off_cpu_torn);
	if (zt_raw_has_alloc(d))
		fact(buf, sizeof buf, ", allocation profile (a sample per %" PRIu64 " bytes on "
		     "average, %" PRIu64 " allocation samples, %" PRIu64 " bytes of them)",
		     d->alloc_rate, d->alloc_lines[0], d->alloc_sized[0]);
	if (d->conflict)
		fact(buf, sizeof buf, ", program-sigprof %s", d->conflict);
	if (d->exec)
		fact(buf, sizeof buf, ", exec %s", d->exec);
	/* The wall-clock start, when the dump has it (version 3); otherwise
	 * said, not invented: pprof shows no "Time:" line for 0. */
	if (d->start_time_ns && d->start_time_ns <= INT64_MAX)
		p->time_nanos = (int64_t)d->start_time_ns;
	else
		fact(buf, sizeof buf, "; the dump records no start time");
	comment(p, str(p, buf));
	warn = zt_symbolizer_warnings(s, &nwarn);
	for (size_t i = 0; i < nwarn; i++)
		comment(p, strf(p, "zt: warning: %s", warn[i]));
}

/* v as profile.proto's int64: past 2^63 - 1 it saturates, and is counted. */
static int64_t int64_of(struct zt_pprof *p, uint64_t v)
{
	if (v > INT64_MAX) {
		p->saturated++;
		return INT64_MAX;
	}
	return (int64_t)v;
}

/* count x period, saturated the same way. */
static int64_t int64_times(struct zt_pprof *p, uint64_t count, int64_t period)
{
	if (period > 0 && count > (uint64_t)INT64_MAX / (uint64_t)period) {
		p->saturated++;
		return INT64_MAX;
	}
	return (int64_t)(count * (uint64_t)period);
}

/* The place of an allocation stack's value among a heap profile's sample
   types, by enum zt_alloc_kind: objects first, as Go writes them. */
static const int heap_slot[ZT_ALLOC_KINDS] = {
	[ZT_ALLOC_SPACE] = 1, [ZT_ALLOC_OBJECTS] = 0, [ZT_INUSE_SPACE] = 3,
	[ZT_INUSE_OBJECTS] = 2, [ZT_PEAK_SPACE] = 5, [ZT_PEAK_OBJECTS] = 4,
};

/* Whether stacks a and b are one site: the same thread, maps, size and addresses. */
static int same_site(const struct zt_raw *d, const struct zt_stack *a, const struct zt_stack *b)
{
	return a->tid == b->tid && a->gen == b->gen && a->partial == b->partial &&
	       a->own == b->own && a->size == b->size && a->naddr == b->naddr &&
	       memcmp(d->addr + a->first, d->addr + b->first, a->naddr * sizeof *d->addr) == 0 &&
	       memcmp(d->exact + a->first, d->exact + b->first, a->naddr) == 0;
}

struct zt_pprof *zt_pprof_build(const struct zt_raw *d, struct zt_symbolizer *s, int lines)
{
	return zt_pprof_build_view(d, s, lines, ZT_VIEW_DEFAULT);
}

struct zt_pprof *zt_pprof_build_view(const struct zt_raw *d, struct zt_symbolizer *s,
				     int lines, int view)
{
	static const char *const heap_types[ZT_PPROF_TYPES][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
		{ "peak_inuse_objects", "count" }, { "peak_inuse_space", "bytes" },
	};
	struct zt_pprof *p = zt_calloc(1, sizeof *p);
	struct builder b = { .p = p, .d = d, .s = s, .lines = lines };
	const char *comm = d->exe && *d->exe ? zt_maps_basename(d->exe) : NULL;
	int heap = zt_raw_has_alloc(d) && view != ZT_VIEW_TIME;

	p->strtab = zt_strtab_new();
	str(p, "");
	b.mapflags = zt_calloc(d->nmaps ? d->nmaps : 1, 1);
	if (heap) {
		for (int i = 0; i < ZT_PPROF_TYPES; i++) {
			p->sample_type[i][0] = str(p, heap_types[i][0]);
			p->sample_type[i][1] = str(p, heap_types[i][1]);
		}
		p->nsample_types = ZT_PPROF_TYPES;
		p->default_sample_type = str(p, view >= ZT_VIEW_ALLOC_SPACE ? zt_view_name(view) :
					     "inuse_space");
		p->period_type[0] = str(p, "space");
		p->period_type[1] = str(p, "bytes");
		p->period = int64_of(p, d->alloc_rate);
		p->key_bytes = str(p, "bytes");
	}
	/* A rate gives each sample its CPU time, as Go's profiles do: one
	 * period, 1e9 / hz ns. Without one there is no cpu value. */
	if (!heap) {
		p->sample_type[0][0] = str(p, "samples");
		p->sample_type[0][1] = str(p, "count");
		p->nsample_types = 1;
	}
	if (d->wall && !heap) {
		/* One time axis, on-CPU and off-CPU: each stack's weight. */
		p->sample_type[1][0] = p->period_type[0] = str(p, "wall");
		p->sample_type[1][1] = p->period_type[1] = str(p, "nanoseconds");
		p->nsample_types = 2;
		p->key_state = str(p, "state");
		if (d->off_cpu_hz)
			p->period = (int64_t)((1000000000u + d->off_cpu_hz / 2) / d->off_cpu_hz);
		b.waitloc = zt_calloc(d->nwaits ? d->nwaits : 1, sizeof *b.waitloc);
	} else if (heap) {
		;
	} else if (d->hz) {
		p->sample_type[1][0] = p->period_type[0] = str(p, "cpu");
		p->sample_type[1][1] = p->period_type[1] = str(p, "nanoseconds");
		p->nsample_types = 2;
		p->period = (int64_t)((1000000000u + d->hz / 2) / d->hz);
	}
	p->duration_nanos = d->wall && d->have_wall_ns ? int64_of(p, d->wall_ns) :
			    d->have_cpu ? int64_of(p, d->cpu_ns) : 0;
	p->key_tid = str(p, "tid");
	p->key_thread = str(p, "thread");

	p->samples = zt_calloc(d->nstacks ? d->nstacks : 1, sizeof *p->samples);
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct zt_stack *st = &d->stacks[i];
		struct zt_pprof_sample *sm;
		const char *name = zt_raw_thread_name(d, st->tid);

		/* A heap profile's samples are the allocation stacks', a CPU
		   profile's the others'. */
		if (heap != (st->alloc != ZT_ALLOC_NONE))
			continue;
		sm = &p->samples[p->nsamples++];
		if (heap) {
			/* Bytes and objects of one site (made side by side, raw.c): one sample. */
			sm->value[heap_slot[st->alloc]] = int64_of(p, st->weight);
			if (st->alloc % 2 == 1 && i + 1 < d->nstacks &&
			    d->stacks[i + 1].alloc == st->alloc + 1 &&
			    same_site(d, st, &d->stacks[i + 1])) {
				i++;
				sm->value[heap_slot[st->alloc + 1]] = int64_of(p, d->stacks[i].weight);
			}
			sm->bytes = st->size;
		}
		sm->first_loc = p->nlocids;
		if (d->wall && st->wait)
			push_locid(p, wait_location(&b, st));
		if (st->own)
			push_locid(p, own_location(&b));
		for (size_t j = st->first; j < st->first + st->naddr; j++)
			push_locid(p, location(&b, d->addr[j], d->exact[j], st->gen));
		if (st->partial && !go_rooted(&b, d, st))
			push_locid(p, root_location(&b, st));
		sm->nlocs = p->nlocids - sm->first_loc;
		if (!heap) {
			sm->value[0] = int64_of(p, st->count);
			sm->value[1] = d->wall ? int64_of(p, st->weight) :
				       int64_times(p, st->count, p->period);
		}
		if (d->wall) {
			const char *w = zt_raw_wait(d, st);

			sm->state = state_of(p, !w || strcmp(w, ZT_WAIT_KERNEL) == 0 ? ZT_STATE_ON_CPU :
					     strcmp(w, ZT_WAIT_RUNQUEUE) == 0 ? ZT_STATE_RUNQUEUE :
					     ZT_STATE_OFF_CPU);
		}
		sm->tid = st->tid;
		sm->thread = name && *name ? str(p, name) : comm ? str(p, comm) : 0;
	}
	add_mappings(&b);
	add_comments(p, d, s);

	zt_hash_index_free(&b.locix);
	free(b.locexact);
	free(b.locmap);
	free(b.func_of);
	free(b.mapflags);
	free(b.waitloc);
	return p;
}

struct zt_pprof_folded {
	struct builder b;
	uint64_t *loc_of;	/* per function id: its location id, 0 if none */
	size_t caploc_of;
	uint64_t *counts;	/* per sample, until divided and made int64 */
	size_t capcounts;
};

struct zt_pprof_folded *zt_pprof_folded_new(const char *note)
{
	struct zt_pprof_folded *f = zt_calloc(1, sizeof *f);
	struct zt_pprof *p = zt_calloc(1, sizeof *p);

	f->b.p = p;
	p->strtab = zt_strtab_new();
	str(p, "");
	p->sample_type[0][0] = str(p, "samples");
	p->sample_type[0][1] = str(p, "count");
	p->nsample_types = 1;
	p->key_tid = str(p, "tid");
	p->key_thread = str(p, "thread");
	if (note)
		comment(p, strf(p, "zt: %s", note));
	return f;
}

void zt_pprof_folded_add(struct zt_pprof_folded *f, const char *stack, size_t n,
			 uint64_t count)
{
	struct zt_pprof *p = f->b.p;
	struct zt_pprof_sample *sm;
	size_t end = n, first;

	zt_grow(&p->samples, &p->capsamples, p->nsamples + 1, sizeof *p->samples);
	sm = &p->samples[p->nsamples++];
	*sm = (struct zt_pprof_sample){ .first_loc = p->nlocids };
	/* Leaf first: the frames from the end. */
	while (end > 0) {
		char *name;
		uint64_t fn;

		for (first = end; first > 0 && stack[first - 1] != ';'; first--)
			;
		name = zt_strndup(stack + first, end - first);
		fn = function(&f->b, name, NULL);
		free(name);
		if (fn >= f->caploc_of) {
			size_t old = f->caploc_of;

			zt_grow(&f->loc_of, &f->caploc_of, fn + 1, sizeof *f->loc_of);
			memset(f->loc_of + old, 0, (f->caploc_of - old) * sizeof *f->loc_of);
		}
		if (!f->loc_of[fn]) {
			struct zt_pprof_location *loc;

			f->loc_of[fn] = new_location(&f->b, 0, 0, SIZE_MAX);
			zt_grow(&p->lines, &p->caplines, p->nlines + 1, sizeof *p->lines);
			p->lines[p->nlines++] = (struct zt_pprof_line){ .function_id = fn };
			loc = &p->locations[f->loc_of[fn] - 1];
			loc->nlines = 1;
		}
		push_locid(p, f->loc_of[fn]);
		if (f->b.wall && end == n)
			sm->state = state_of(p, zt_waitframes_state(stack + first, end - first));
		end = first > 0 ? first - 1 : 0;
	}
	sm->nlocs = p->nlocids - sm->first_loc;
	zt_grow(&f->counts, &f->capcounts, p->nsamples, sizeof *f->counts);
	f->counts[p->nsamples - 1] = count;
}

void zt_pprof_folded_alloc(struct zt_pprof_folded *f, int objects)
{
	struct zt_pprof *p = f->b.p;

	p->sample_type[0][0] = str(p, objects ? "objects" : "space");
	p->sample_type[0][1] = str(p, objects ? "count" : "bytes");
}

void zt_pprof_folded_wall(struct zt_pprof_folded *f)
{
	struct zt_pprof *p = f->b.p;

	f->b.wall = 1;
	p->sample_type[0][0] = str(p, "wall");
	p->sample_type[0][1] = str(p, "nanoseconds");
	p->key_state = str(p, "state");
}

struct zt_pprof *zt_pprof_folded_end(struct zt_pprof_folded *f, uint64_t div)
{
	struct zt_pprof *p = f->b.p;

	/* Divided first: a count past 2^63 may be a number of samples below it. */
	for (size_t i = 0; i < p->nsamples; i++)
		p->samples[i].value[0] = int64_of(p, div > 1 ? f->counts[i] / div : f->counts[i]);
	free(f->counts);
	free(f->b.locexact);
	free(f->b.locmap);
	free(f->b.func_of);
	free(f->loc_of);
	free(f);
	return p;
}

size_t zt_pprof_folded_samples(const struct zt_pprof_folded *f)
{
	return f->b.p->nsamples;
}

void zt_pprof_folded_divide(struct zt_pprof_folded *f, size_t from, uint64_t div)
{
	for (size_t i = from; i < f->b.p->nsamples && div > 1; i++)
		f->counts[i] /= div;
}

/* The name of string id in p's table. */
static const char *name_of(const struct zt_pprof *p, uint64_t id)
{
	size_t len;

	return zt_strtab_key(p->strtab, (uint32_t)id, &len);
}

/* Whether p's and q's sample types (and so their values) can be added. */
static int same_types(const struct zt_pprof *p, const struct zt_pprof *q)
{
	if (p->nsample_types != q->nsample_types)
		return 0;
	for (size_t i = 0; i < p->nsample_types; i++)
		for (int k = 0; k < 2; k++)
			if (strcmp(name_of(p, p->sample_type[i][k]),
				   name_of(q, q->sample_type[i][k])) != 0)
				return 0;
	return 1;
}

/* "samples/count cpu/nanoseconds", p's sample types. */
static void types_text(const struct zt_pprof *p, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (size_t i = 0; i < p->nsample_types; i++)
		fact(buf, cap, "%s%s/%s", i ? " " : "", name_of(p, p->sample_type[i][0]),
		     name_of(p, p->sample_type[i][1]));
}

/*
 * The indexes of a profile's tables that merging looks things up in, as
 * pprof's own merge (profile.Merge) keys them: a function by its names and
 * file; a mapping by its size (rounded up to pages), offset and build-id
 * (or file), not its start, which address-space randomization moves; a
 * location by its mapping, its address within that mapping and its lines;
 * a sample by its locations and labels. Built on the first merge, and
 * kept up with every entry added, so that a profile of any number of
 * inputs holds each distinct one once.
 */
struct zt_pprof_index {
	struct zt_hash_index f, m, l, s, c;
	size_t nf, nm, nl, ns, nc;	/* entries indexed so far */
};

/* A key looked up in p's tables: an entry of q's, with p's ids. */
struct mkey {
	const struct zt_pprof *p;
	const void *e;		/* the entry, its ids p's */
	const struct zt_pprof_line *lines;	/* a location's, p's function ids */
	const uint64_t *locids;	/* a sample's, p's ids */
};

static uint64_t map_size(const struct zt_pprof_mapping *m)
{
	return (m->limit - m->start + 0xfff) & ~(uint64_t)0xfff;
}

static uint64_t map_name(const struct zt_pprof_mapping *m)
{
	return m->build_id ? m->build_id : m->file;
}

/* Where a location's address is, in its mapping (its address if none). */
static uint64_t loc_rel(const struct zt_pprof *p, const struct zt_pprof_location *l)
{
	return l->mapping_id ? l->address - p->mappings[l->mapping_id - 1].start : l->address;
}

static uint64_t fn_hash(const struct zt_pprof_function *f)
{
	return zt_hash_u64(f->name) ^ zt_hash_u64(f->system_name * 3 + 1) ^
	       zt_hash_u64(f->filename * 5 + 2);
}

static uint64_t map_hash(const struct zt_pprof_mapping *m)
{
	return zt_hash_u64(map_size(m)) ^ zt_hash_u64(m->offset * 3 + 1) ^
	       zt_hash_u64(map_name(m) * 5 + 2);
}

static uint64_t loc_hash(uint64_t mapping, uint64_t rel, const struct zt_pprof_line *lines,
			 size_t n)
{
	uint64_t h = zt_hash_u64(mapping) ^ zt_hash_u64(rel * 3 + 1);

	for (size_t i = 0; i < n; i++)
		h = zt_hash_u64(h ^ lines[i].function_id) ^ zt_hash_u64((uint64_t)lines[i].line);
	return h;
}

static uint64_t sample_hash(const struct zt_pprof_sample *sm, const uint64_t *locids)
{
	uint64_t h = zt_hash_u64((uint64_t)sm->tid) ^ zt_hash_u64(sm->thread * 3 + 1) ^
		     zt_hash_u64(sm->state * 5 + 2) ^ zt_hash_u64(sm->bytes * 7 + 3);

	return zt_hash(locids, sm->nlocs * sizeof *locids, h);
}

static int fn_eq(void *ctx, uint32_t e, const void *key)
{
	const struct zt_pprof_function *a = &((struct zt_pprof *)ctx)->functions[e];
	const struct zt_pprof_function *b = ((const struct mkey *)key)->e;

	return a->name == b->name && a->system_name == b->system_name &&
	       a->filename == b->filename;
}

static int map_eq(void *ctx, uint32_t e, const void *key)
{
	const struct zt_pprof_mapping *a = &((struct zt_pprof *)ctx)->mappings[e];
	const struct zt_pprof_mapping *b = ((const struct mkey *)key)->e;

	return map_size(a) == map_size(b) && a->offset == b->offset &&
	       map_name(a) == map_name(b);
}

static int loc_eq_merged(void *ctx, uint32_t e, const void *key)
{
	const struct zt_pprof *p = ctx;
	const struct zt_pprof_location *a = &p->locations[e];
	const struct mkey *k = key;
	const struct zt_pprof_location *b = k->e;

	if (a->mapping_id != b->mapping_id || a->nlines != b->nlines ||
	    loc_rel(p, a) != loc_rel(p, b))
		return 0;
	for (size_t i = 0; i < a->nlines; i++)
		if (p->lines[a->first_line + i].function_id != k->lines[i].function_id ||
		    p->lines[a->first_line + i].line != k->lines[i].line)
			return 0;
	return 1;
}

static int comment_eq(void *ctx, uint32_t e, const void *key)
{
	return ((struct zt_pprof *)ctx)->comments[e] == *(const uint64_t *)key;
}

static int sample_eq(void *ctx, uint32_t e, const void *key)
{
	const struct zt_pprof *p = ctx;
	const struct zt_pprof_sample *a = &p->samples[e];
	const struct mkey *k = key;
	const struct zt_pprof_sample *b = k->e;

	return a->nlocs == b->nlocs && a->tid == b->tid && a->thread == b->thread &&
	       a->state == b->state && a->bytes == b->bytes &&
	       memcmp(p->locids + a->first_loc, k->locids, a->nlocs * sizeof *k->locids) == 0;
}

/* p's indexes, holding every entry of its tables. */
static struct zt_pprof_index *index_of(struct zt_pprof *p)
{
	struct zt_pprof_index *ix = p->index;

	if (!ix)
		ix = p->index = zt_calloc(1, sizeof *ix);
	for (; ix->nf < p->nfunctions; ix->nf++)
		zt_hash_index_add(&ix->f, fn_hash(&p->functions[ix->nf]), (uint32_t)ix->nf);
	for (; ix->nm < p->nmappings; ix->nm++)
		zt_hash_index_add(&ix->m, map_hash(&p->mappings[ix->nm]), (uint32_t)ix->nm);
	for (; ix->nl < p->nlocations; ix->nl++) {
		const struct zt_pprof_location *l = &p->locations[ix->nl];

		zt_hash_index_add(&ix->l, loc_hash(l->mapping_id, loc_rel(p, l),
						   p->lines + l->first_line, l->nlines),
				  (uint32_t)ix->nl);
	}
	for (; ix->ns < p->nsamples; ix->ns++) {
		const struct zt_pprof_sample *sm = &p->samples[ix->ns];

		zt_hash_index_add(&ix->s, sample_hash(sm, p->locids + sm->first_loc),
				  (uint32_t)ix->ns);
	}
	for (; ix->nc < p->ncomments; ix->nc++)
		zt_hash_index_add(&ix->c, zt_hash_u64(p->comments[ix->nc]), (uint32_t)ix->nc);
	return ix;
}

/* a + b, or 2^63 - 1 (counted) when it does not fit. */
static int64_t add_value(struct zt_pprof *p, int64_t a, int64_t b)
{
	if (a > INT64_MAX - b) {
		p->saturated++;
		return INT64_MAX;
	}
	return a + b;
}

const char *zt_pprof_merge(struct zt_pprof *p, const struct zt_pprof *q, char *why,
			   size_t cap)
{
	uint32_t nstr = zt_strtab_count(q->strtab);
	uint64_t *sid = zt_calloc(nstr ? nstr : 1, sizeof *sid);
	/* q's function, mapping and location ids (1, 2, ...) as p's. */
	uint64_t *fid = zt_calloc(q->nfunctions + 1, sizeof *fid);
	uint64_t *mid = zt_calloc(q->nmappings + 1, sizeof *mid);
	uint64_t *lid = zt_calloc(q->nlocations + 1, sizeof *lid);
	int64_t *shift = zt_calloc(q->nmappings + 1, sizeof *shift);
	struct zt_pprof_line *lines = NULL;
	uint64_t *locids = NULL;
	size_t caplines = 0, caplocids = 0;
	struct zt_pprof_index *ix;
	struct mkey k = { .p = p };
	char a[128], b[128];
	int64_t e;

	if (!same_types(p, q)) {
		types_text(p, a, sizeof a);
		types_text(q, b, sizeof b);
		snprintf(why, cap, "its values are %s, the first input's %s: they cannot be "
			 "added", b, a);
		free(sid);
		free(fid);
		free(mid);
		free(lid);
		free(shift);
		return why;
	}
	for (uint32_t i = 0; i < nstr; i++) {
		size_t len;
		const char *key = zt_strtab_key(q->strtab, i, &len);

		sid[i] = zt_strtab_intern(p->strtab, key, len, NULL);
	}
	ix = index_of(p);
	for (size_t i = 0; i < q->nfunctions; i++) {
		struct zt_pprof_function fn = q->functions[i];
		uint64_t h;

		fn.name = sid[fn.name];
		fn.system_name = sid[fn.system_name];
		fn.filename = sid[fn.filename];
		k.e = &fn;
		h = fn_hash(&fn);
		if ((e = zt_hash_index_find(&ix->f, h, fn_eq, p, &k)) < 0) {
			e = (int64_t)p->nfunctions;
			fn.id = p->nfunctions + 1;
			zt_grow(&p->functions, &p->capfunctions, p->nfunctions + 1,
				sizeof *p->functions);
			p->functions[p->nfunctions++] = fn;
			zt_hash_index_add(&ix->f, h, (uint32_t)ix->nf++);
		}
		fid[q->functions[i].id] = (uint64_t)e + 1;
	}
	p->mappings = zt_realloc(p->mappings, (p->nmappings + q->nmappings + 1) *
				 sizeof *p->mappings);
	for (size_t i = 0; i < q->nmappings; i++) {
		struct zt_pprof_mapping m = q->mappings[i], *pm;
		uint64_t h;

		m.file = sid[m.file];
		m.build_id = sid[m.build_id];
		k.e = &m;
		h = map_hash(&m);
		if ((e = zt_hash_index_find(&ix->m, h, map_eq, p, &k)) < 0) {
			e = (int64_t)p->nmappings;
			m.id = p->nmappings + 1;
			p->mappings[p->nmappings++] = m;
			zt_hash_index_add(&ix->m, h, (uint32_t)ix->nm++);
		}
		/* One mapping of both: what one profile knows of it, it knows. */
		pm = &p->mappings[e];
		pm->has_filenames |= m.has_filenames;
		pm->has_line_numbers |= m.has_line_numbers;
		pm->has_inline_frames |= m.has_inline_frames;
		mid[q->mappings[i].id] = (uint64_t)e + 1;
		/* q's addresses in it as p's (address-space randomization apart). */
		shift[q->mappings[i].id] = (int64_t)(pm->start - q->mappings[i].start);
	}
	for (size_t i = 0; i < q->nlocations; i++) {
		struct zt_pprof_location l = q->locations[i];
		uint64_t h;

		zt_grow(&lines, &caplines, l.nlines ? l.nlines : 1, sizeof *lines);
		for (size_t j = 0; j < l.nlines; j++) {
			lines[j] = q->lines[l.first_line + j];
			lines[j].function_id = fid[lines[j].function_id];
		}
		if (l.mapping_id) {
			l.address = (uint64_t)((int64_t)l.address + shift[l.mapping_id]);
			l.mapping_id = mid[l.mapping_id];
		}
		k.e = &l;
		k.lines = lines;
		h = loc_hash(l.mapping_id, loc_rel(p, &l), lines, l.nlines);
		if ((e = zt_hash_index_find(&ix->l, h, loc_eq_merged, p, &k)) < 0) {
			e = (int64_t)p->nlocations;
			l.id = p->nlocations + 1;
			l.first_line = p->nlines;
			zt_grow(&p->lines, &p->caplines, p->nlines + l.nlines, sizeof *p->lines);
			memcpy(p->lines + p->nlines, lines, l.nlines * sizeof *lines);
			p->nlines += l.nlines;
			zt_grow(&p->locations, &p->caplocations, p->nlocations + 1,
				sizeof *p->locations);
			p->locations[p->nlocations++] = l;
			zt_hash_index_add(&ix->l, h, (uint32_t)ix->nl++);
		}
		lid[q->locations[i].id] = (uint64_t)e + 1;
	}
	for (size_t i = 0; i < q->nsamples; i++) {
		struct zt_pprof_sample sm = q->samples[i];
		uint64_t h;

		zt_grow(&locids, &caplocids, sm.nlocs ? sm.nlocs : 1, sizeof *locids);
		for (size_t j = 0; j < sm.nlocs; j++)
			locids[j] = lid[q->locids[sm.first_loc + j]];
		sm.thread = sid[sm.thread];
		sm.state = sid[sm.state];
		k.e = &sm;
		k.locids = locids;
		h = sample_hash(&sm, locids);
		if ((e = zt_hash_index_find(&ix->s, h, sample_eq, p, &k)) >= 0) {
			for (int v = 0; v < ZT_PPROF_TYPES; v++)
				p->samples[e].value[v] = add_value(p, p->samples[e].value[v],
								   sm.value[v]);
			continue;
		}
		sm.first_loc = p->nlocids;
		zt_grow(&p->locids, &p->caplocids, p->nlocids + sm.nlocs, sizeof *p->locids);
		memcpy(p->locids + p->nlocids, locids, sm.nlocs * sizeof *locids);
		p->nlocids += sm.nlocs;
		zt_grow(&p->samples, &p->capsamples, p->nsamples + 1, sizeof *p->samples);
		p->samples[p->nsamples++] = sm;
		zt_hash_index_add(&ix->s, h, (uint32_t)ix->ns++);
	}
	free(lines);
	free(locids);
	free(fid);
	free(mid);
	free(lid);
	free(shift);
	/* A comment once, as pprof's merge has them (one run's facts are its own). */
	for (size_t i = 0; i < q->ncomments; i++) {
		uint64_t c = sid[q->comments[i]], h = zt_hash_u64(c);

		if (zt_hash_index_find(&ix->c, h, comment_eq, p, &c) < 0) {
			comment(p, c);
			zt_hash_index_add(&ix->c, h, (uint32_t)ix->nc++);
		}
	}
	/* One profile of several runs: their durations add up, it starts
	   with the first, and its period is theirs when they share one. */
	if (p->period != q->period)
		p->period = 0;
	if (q->time_nanos && (!p->time_nanos || q->time_nanos < p->time_nanos))
		p->time_nanos = q->time_nanos;
	p->duration_nanos = p->duration_nanos > INT64_MAX - q->duration_nanos ? INT64_MAX :
			    p->duration_nanos + q->duration_nanos;
	p->saturated += q->saturated;
	free(sid);
	return NULL;
}

void zt_pprof_free(struct zt_pprof *p)
{
	if (!p)
		return;
	zt_strtab_free(p->strtab);
	free(p->samples);
	free(p->locids);
	free(p->mappings);
	free(p->locations);
	free(p->lines);
	free(p->functions);
	free(p->comments);
	if (p->index) {
		zt_hash_index_free(&p->index->f);
		zt_hash_index_free(&p->index->m);
		zt_hash_index_free(&p->index->l);
		zt_hash_index_free(&p->index->s);
		zt_hash_index_free(&p->index->c);
		free(p->index);
	}
	free(p);
}

/*
 * The wire format. A message is written in place, then its key and length
 * are put in front of it (a memmove of the message, which is small: a
 * sample, a location), so one buffer serves every level of nesting.
 */
struct buf {
	unsigned char *b;
	size_t n, cap;
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static size_t varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	zt_grow(&b->b, &b->cap, b->n + 10, 1);
	b->n += varint(b->b + b->n, v);
}

/* A scalar field; proto3 leaves out zeros. int64 values are sent as their
 * two's complement, as uint64. */
static void put_field(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	put_varint(b, v);
}

/* Close the message (or packed field) that began at mark as field. */
static void end_len(struct buf *b, size_t mark, unsigned field)
{
	unsigned char head[20];
	size_t len = b->n - mark, h;

	h = varint(head, (uint64_t)field << 3 | WIRE_LEN);
	h += varint(head + h, len);
	zt_grow(&b->b, &b->cap, b->n + h, 1);
	memmove(b->b + mark + h, b->b + mark, len);
	memcpy(b->b + mark, head, h);
	b->n += h;
}

static void put_packed(struct buf *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t mark = b->n;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		put_varint(b, v[i]);
	end_len(b, mark, field);
}

static void put_value_type(struct buf *b, unsigned field, const uint64_t vt[2])
{
	size_t mark = b->n;

	put_field(b, 1, vt[0]);
	put_field(b, 2, vt[1]);
	end_len(b, mark, field);
}

static void put_label(struct buf *b, uint64_t key, uint64_t s, uint64_t num)
{
	size_t mark = b->n;

	put_field(b, 1, key);
	put_field(b, 2, s);
	put_field(b, 3, num);
	end_len(b, mark, 3);
}

unsigned char *zt_pprof_encode(const struct zt_pprof *p, size_t *len)
{
	struct buf b = { 0 };
	uint32_t nstr = zt_strtab_count(p->strtab);

	for (size_t i = 0; i < p->nsample_types; i++)
		put_value_type(&b, 1, p->sample_type[i]);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct zt_pprof_sample *s = &p->samples[i];
		uint64_t v[ZT_PPROF_TYPES];
		size_t mark = b.n;

		for (int k = 0; k < ZT_PPROF_TYPES; k++)
			v[k] = (uint64_t)s->value[k];

		put_packed(&b, 1, p->locids + s->first_loc, s->nlocs);
		put_packed(&b, 2, v, p->nsample_types);
		put_label(&b, p->key_tid, 0, (uint64_t)s->tid);
		if (s->thread)
			put_label(&b, p->key_thread, s->thread, 0);
		if (s->state)
			put_label(&b, p->key_state, s->state, 0);
		if (s->bytes)
			put_label(&b, p->key_bytes, 0, s->bytes);
		end_len(&b, mark, 2);
	}
	for (size_t i = 0; i < p->nmappings; i++) {
		const struct zt_pprof_mapping *m = &p->mappings[i];
		size_t mark = b.n;

		put_field(&b, 1, m->id);
		put_field(&b, 2, m->start);
		put_field(&b, 3, m->limit);
		put_field(&b, 4, m->offset);
		put_field(&b, 5, m->file);
		put_field(&b, 6, m->build_id);
		put_field(&b, 7, (uint64_t)m->has_functions);
		put_field(&b, 8, (uint64_t)m->has_filenames);
		put_field(&b, 9, (uint64_t)m->has_line_numbers);
		put_field(&b, 10, (uint64_t)m->has_inline_frames);
		end_len(&b, mark, 3);
	}
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct zt_pprof_location *l = &p->locations[i];
		size_t mark = b.n;

		put_field(&b, 1, l->id);
		put_field(&b, 2, l->mapping_id);
		put_field(&b, 3, l->address);
		for (size_t j = l->first_line; j < l->first_line + l->nlines; j++) {
			size_t lmark = b.n;

			put_field(&b, 1, p->lines[j].function_id);
			put_field(&b, 2, (uint64_t)p->lines[j].line);
			end_len(&b, lmark, 4);
		}
		end_len(&b, mark, 4);
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct zt_pprof_function *f = &p->functions[i];
		size_t mark = b.n;

		put_field(&b, 1, f->id);
		put_field(&b, 2, f->name);
		put_field(&b, 3, f->system_name);
		put_field(&b, 4, f->filename);
		end_len(&b, mark, 5);
	}
	/* Every string, the empty one at 0 too: their place is their id. */
	for (uint32_t i = 0; i < nstr; i++) {
		size_t n, mark;
		const char *s = zt_strtab_key(p->strtab, i, &n);

		mark = b.n;
		zt_grow(&b.b, &b.cap, b.n + n, 1);
		memcpy(b.b + b.n, s, n);
		b.n += n;
		end_len(&b, mark, 6);
	}
	put_field(&b, 9, (uint64_t)p->time_nanos);
	put_field(&b, 10, (uint64_t)p->duration_nanos);
	if (p->period_type[0])
		put_value_type(&b, 11, p->period_type);
	put_field(&b, 12, (uint64_t)p->period);
	put_packed(&b, 13, p->comments, p->ncomments);
	put_field(&b, 14, p->default_sample_type);
	*len = b.n;
	return b.b ? b.b : zt_malloc(1);
}

int zt_pprof_write(const unsigned char *buf, size_t len, FILE *f, char *err, size_t errlen)
{
	unsigned char out[1 << 16];
	z_stream z;
	size_t left = len;
	int rc;

	memset(&z, 0, sizeof z);
	/* 15 + 16: a gzip wrapper, with no name and mtime 0: the same
	 * profile gives the same bytes. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(err, errlen, "gzip: %s", z.msg ? z.msg : "cannot start");
		return -1;
	}
	z.next_in = (unsigned char *)buf;
	do {
		/* zlib counts input in uInt: feed a larger buffer in parts. */
		if (z.avail_in == 0 && left) {
			z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof out;
		rc = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
		if (rc == Z_STREAM_ERROR) {
			deflateEnd(&z);
			snprintf(err, errlen, "gzip: %s", z.msg ? z.msg : "stream error");
			return -1;
		}
		if (fwrite(out, 1, sizeof out - z.avail_out, f) != sizeof out - z.avail_out) {
			int e = errno;

			deflateEnd(&z);
			err[0] = 0;
			errno = e;
			return -1;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}
