/*
 * unwind.c — the unwinder the handler runs, one frame at a time.
 *
 * Where the frame's object has CFI (cfi.h), its row says where the caller's
 * stack pointer (the CFA), return address and rbp are: this works in code
 * built without frame pointers and in leaves that never set one up. Where
 * it has none, the frame-pointer chain is followed: code built with frame
 * pointers starts each function with "push %rbp; mov %rsp, %rbp", so [rbp]
 * holds the caller's rbp and [rbp+8] the return address. Nothing read from
 * the stack is trusted before it is checked.
 *
 * A walk is complete when it reaches a frame whose return address is
 * undefined (the CFI of _start and of a new thread's clone say so), or a
 * frame-pointer frame whose saved rbp is 0 (the ABI's mark of the outermost
 * frame, set by _start and clone), and no frame on the way was a guess: a
 * frame-pointer step at a pc whose row is BAD (a rule zt does not follow,
 * or an FDE rejected as outside its object's code) marks it partial.
 *
 * A frame-pointer step is a guess too: rbp may be a general register (gmp's
 * assembly), or the frame may be a leaf that never pushed one, whose step
 * then skips its caller. So where the set knows the loaded objects'
 * segments, every return address must lie in code, and a frame-pointer
 * step is taken only when it checks out (step_checks): the return address
 * follows a call instruction; a direct call's callee (through the PLT
 * slot) is not a function with CFI, when the frame has none (it would be
 * the function whose record was found, not this frame's); and the caller's
 * own row, applied to the frame the step lands in, leads to code again.
 * A step that fails ends the walk, as partial. Code is read only inside
 * the segments of objects the set lists, and not at all while a dlclose
 * may be unmapping one (r->no_code: the step is then a guess).
 */
#include "unwind.h"

/* Offsets in the ucontext a signal frame's rsp points at (x86-64 Linux). */
enum { UC_RBP = 40 + 10 * 8, UC_RBX = 40 + 11 * 8, UC_RSP = 40 + 15 * 8,
       UC_RIP = 40 + 16 * 8 };

/* The region of r that holds the 8 bytes at a: 0 for [low, high), 1 + i for extra[i]; -1 if none. */
static int region_of(const struct zt_regs *r, uintptr_t a)
{
	if (a >= r->low && a < r->high && r->high - a >= 8)
		return 0;
	for (int i = 0; i < ZT_UNWIND_EXTRA; i++)
		if (a >= r->extra[i].lo && a < r->extra[i].hi && r->extra[i].hi - a >= 8)
			return 1 + i;
	return -1;
}

/* The 8-byte word at a, if it lies inside one of r's regions and is aligned. */
static int load(const struct zt_regs *r, uintptr_t a, uintptr_t *v)
{
	int i = a % 8 == 0 ? region_of(r, a) : -1;
	const struct zt_stack_range *x;

	if (i < 0)
		return 0;
	if (i == 0) {
		*v = *(const uintptr_t *)a;
		return 1;
	}
	x = &r->extra[i - 1];
	if (x->copy)
		__builtin_memcpy(v, x->copy + (a - x->lo), sizeof *v);
	else
		*v = *(const uintptr_t *)a;
	return 1;
}

/*
 * Whether the walk may go from stack pointer sp to next (the caller's
 * frame): up within sp's region (or to sp itself when same is set), or into
 * a region not visited yet (*seen has a bit per region). next must itself
 * lie in a region.
 */
static int may_step(const struct zt_regs *r, uintptr_t sp, uintptr_t next, int same,
		    unsigned *seen)
{
	int from = region_of(r, sp), to = region_of(r, next);

	if (to < 0)
		return 0;
	if (to == from)
		return next > sp || (same && next == sp);
	if (*seen >> to & 1)
		return 0;
	*seen |= 1u << to;
	return 1;
}

/* The bytes [a - k, a), if they lie in one code segment of s. */
static const unsigned char *code_before(const struct zt_cfi_set *s, uintptr_t a, uintptr_t k)
{
	const struct zt_cfi_seg *g;

	if (a < k)
		return NULL;
	g = zt_cfi_seg_of(s, a - k);
	if (!g || !g->exec || g->hi - (a - k) < k)
		return NULL;
	return (const unsigned char *)(a - k);
}

/* Whether a is in code (an executable segment of a loaded object). */
static int in_code(const struct zt_cfi_set *s, uintptr_t a)
{
	return code_before(s, a + 1, 1) != NULL;
}

static int32_t rel32(const unsigned char *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;

	return (int32_t)v;
}

/*
 * Whether the instruction that ends at ra is a call: e8 rel32 (*target is
 * then its destination), or one of ff /2's forms (register, memory through a
 * register with or without SIB and displacement, rip-relative; *target 0).
 */
static int call_before(const struct zt_cfi_set *s, uintptr_t ra, uintptr_t *target)
{
	const unsigned char *p;

	*target = 0;
	if ((p = code_before(s, ra, 5)) && p[0] == 0xe8) {
		*target = ra + (uintptr_t)(intptr_t)rel32(p + 1);
		return 1;
	}
	for (uintptr_t k = 2; k <= 7; k++) {
		unsigned m, mod, rm;

		if (k == 5 || !(p = code_before(s, ra, k)) || p[0] != 0xff || (p[1] >> 3 & 7) != 2)
			continue;
		m = p[1];
		mod = m >> 6;
		rm = m & 7;
		if ((k == 2 && (mod == 3 || (mod == 0 && rm != 4 && rm != 5))) ||
		    (k == 3 && ((mod == 1 && rm != 4) || (mod == 0 && rm == 4 && (p[2] & 7) != 5))) ||
		    (k == 4 && mod == 1 && rm == 4) ||
		    (k == 6 && ((mod == 2 && rm != 4) || (mod == 0 && rm == 5))) ||
		    (k == 7 && ((mod == 2 && rm == 4) || (mod == 0 && rm == 4 && (p[2] & 7) == 5))))
			return 1;
	}
	return 0;
}

/*
 * The function a call to t reaches: t itself, or for a PLT entry (jmp
 * *slot(%rip), after an endbr64 and a bnd prefix or not) the address its
 * slot holds, when the slot lies in a loaded object. 0 if unknown.
 */
static uintptr_t callee_of(const struct zt_cfi_set *s, uintptr_t t)
{
	const unsigned char *p = code_before(s, t + 6, 6);
	uintptr_t slot = 0;
	const struct zt_cfi_seg *g;

	if (!p)
		return 0;
	if (p[0] == 0xff && p[1] == 0x25) {
		slot = t + 6 + (uintptr_t)(intptr_t)rel32(p + 2);
	} else if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa &&
		   (p = code_before(s, t + 11, 11))) {
		if (p[4] == 0xf2 && p[5] == 0xff && p[6] == 0x25)
			slot = t + 11 + (uintptr_t)(intptr_t)rel32(p + 7);
		else if (p[4] == 0xff && p[5] == 0x25)
			slot = t + 10 + (uintptr_t)(intptr_t)rel32(p + 6);
	}
	if (!slot)
		return t;
	g = zt_cfi_seg_of(s, slot);
	if (slot % 8 != 0 || !g || g->hi - slot < 8)
		return 0;
	return *(const uintptr_t *)slot;
}

/*
 * For a walk whose rbp is unknown (zt_unwind_blocked), at a frame in code
 * at pc whose stack pointer is sp: the frame record that function made,
 * found in sp's region. A record is a saved rbp (any value: the caller may
 * use rbp as it likes) below a return address that follows a call in code.
 * The function's locals may hold stale records of calls made before from
 * the same place (the same kind of word pairs), so the lowest record whose
 * call is a direct one to the function that holds pc (its target, through
 * the PLT, at most 64 KiB below pc in the same object) is taken first;
 * failing that (a call through a pointer: main, a thread's start), the
 * lowest whose saved rbp is 0 or a stack address above it, and then the
 * lowest of all. 0 when none (or code cannot be read).
 */
static int find_record(const struct zt_regs *r, const struct zt_cfi_set *s, uintptr_t pc,
		       uintptr_t sp, uintptr_t *rbp)
{
	int reg = region_of(r, sp);
	uintptr_t hi, lowest = 0, chained = 0;
	const struct zt_cfi_table *own;

	if (reg < 0 || !s || s->nseg == 0 || r->no_code)
		return 0;
	own = zt_cfi_find(s, pc);
	hi = reg == 0 ? r->high : r->extra[reg - 1].hi;
	for (uintptr_t p = (sp + 7) & ~(uintptr_t)7; p + 16 <= hi; p += 8) {
		uintptr_t saved, ra, target, callee;

		if (!load(r, p, &saved) || !load(r, p + 8, &ra))
			break;
		if (ra == 0 || !in_code(s, ra - 1) || !call_before(s, ra, &target))
			continue;
		if (!lowest)
			lowest = p;
		if (!chained && (saved == 0 || (saved > p && saved % 8 == 0 && saved - p < (1u << 20))))
			chained = p;
		if (target && (callee = callee_of(s, target)) && callee <= pc &&
		    pc - callee < (1u << 16) && zt_cfi_find(s, callee) == own) {
			*rbp = p;
			return 1;
		}
	}
	*rbp = chained ? chained : lowest;
	return *rbp != 0;
}

/* The row for pc in s, or NULL. */
static const struct zt_cfi_row *row_of(const struct zt_cfi_set *s, uintptr_t pc)
{
	const struct zt_cfi_table *t = zt_cfi_find(s, pc);

	return t ? zt_cfi_row_at(t, pc) : NULL;
}

/*
 * Whether a frame-pointer step from a frame at pc (own: the frame's row,
 * NULL or BAD) to return address ra, stack pointer sp and rbp checks out
 * (the file's comment says what is checked). s must know its segments.
 */
static int step_checks(const struct zt_regs *r, const struct zt_cfi_set *s,
		       const struct zt_cfi_row *own, uintptr_t ra, uintptr_t sp, uintptr_t rbp)
{
	const struct zt_cfi_row *caller;
	uintptr_t target, callee, cfa, next;

	if (!in_code(s, ra - 1))
		return 0;
	caller = row_of(s, ra - 1);
	/* A handler's return lands on the signal trampoline, which no call precedes. */
	if (caller && caller->kind == ZT_CFA_SIGNAL)
		return 1;
	if (!call_before(s, ra, &target))
		return 0;
	if (target && !own && (callee = callee_of(s, target))) {
		const struct zt_cfi_row *c = row_of(s, callee);

		/* The record belongs to a function with CFI, which this frame is not. */
		if (c && c->kind != ZT_CFA_PLT)
			return 0;
	}
	if (!caller)
		return 1;	/* no CFI there either: the next step is checked */
	switch (caller->kind) {
	case ZT_CFA_RSP:
		cfa = sp + (uintptr_t)(intptr_t)caller->cfa_off;
		break;
	case ZT_CFA_RBP:
		if (rbp < sp)
			return 0;
		cfa = rbp + (uintptr_t)(intptr_t)caller->cfa_off;
		break;
	case ZT_CFA_PLT:
		return 0;	/* the PLT jumps, it never calls */
	default:
		return 1;	/* END, BAD, RBX: the next step decides */
	}
	if (cfa < sp + 8 || !load(r, cfa - 8, &next))
		return 0;
	return next == 0 || in_code(s, next - 1);
}

static size_t unwind(const struct zt_regs *r, const struct zt_cfi_set *set,
		     enum zt_unwind_mode mode, uint64_t *out, size_t max,
		     enum zt_unwind_end *end, int rbp_unknown)
{
	uintptr_t pc = r->pc, sp = r->sp, rbp = r->rbp, rbx = r->rbx;
	int rbp_ok = !rbp_unknown, rbx_ok = 1, exact = 1, first = region_of(r, r->sp);
	unsigned seen = first >= 0 ? 1u << first : 0;
	int guessed = 0;
	const struct zt_cfi_row *row = NULL;
	size_t n = 0;

	*end = ZT_UNWIND_PARTIAL;
	if (max == 0)
		return 0;
	out[n++] = (uint64_t)pc | ZT_UNWIND_EXACT;
	if (mode != ZT_UNWIND_FP)
		row = row_of(set, pc);
	for (;;) {
		/* A return address belongs to the call before it. */
		uintptr_t at = exact ? pc : pc - 1;
		uintptr_t cfa, ra, next_rbp = rbp, next_rbx = rbx, next_sp;
		int next_ok = rbp_ok, next_rbx_ok = rbx_ok, next_exact = 0;

		if (mode != ZT_UNWIND_FP) {
			/* row is at's, looked up when at was stored. */
			/*
			 * A pc whose FDE was rejected, or has a rule zt does
			 * not follow, is walked by frame pointers below: a
			 * guess where the object's own data said otherwise, so
			 * the stack is marked partial however it ends. (Code
			 * without any FDE is not: frame pointers are its rule.)
			 */
			if (row && row->kind == ZT_CFA_BAD)
				guessed = 1;
		}
		if (row && row->kind == ZT_CFA_END) {
			*end = ZT_UNWIND_COMPLETE;
			break;
		}
		if (row && (row->kind == ZT_CFA_RSP || row->kind == ZT_CFA_RBP ||
			    row->kind == ZT_CFA_PLT || row->kind == ZT_CFA_RBX)) {
			if (row->kind == ZT_CFA_RBP) {
				if (!rbp_ok && rbp_unknown) {
					rbp_ok = next_ok = find_record(r, set, at, sp, &rbp);
					next_rbp = rbp;
				}
				if (!rbp_ok)
					break;
				cfa = rbp + (uintptr_t)(intptr_t)row->cfa_off;
			} else if (row->kind == ZT_CFA_RBX) {
				if (!rbx_ok)
					break;
				cfa = rbx + (uintptr_t)(intptr_t)row->cfa_off;
			} else {
				cfa = sp + (uintptr_t)(intptr_t)row->cfa_off;
				if (row->kind == ZT_CFA_PLT && (at & 15) >= (uintptr_t)row->arg)
					cfa += 8;
			}
			if (!may_step(r, sp, cfa - 8, 1, &seen) || !load(r, cfa - 8, &ra))
				break;
			if (row->rbp == ZT_RBP_SAVED)
				next_ok = load(r, cfa + (uintptr_t)(intptr_t)row->arg, &next_rbp);
			else if (row->rbp == ZT_RBP_LOST)
				next_ok = 0;
			if (row->rbx == ZT_RBP_SAVED)
				next_rbx_ok = load(r, cfa + (uintptr_t)(intptr_t)row->rbx_off, &next_rbx);
			else if (row->rbx == ZT_RBP_LOST)
				next_rbx_ok = 0;
			next_sp = cfa;
		} else if (row && row->kind == ZT_CFA_SIGNAL) {
			/* The handler returned here: the registers it interrupted. */
			if (!load(r, sp + UC_RIP, &ra) || !load(r, sp + UC_RSP, &next_sp) ||
			    !load(r, sp + UC_RBP, &next_rbp) || !may_step(r, sp, next_sp, 0, &seen))
				break;
			next_ok = 1;
			next_rbx_ok = load(r, sp + UC_RBX, &next_rbx);
			next_exact = 1;
			/*
			 * The handler "returned" to the trampoline's first
			 * byte; no call precedes it, so pc - 1 would name
			 * whatever lies before the trampoline.
			 */
			out[n - 1] |= ZT_UNWIND_EXACT;
		} else if (mode == ZT_UNWIND_CFI) {
			break;
		} else {
			/* No usable row: one frame-pointer step. */
			if (!rbp_ok && rbp_unknown)
				rbp_ok = find_record(r, set, at, sp, &rbp);
			if (!rbp_ok || !may_step(r, sp, rbp, 1, &seen) || !load(r, rbp, &next_rbp) ||
			    !load(r, rbp + 8, &ra))
				break;
			next_sp = rbp + 16;
			next_ok = 1;
			next_rbx_ok = 0;	/* the frame may have saved and reused it */
			if (mode == ZT_UNWIND_AUTO && ra != 0) {
				if (!set || set->nseg == 0 || r->no_code)
					guessed = 1;	/* nothing to check it against */
				else if (!step_checks(r, set, row, ra, next_sp, next_rbp))
					break;
			}
			if (ra != 0 && next_rbp == 0) {
				/* The outermost frame: its caller is the entry. */
				if (n == max) {
					*end = ZT_UNWIND_DEPTH;
					break;
				}
				out[n++] = ra;
				*end = ZT_UNWIND_COMPLETE;
				break;
			}
		}
		if (ra == 0) {
			/* A zeroed return address marks the end of some stacks. */
			*end = ZT_UNWIND_COMPLETE;
			break;
		}
		/*
		 * Outside the loaded objects' code: not a return address zt
		 * can vouch for. A pc with a row other than BAD is in code
		 * already (cfi.c keeps only FDEs inside the object's
		 * executable segments), so CFI steps pay no second search.
		 */
		row = mode != ZT_UNWIND_FP ? row_of(set, next_exact ? ra : ra - 1) : NULL;
		if (set && set->nseg && (!row || row->kind == ZT_CFA_BAD) &&
		    !in_code(set, next_exact ? ra : ra - 1))
			break;
		if (n == max) {
			*end = ZT_UNWIND_DEPTH;
			break;
		}
		out[n++] = (uint64_t)ra | (next_exact ? ZT_UNWIND_EXACT : 0);
		pc = ra;
		sp = next_sp;
		rbp = next_rbp;
		rbp_ok = next_ok;
		rbx = next_rbx;
		rbx_ok = next_rbx_ok;
		exact = next_exact;
	}
	if (guessed && *end == ZT_UNWIND_COMPLETE)
		*end = ZT_UNWIND_PARTIAL;
	return n;
}

size_t zt_unwind(const struct zt_regs *r, const struct zt_cfi_set *set,
		 enum zt_unwind_mode mode, uint64_t *out, size_t max,
		 enum zt_unwind_end *end)
{
	return unwind(r, set, mode, out, max, end, 0);
}

size_t zt_unwind_blocked(const struct zt_regs *r, const struct zt_cfi_set *set,
			 enum zt_unwind_mode mode, uint64_t *out, size_t max,
			 enum zt_unwind_end *end)
{
	return unwind(r, set, mode, out, max, end, 1);
}
