/*
 * event.c — the views --event names (see event.h).
 */
#include "event.h"
#include "rawfmt.h"

#include <string.h>

static const struct {
	const char *name, *event;
} views[ZT_VIEWS] = {
	[ZT_VIEW_DEFAULT] = { "time", NULL },
	[ZT_VIEW_TIME] = { "time", NULL },
	[ZT_VIEW_ALLOC_SPACE] = { "alloc_space", ZT_EVENT_ALLOC_BYTES },
	[ZT_VIEW_ALLOC_OBJECTS] = { "alloc_objects", ZT_EVENT_ALLOC_OBJECTS },
	[ZT_VIEW_INUSE_SPACE] = { "inuse_space", ZT_EVENT_INUSE_BYTES },
	[ZT_VIEW_INUSE_OBJECTS] = { "inuse_objects", ZT_EVENT_INUSE_OBJECTS },
	[ZT_VIEW_PEAK_SPACE] = { "peak_inuse_space", ZT_EVENT_PEAK_BYTES },
	[ZT_VIEW_PEAK_OBJECTS] = { "peak_inuse_objects", ZT_EVENT_PEAK_OBJECTS },
};

int zt_view_by_name(const char *name)
{
	for (int v = ZT_VIEW_TIME; v < ZT_VIEWS; v++)
		if (strcmp(name, views[v].name) == 0)
			return v;
	return -1;
}

const char *zt_view_name(int view)
{
	return view >= 0 && view < ZT_VIEWS ? views[view].name : "time";
}

const char *zt_view_event(int view)
{
	return view >= 0 && view < ZT_VIEWS ? views[view].event : NULL;
}

int zt_view_of_event(const char *ev, size_t n)
{
	/* Every allocation event starts "zt-": most events need no loop. */
	if (n < 3 || memcmp(ev, "zt-", 3) != 0)
		return 0;
	for (int v = ZT_VIEW_ALLOC_SPACE; v < ZT_VIEWS; v++)
		if (strlen(views[v].event) == n && memcmp(ev, views[v].event, n) == 0)
			return v;
	return 0;
}

int zt_view_objects(int view)
{
	return view >= ZT_VIEW_ALLOC_SPACE && (view - ZT_VIEW_ALLOC_SPACE) % 2 == 1;
}

const char *zt_view_unit(int view)
{
	return zt_view_objects(view) ? "count" : "bytes";
}
