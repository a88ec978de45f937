/*
 * unwind.c — the unwinder the handler runs, one frame at a time.
 *
 * Where the frame's object has CFI (cfi.h), its row says where the caller's
 * stack pointer (the CFA), return address and frame pointer are: this works
 * in code built without frame pointers and in leaves that never set one up.
 * Where it has none, the frame-pointer chain is followed: code built with
 * frame pointers keeps a frame record at the frame pointer, the caller's
 * frame pointer and the return address (arch.h: on x86-64 "push %rbp; mov
 * %rsp, %rbp" leaves them at [rbp] and [rbp+8]). Nothing read from the
 * stack is trusted before it is checked. What is particular to an
 * architecture (the registers, the record, the shape of a call and of a
 * PLT entry, the signal frame) is in arch.h.
 *
 * A walk is complete when it reaches a frame whose return address is
 * undefined (the CFI of _start and of a new thread's clone say so), or a
 * frame-pointer frame whose saved frame pointer is 0 (the ABI's mark of the outermost
 * frame, set by _start and clone), and no frame on the way was a guess.
 * Ending anywhere else is partial, a return address of 0 included: a walk
 * that read one followed a rule that does not hold there. A
 * frame-pointer step at a pc whose row is BAD (a rule zt does not follow,
 * or an FDE rejected as outside its object's code) marks it partial.
 *
 * A frame-pointer step is a guess too: fp may be a general register (gmp's
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
#include "arch.h"

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

/*
 * Whether the instruction that ends at ra is a call (arch.h says which
 * forms); *target is its destination when the call is direct, else 0.
 */
static int call_before(const struct zt_cfi_set *s, uintptr_t ra, uintptr_t *target)
{
	const unsigned char *p;

	*target = 0;
	for (size_t i = 0; i < sizeof zt_arch_call_len; i++) {
		unsigned k = zt_arch_call_len[i];

		if ((p = code_before(s, ra, k)) && zt_arch_call_is(p, k, ra, target))
			return 1;
	}
	return 0;
}

/*
 * The function a call to t reaches: t itself, or for a PLT entry the
 * address its GOT slot holds, when the slot lies in a loaded object. 0 if
 * unknown.
 */
static uintptr_t callee_of(const struct zt_cfi_set *s, uintptr_t t)
{
	const unsigned char *p = code_before(s, t + ZT_ARCH_PLT_MAX, ZT_ARCH_PLT_MAX);
	unsigned n = ZT_ARCH_PLT_MAX;
	uintptr_t slot;
	const struct zt_cfi_seg *g;

	if (!p) {
		p = code_before(s, t + ZT_ARCH_PLT_MIN, ZT_ARCH_PLT_MIN);
		n = ZT_ARCH_PLT_MIN;
	}
	if (!p)
		return 0;
	slot = zt_arch_plt_slot(p, n, t);
	if (!slot)
		return t;
	g = zt_cfi_seg_of(s, slot);
	if (slot % 8 != 0 || !g || g->hi - slot < 8)
		return 0;
	return *(const uintptr_t *)slot;
}

/*
 * For a walk whose frame pointer is unknown (zt_unwind_blocked), at a frame in code
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
		       uintptr_t sp, uintptr_t *fp)
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

		if (!load(r, p + ZT_ARCH_FRAME_FP, &saved) || !load(r, p + ZT_ARCH_FRAME_RA, &ra))
			break;
		if (ra == 0 || !in_code(s, ra - 1) || !call_before(s, ra, &target))
			continue;
		if (!lowest)
			lowest = p;
		if (!chained && (saved == 0 || (saved > p && saved % 8 == 0 && saved - p < (1u << 20))))
			chained = p;
		if (target && (callee = callee_of(s, target)) && callee <= pc &&
		    pc - callee < (1u << 16) && zt_cfi_find(s, callee) == own) {
			*fp = p;
			return 1;
		}
	}
	*fp = chained ? chained : lowest;
	return *fp != 0;
}

#if ZT_ARCH_RA_IN_X
/*
 * Whether code without CFI at pc, interrupted there, still has its
 * caller's return address in x (arch.h's zt_arch_leaf_at: a PLT stub, a
 * frame record not made yet), with *pushed bytes below the caller's sp.
 */
static int x_is_return(const struct zt_regs *r, const struct zt_cfi_set *s, uintptr_t pc,
		       unsigned *pushed)
{
	if (!s || s->nseg == 0 || r->no_code)
		return 0;
	for (unsigned at = 0; at <= ZT_ARCH_LEAF_BACK && at <= pc; at += 4) {
		unsigned n = ZT_ARCH_LEAF_LEN;
		const unsigned char *p = code_before(s, pc - at + n, n);

		if (!p)		/* near its segment's end: only up to pc */
			p = code_before(s, pc + 4, n = at + 4);
		if (p && zt_arch_leaf_at(p, n, at, pushed))
			return 1;
	}
	return 0;
}

/*
 * At the first instruction of the function PLT0 jumps to (glibc's
 * _dl_runtime_resolve, whose first row says CFA = sp and x30 unsaved), the
 * bytes PLT0 pushed below the caller's sp: 16 when the call that returns
 * to ra went through a PLT entry whose GOT slot still leads to PLT0, and
 * PLT0's own slot to pc; else 0.
 */
static unsigned plt0_pushed(const struct zt_regs *r, const struct zt_cfi_set *s, uintptr_t ra,
			    uintptr_t pc)
{
	uintptr_t t, c, slot;
	const unsigned char *p;
	const struct zt_cfi_seg *g;
	int h;

	if (!s || s->nseg == 0 || r->no_code || !call_before(s, ra, &t) || !t)
		return 0;
	c = callee_of(s, t);
	if (!c || c == t || !(p = code_before(s, c + ZT_ARCH_LEAF_LEN, ZT_ARCH_LEAF_LEN)) ||
	    (h = zt_arch_plt0_body(p, ZT_ARCH_LEAF_LEN)) < 0)
		return 0;
	slot = zt_arch_plt_slot(p + h, ZT_ARCH_LEAF_LEN - (unsigned)h, c + (unsigned)h);
	g = slot ? zt_cfi_seg_of(s, slot) : NULL;
	if (!g || slot % 8 != 0 || g->hi - slot < 8)
		return 0;
	return *(const uintptr_t *)slot == pc ? 16 : 0;
}
#endif

/* The row of a signal trampoline known by its address (zt_regs' sigreturn). */
static const struct zt_cfi_row sigreturn_row = { .kind = ZT_CFA_SIGNAL };

/*
 * The row for pc in s, copied into *buf; NULL if none. A lazy table's rows
 * not yet found are looked for in the object's CFI, unless r says that no
 * object's memory may be read (r->no_code: a dlclose under way).
 */
static const struct zt_cfi_row *row_of(const struct zt_regs *r, const struct zt_cfi_set *s,
				       uintptr_t pc, struct zt_cfi_row *buf)
{
	const struct zt_cfi_table *t = zt_cfi_find(s, pc);

	return t && zt_cfi_lookup(t, pc, !r->no_code, buf) ? buf : NULL;
}

/*
 * Whether a frame-pointer step from a frame at pc (own: the frame's row,
 * NULL or BAD) to return address ra, stack pointer sp and fp checks out
 * (the file's comment says what is checked). s must know its segments.
 */
static int step_checks(const struct zt_regs *r, const struct zt_cfi_set *s,
		       const struct zt_cfi_row *own, uintptr_t ra, uintptr_t sp, uintptr_t fp)
{
	const struct zt_cfi_row *caller;
	struct zt_cfi_row buf, cbuf;
	uintptr_t target, callee, cfa, next;

	if (!in_code(s, ra - 1))
		return 0;
	caller = row_of(r, s, ra - 1, &buf);
	/* A handler's return lands on the signal trampoline, which no call precedes. */
	if (caller && caller->kind == ZT_CFA_SIGNAL)
		return 1;
	if (!call_before(s, ra, &target))
		return 0;
	if (target && !own && (callee = callee_of(s, target))) {
		const struct zt_cfi_row *c = row_of(r, s, callee, &cbuf);

		/* The record belongs to a function with CFI, which this frame is not. */
		if (c && c->kind != ZT_CFA_PLT)
			return 0;
	}
	if (!caller)
		return 1;	/* no CFI there either: the next step is checked */
	switch (caller->kind) {
	case ZT_CFA_SP:
		cfa = sp + (uintptr_t)(intptr_t)caller->cfa_off;
		break;
	case ZT_CFA_FP:
		if (fp < sp)
			return 0;
		cfa = fp + (uintptr_t)(intptr_t)caller->cfa_off;
		break;
	case ZT_CFA_PLT:
		return 0;	/* the PLT jumps, it never calls */
	default:
		return 1;	/* END, BAD, RBX: the next step decides */
	}
#if ZT_ARCH_RA_IN_X
	if (caller->x != ZT_REG_SAVED)
		return 1;	/* in the link register: nothing to read */
	if (cfa < sp || !load(r, cfa + (uintptr_t)(intptr_t)caller->x_off, &next))
		return 0;
	next = zt_arch_strip(next);
#else
	if (cfa < sp + 8 || !load(r, cfa - 8, &next))
		return 0;
#endif
	return next == 0 || in_code(s, next - 1);
}

static size_t unwind(const struct zt_regs *r, const struct zt_cfi_set *set,
		     enum zt_unwind_mode mode, uint64_t *out, size_t max,
		     enum zt_unwind_end *end, int fp_unknown)
{
	uintptr_t pc = r->pc, sp = r->sp, fp = r->fp, x = r->x;
	int fp_ok = !fp_unknown, x_ok = 1, exact = 1, first = region_of(r, r->sp);
	unsigned seen = first >= 0 ? 1u << first : 0;
	int guessed = 0;
#if ZT_ARCH_RA_IN_X
	unsigned pushed;
#endif
	const struct zt_cfi_row *row = NULL;
	struct zt_cfi_row rowbuf;	/* row's copy, when it came from a table */
	size_t n = 0;

	*end = ZT_UNWIND_PARTIAL;
	if (max == 0)
		return 0;
	out[n++] = (uint64_t)pc | ZT_UNWIND_EXACT;
	if (mode != ZT_UNWIND_FP)
		row = r->sigreturn && pc >= r->sigreturn && pc < r->sigreturn + ZT_ARCH_SIGRETURN_LEN ?
		      &sigreturn_row : row_of(r, set, pc, &rowbuf);
	for (;;) {
		/* A return address belongs to the call before it. */
		uintptr_t at = exact ? pc : pc - 1;
		uintptr_t cfa, ra, next_fp = fp, next_x = x, next_sp;
		int next_ok = fp_ok, next_x_ok = x_ok, next_exact = 0;

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
		if (row && (row->kind == ZT_CFA_SP || row->kind == ZT_CFA_FP ||
			    row->kind == ZT_CFA_PLT || row->kind == ZT_CFA_X)) {
			if (row->kind == ZT_CFA_FP) {
				if (!fp_ok && fp_unknown) {
					fp_ok = next_ok = find_record(r, set, at, sp, &fp);
					next_fp = fp;
				}
				if (!fp_ok)
					break;
				cfa = fp + (uintptr_t)(intptr_t)row->cfa_off;
			} else if (row->kind == ZT_CFA_X) {
				if (!x_ok)
					break;
				cfa = x + (uintptr_t)(intptr_t)row->cfa_off;
			} else {
				cfa = sp + (uintptr_t)(intptr_t)row->cfa_off;
				if (row->kind == ZT_CFA_PLT && (at & 15) >= (uintptr_t)row->arg)
					cfa += 8;
			}
			next_sp = cfa;
#if ZT_ARCH_RA_IN_X
			/*
			 * The return address is x's value: saved at CFA + x_off,
			 * or still in x (a leaf, a function before it saved it:
			 * known in the interrupted frame and after a signal
			 * frame only). The caller's x is that address, of no use
			 * to its own row.
			 */
			if (!may_step(r, sp, cfa, 1, &seen))
				break;
			if (row->x == ZT_REG_SAVED) {
				if (!load(r, cfa + (uintptr_t)(intptr_t)row->x_off, &ra))
					break;
			} else if (row->x == ZT_REG_SAME && x_ok) {
				ra = x;
			} else {
				break;
			}
			ra = zt_arch_strip(ra);
			next_x = ra;
			next_x_ok = 0;
			/*
			 * Saved at or above the CFA: the slot is in what the
			 * rows call the caller's frame, so the caller's sp lies
			 * above it. glibc's _dl_runtime_resolve says so: PLT0
			 * pushed {x16, x30} and jumped to it, and its CFI
			 * counts that push as the caller's (CFA = sp at entry,
			 * x30 at CFA + 8); the caller's sp is CFA + 16.
			 */
			if (row->x == ZT_REG_SAVED && row->x_off >= 0)
				next_sp = cfa + (uintptr_t)row->x_off + 8;
			else if (row->x == ZT_REG_SAME && exact && row->kind == ZT_CFA_SP &&
				 row->cfa_off == 0)
				next_sp += plt0_pushed(r, set, ra, pc);
#else
			if (!may_step(r, sp, cfa + (uintptr_t)(intptr_t)ZT_ARCH_RA_AT, 1, &seen) ||
			    !load(r, cfa + (uintptr_t)(intptr_t)ZT_ARCH_RA_AT, &ra))
				break;
			if (row->x == ZT_REG_SAVED)
				next_x_ok = load(r, cfa + (uintptr_t)(intptr_t)row->x_off, &next_x);
			else if (row->x == ZT_REG_LOST)
				next_x_ok = 0;
#endif
			if (row->fp == ZT_REG_SAVED)
				next_ok = load(r, cfa + (uintptr_t)(intptr_t)row->arg, &next_fp);
			else if (row->fp == ZT_REG_LOST)
				next_ok = 0;
		} else if (row && row->kind == ZT_CFA_SIGNAL) {
			/* The handler returned here: the registers it interrupted. */
			if (!load(r, sp + ZT_ARCH_SIG_PC, &ra) || !load(r, sp + ZT_ARCH_SIG_SP, &next_sp) ||
			    !load(r, sp + ZT_ARCH_SIG_FP, &next_fp) || !may_step(r, sp, next_sp, 0, &seen))
				break;
			next_ok = 1;
			next_x_ok = load(r, sp + ZT_ARCH_SIG_X, &next_x);
			next_exact = 1;
			/*
			 * The handler "returned" to the trampoline's first
			 * byte; no call precedes it, so pc - 1 would name
			 * whatever lies before the trampoline.
			 */
			out[n - 1] |= ZT_UNWIND_EXACT;
#if ZT_ARCH_RA_IN_X
		} else if (!row && exact && x_ok && x_is_return(r, set, pc, &pushed)) {
			/* No CFI, the caller still in x: the leaf rule. */
			next_sp = sp + pushed;
			if (!may_step(r, sp, next_sp, 1, &seen))
				break;
			ra = zt_arch_strip(x);
			next_x = ra;
			next_x_ok = 0;
#endif
		} else if (mode == ZT_UNWIND_CFI) {
			break;
		} else {
			/* No usable row: one frame-pointer step. */
			if (!fp_ok && fp_unknown)
				fp_ok = find_record(r, set, at, sp, &fp);
			if (!fp_ok || !may_step(r, sp, fp, 1, &seen) ||
			    !load(r, fp + ZT_ARCH_FRAME_FP, &next_fp) ||
			    !load(r, fp + ZT_ARCH_FRAME_RA, &ra))
				break;
			ra = zt_arch_strip(ra);
			next_sp = fp + ZT_ARCH_FRAME_SIZE;
			next_ok = 1;
			next_x_ok = 0;	/* the frame may have saved and reused it */
			if (mode == ZT_UNWIND_AUTO && ra != 0) {
				if (!set || set->nseg == 0 || r->no_code)
					guessed = 1;	/* nothing to check it against */
				else if (!step_checks(r, set, row, ra, next_sp, next_fp))
					break;
			}
			if (ra != 0 && next_fp == 0) {
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
			/*
			 * Not an entry: glibc's _start, clone and clone3 say so
			 * in their CFI (ZT_CFA_END above), and a frame-pointer
			 * chain ends at a saved fp of 0. A zero where a return
			 * address should be is a rule that does not hold here
			 * (LuaJIT's one FDE for its whole interpreter read 0
			 * inside its math helpers): the stack is cut short.
			 */
			*end = ZT_UNWIND_PARTIAL;
			break;
		}
		/*
		 * Outside the loaded objects' code: not a return address zt
		 * can vouch for. A pc with a row other than BAD is in code
		 * already (cfi.c keeps only FDEs inside the object's
		 * executable segments), so CFI steps pay no second search.
		 */
		if (mode != ZT_UNWIND_FP && r->sigreturn && ra == r->sigreturn && !next_exact) {
			/* The handler returns to the trampoline: a signal frame. */
			row = &sigreturn_row;
		} else {
			row = mode != ZT_UNWIND_FP ?
			      row_of(r, set, next_exact ? ra : ra - 1, &rowbuf) : NULL;
			if (set && set->nseg && (!row || row->kind == ZT_CFA_BAD) &&
			    !in_code(set, next_exact ? ra : ra - 1))
				break;
		}
		if (n == max) {
			*end = ZT_UNWIND_DEPTH;
			break;
		}
		out[n++] = (uint64_t)ra | (next_exact ? ZT_UNWIND_EXACT : 0);
		pc = ra;
		sp = next_sp;
		fp = next_fp;
		fp_ok = next_ok;
		x = next_x;
		x_ok = next_x_ok;
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
