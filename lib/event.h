/*
 * event.h — the views of a profile that the analysis tools' --event picks
 * (formats/symbolized.md, "Allocation profiles"): the sampled time (CPU
 * samples, or a wall-clock profile's ns), and an allocation profile's
 * views by the names pprof gives a heap profile's sample types, each the
 * records of one event of zt-symbolize's stream.
 *
 *   time                 zt-samples or zt-wall-ns (perf script: its first event)
 *   alloc_space          zt-alloc-bytes     estimated bytes allocated
 *   alloc_objects        zt-alloc-objects   estimated allocations
 *   inuse_space          zt-inuse-bytes     estimated bytes live at the end
 *   inuse_objects        zt-inuse-objects   estimated blocks live at the end
 *   peak_inuse_space     zt-peak-bytes      estimated bytes live at the peak
 *   peak_inuse_objects   zt-peak-objects    estimated blocks live at the peak
 *
 * Without --event (ZT_VIEW_DEFAULT) the tools show the time when the input
 * has CPU samples, and alloc_space when it is an allocation profile with
 * none (lib/perfscript.c decides, from the stream's facts).
 */
#ifndef ZT_EVENT_H
#define ZT_EVENT_H

#include <stddef.h>

/* ZT_VIEW_ALLOC_SPACE + k - 1 is enum zt_alloc_kind k's view (raw.h). */
enum zt_event_view {
	ZT_VIEW_DEFAULT,
	ZT_VIEW_TIME,
	ZT_VIEW_ALLOC_SPACE, ZT_VIEW_ALLOC_OBJECTS,
	ZT_VIEW_INUSE_SPACE, ZT_VIEW_INUSE_OBJECTS,
	ZT_VIEW_PEAK_SPACE, ZT_VIEW_PEAK_OBJECTS,
	ZT_VIEWS
};

/* The names --event takes, for messages. */
#define ZT_VIEW_NAMES "time, alloc_space, alloc_objects, inuse_space, inuse_objects, " \
	"peak_inuse_space or peak_inuse_objects"

/* The option's row, for a tool's table of struct zt_opt (usage.h); taken
   by zt_symargs_take (symargs.h) into its opts.view. */
#define ZT_EVENT_ROW \
	{ ZT_SYMARGS_EVENT, "event", required_argument, "NAME", \
	  "which records: time (CPU samples or wall-clock\n" \
	  "ns), or of an allocation profile alloc_space,\n" \
	  "alloc_objects, inuse_space, inuse_objects,\n" \
	  "peak_inuse_space, peak_inuse_objects (default:\n" \
	  "time, alloc_space when there is no CPU sample)" }

/* The view named name, or -1. */
int zt_view_by_name(const char *name);

/* A view's name ("alloc_space"); "time" for ZT_VIEW_TIME and the default. */
const char *zt_view_name(int view);

/* The stream's event of an allocation view ("zt-alloc-bytes"), NULL for
   the others. */
const char *zt_view_event(int view);

/* The allocation view whose records are of event ev (n bytes), or 0. */
int zt_view_of_event(const char *ev, size_t n);

/* Whether an allocation view counts objects (else bytes). */
int zt_view_objects(int view);

/*
 * The pprof (sample type, unit) of an allocation view: ("alloc_space",
 * "bytes"), ("alloc_objects", "count"), ...
 */
const char *zt_view_unit(int view);

#endif
