/*
 * waitframes.c — telling a wall-clock profile's wait frames by their names
 * (waitframes.h).
 */
#include "waitframes.h"

#include <string.h>

/*
 * Names of frames without a symbol that look like waits but are not; "zt",
 * a CPU sample in the collector's own work (ZT_OWN_FRAME).
 */
static const char *const pseudo[] = {
	"unknown", "vdso", "vsyscall", "vvar", "anon", "heap", "stack", "truncated",
	"depth limit", "zt",
};

enum zt_state zt_waitframes_state(const char *name, size_t n)
{
	const char *w = name + 1;
	size_t k = n - 2;

	if (n < 3 || name[0] != '[' || name[n - 1] != ']' || w[0] < 'a' || w[0] > 'z')
		return ZT_STATE_ON_CPU;
	for (size_t i = 0; i < k; i++)
		if (memchr(".+/[]", w[i], 5))
			return ZT_STATE_ON_CPU;
	for (size_t i = 0; i < sizeof pseudo / sizeof *pseudo; i++)
		if (strlen(pseudo[i]) == k && memcmp(w, pseudo[i], k) == 0)
			return ZT_STATE_ON_CPU;
	if (k == sizeof ZT_WAIT_RUNQUEUE - 1 && memcmp(w, ZT_WAIT_RUNQUEUE, k) == 0)
		return ZT_STATE_RUNQUEUE;
	if (zt_waitframes_is_kernel(name, n))
		return ZT_STATE_ON_CPU;
	return ZT_STATE_OFF_CPU;
}

int zt_waitframes_is_kernel(const char *name, size_t n)
{
	return n == sizeof ZT_WAIT_KERNEL + 1 && name[0] == '[' &&
	       memcmp(name + 1, ZT_WAIT_KERNEL, n - 2) == 0 && name[n - 1] == ']';
}

const char *zt_waitframes_state_name(enum zt_state s)
{
	switch (s) {
	case ZT_STATE_ON_CPU: return "on-CPU";
	case ZT_STATE_OFF_CPU: return "off-CPU";
	case ZT_STATE_RUNQUEUE: return ZT_WAIT_RUNQUEUE;
	}
	return "?";
}
