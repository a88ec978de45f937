/*
 * walk.c — frame-pointer walk. Code built with frame pointers starts each
 * function with "push %rbp; mov %rsp, %rbp", so [rbp] holds the caller's rbp
 * and [rbp+8] the return address: a linked list from the interrupted function
 * up to main. Code without frame pointers keeps anything in rbp, so nothing
 * in the list is trusted before it is checked.
 */
#include "walk.h"

size_t zt_walk(uintptr_t pc, uintptr_t fp, uintptr_t low, uintptr_t high,
	       uint64_t *out, size_t max, int *truncated)
{
	size_t depth = 0;
	uintptr_t floor = low;

	*truncated = 0;
	if (max == 0)
		return 0;
	out[depth++] = pc;
	for (;;) {
		const uintptr_t *frame;
		uintptr_t ret, next;

		if (fp < floor || fp % sizeof(uintptr_t) != 0)
			break;
		if (fp >= high || high - fp < 2 * sizeof(uintptr_t))
			break;
		frame = (const uintptr_t *)fp;
		next = frame[0];
		ret = frame[1];
		if (ret == 0)
			break;
		if (depth == max) {
			*truncated = 1;
			break;
		}
		out[depth++] = ret;
		/* The caller's frame must lie strictly above this one. */
		floor = fp + 1;
		fp = next;
	}
	return depth;
}
