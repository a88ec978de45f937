/*
 * test-waitframes.c — lib/waitframes.c (a wall-clock profile's wait frames told
 * by their names), lib/threadstates.c (time per thread and state) and the
 * '# zt weight: ns' declaration of lib/weight.c.
 */
#include "unit.h"
#include "threadstates.h"
#include "waitframes.h"
#include "weight.h"

#include <string.h>

#define STATE(s) zt_waitframes_state(s, strlen(s))

UNIT_TEST(wait_frames_are_told_by_their_names)
{
	CHECK(STATE("[futex]") == ZT_STATE_OFF_CPU);
	CHECK(STATE("[read fd 3 pipe]") == ZT_STATE_OFF_CPU);
	CHECK(STATE("[syscall 230]") == ZT_STATE_OFF_CPU);
	CHECK(STATE("[page fault]") == ZT_STATE_OFF_CPU);
	CHECK(STATE("[waiting for a CPU]") == ZT_STATE_RUNQUEUE);
	/* Frames without a symbol are not waits. */
	CHECK(STATE("[unknown]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[vdso]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[truncated]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[depth limit]") == ZT_STATE_ON_CPU);
	/* A CPU sample in the collector's own work. */
	CHECK(STATE("[zt]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[libc.so.6]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[liblzma.so.5+0x15ae0]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[/tmp/x]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[Futex]") == ZT_STATE_ON_CPU);
	CHECK(STATE("futex") == ZT_STATE_ON_CPU);
	CHECK(STATE("[]") == ZT_STATE_ON_CPU);
	CHECK(STATE("[") == ZT_STATE_ON_CPU);
	CHECK(STATE("") == ZT_STATE_ON_CPU);
	CHECK(STATE("hot_a") == ZT_STATE_ON_CPU);
	CHECK_STR(zt_waitframes_state_name(ZT_STATE_RUNQUEUE), "waiting for a CPU");
}

UNIT_TEST(states_sum_per_thread_and_process)
{
	struct zt_threadstates *s = zt_threadstates_new();
	const struct zt_threadstates_row *r;
	size_t n;

	CHECK(zt_threadstates_add(s, "7", 1, "8", 1, "w", 1, ZT_STATE_OFF_CPU, 30) == 0);
	CHECK(zt_threadstates_add(s, "7", 1, "7", 1, "main", 4, ZT_STATE_ON_CPU, 10) == 0);
	CHECK(zt_threadstates_add(s, "7", 1, "7", 1, "main", 4, ZT_STATE_RUNQUEUE, 5) == 0);
	CHECK(zt_threadstates_add(s, "", 0, "", 0, "", 0, ZT_STATE_ON_CPU, 1) == 0);
	CHECK(zt_threadstates_total(s, ZT_STATE_ON_CPU) == 11);
	CHECK(zt_threadstates_total(s, ZT_STATE_OFF_CPU) == 30);
	r = zt_threadstates_rows(s, &n);
	CHECK(n == 3);
	/* The process first, named by its main thread, then its threads by id. */
	CHECK(r[0].pid == 7 && r[0].tid == 0 && strcmp(r[0].name, "main") == 0);
	CHECK(r[0].ns[ZT_STATE_ON_CPU] == 10 && r[0].ns[ZT_STATE_OFF_CPU] == 30 &&
	      r[0].ns[ZT_STATE_RUNQUEUE] == 5);
	CHECK(r[1].tid == 7 && r[1].ns[ZT_STATE_RUNQUEUE] == 5);
	CHECK(r[2].tid == 8 && r[2].ns[ZT_STATE_OFF_CPU] == 30);
	CHECK(zt_threadstates_add(s, "7", 1, "8", 1, "w", 1, ZT_STATE_OFF_CPU, UINT64_MAX) == -1);
	zt_threadstates_free(s);
}

UNIT_TEST(weight_ns_declares_a_wall_clock_profile)
{
	struct zt_weight w = { 0 };
	uint64_t div;
	char line[64];

	CHECK(zt_weight_comment(&w, "# zt weight: ns", 15) == NULL);
	CHECK(w.kind == ZT_WEIGHT_WALL && w.declared);
	CHECK(zt_weight_samples(&w, &div) != NULL);
	CHECK_STR(zt_weight_unit(&w), "ns");
	zt_weight_line(&w, line, sizeof line);
	CHECK_STR(line, "# zt weight: ns");
	memset(&w, 0, sizeof w);
	zt_weight_record(&w, "zt-wall-ns", 10, 10309278);
	CHECK(w.kind == ZT_WEIGHT_WALL);
}
