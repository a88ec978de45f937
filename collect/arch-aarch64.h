/*
 * arch-aarch64.h — what the collector needs to know of AArch64 (arch.h).
 * All of it is async-signal-safe: inline code, no calls.
 *
 * The return address is in the link register x30 at a call, and a
 * function that calls saves it in its frame record, {x29, x30} at x29. So
 * the role of "x" (the one more register a row tracks) is x30's: a row's x
 * rule says where the return address is, saved at CFA + x_off, or still in
 * x30 (a leaf, or a function before it saved it). Return addresses signed
 * with pointer authentication (-mbranch-protection=pac-ret) are stripped
 * with xpaclri, which is a no-op on cores without it.
 */
#ifndef ZT_ARCH_AARCH64_H
#define ZT_ARCH_AARCH64_H

#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/* The dump's "arch" value. */
#define ZT_ARCH_RAW_NAME ZT_RAW_ARCH_AARCH64
/* The x rule is the return address's rule (a macro: unwind.c tests it with #if). */
#define ZT_ARCH_RA_IN_X 1

enum {
	/* DWARF register numbers (DWARF for the Arm 64-bit Architecture). */
	ZT_ARCH_DWARF_FP = 29,	/* x29 */
	ZT_ARCH_DWARF_X = 30,	/* x30, the link register */
	ZT_ARCH_DWARF_SP = 31,
	ZT_ARCH_DWARF_RA = 30,	/* the return address column: x30 */
	ZT_ARCH_RA_AT = 0,	/* unused: rows say where it is */
	ZT_ARCH_NEGATE_RA_STATE = 1,	/* DW_CFA_AARCH64_negate_ra_state is known */
	/* The frame record: the caller's x29 at [x29], x30 at [x29 + 8]. The
	 * caller's sp is at least x29 + 16 (a frame may hold more above it). */
	ZT_ARCH_FRAME_FP = 0, ZT_ARCH_FRAME_RA = 8, ZT_ARCH_FRAME_SIZE = 16,
	/*
	 * Offsets of the interrupted registers from the stack pointer a
	 * signal handler returns to the trampoline with: the kernel's (and
	 * qemu-user's) rt_sigframe, a siginfo (128 bytes) and then the
	 * ucontext, whose uc_mcontext starts at 176 with fault_address,
	 * regs[31], sp, pc.
	 */
	ZT_ARCH_SIG_FP = 128 + 176 + 8 + 29 * 8, ZT_ARCH_SIG_X = 128 + 176 + 8 + 30 * 8,
	ZT_ARCH_SIG_SP = 128 + 176 + 8 + 31 * 8, ZT_ARCH_SIG_PC = 128 + 176 + 8 + 32 * 8,
	/*
	 * The signal trampoline is learnt at start (a signal to zt itself):
	 * under qemu-user it lies outside every loaded object, and the vDSO's
	 * __kernel_rt_sigreturn may have no CFI.
	 */
	ZT_ARCH_SIGRETURN_PROBE = 1,
	ZT_ARCH_SIGRETURN_LEN = 8,	/* mov x8, #__NR_rt_sigreturn; svc #0 */
	ZT_ARCH_PLT_MIN = 8, ZT_ARCH_PLT_MAX = 12,	/* adrp; ldr (after a bti c or not) */
};

static inline void zt_arch_ucontext_regs(const void *ucv, uintptr_t *pc, uintptr_t *sp,
					 uintptr_t *fp, uintptr_t *x)
{
	const ucontext_t *uc = ucv;

	*pc = (uintptr_t)uc->uc_mcontext.pc;
	*sp = (uintptr_t)uc->uc_mcontext.sp;
	*fp = (uintptr_t)uc->uc_mcontext.regs[29];
	*x = (uintptr_t)uc->uc_mcontext.regs[30];
}

/*
 * The registers of the code this expands in, as zt_arch_ucontext_regs gives
 * a signal's: a pc inside it and the stack pointer, frame pointer and x
 * there, for a walk that starts here (alloc.c). x is read first, fp and
 * sp before pc, so that no output register clobbers one still to be read.
 */
#define ZT_ARCH_HERE(pc, sp, fp, x)						\
	__asm__ volatile("mov %3, x30\n\tmov %2, x29\n\tmov %1, sp\n\tadr %0, ."	\
			 : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(x))

/* A return address without its pointer-authentication code: xpaclri (hint #7). */
static inline uintptr_t zt_arch_strip(uintptr_t ra)
{
	register uintptr_t lr __asm__("x30") = ra;

	__asm__("hint #7" : "+r"(lr));
	return lr;
}

static inline uint32_t zt_arch_insn(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

/*
 * Whether the 4 bytes at p, which end at return address ra, are a call:
 * bl (*target its destination), blr, or the authenticating blraa, blrab,
 * blraaz, blrabz (*target 0).
 */
static inline int zt_arch_call_is(const unsigned char *p, unsigned k, uintptr_t ra,
				  uintptr_t *target)
{
	uint32_t i = zt_arch_insn(p);

	*target = 0;
	if (k != 4)
		return 0;
	if ((i & 0xfc000000u) == 0x94000000u) {
		int64_t imm = (int64_t)((uint64_t)(i & 0x03ffffffu) << 38) >> 36;

		*target = ra - 4 + (uintptr_t)imm;
		return 1;
	}
	return (i & 0xfffffc1fu) == 0xd63f0000u || (i & 0xfefff800u) == 0xd63f0800u;
}

static const unsigned char zt_arch_call_len[] = { 4 };

/*
 * The GOT slot a PLT entry at t loads its target from (adrp x16, page;
 * ldr x17, [x16, #off]; after a bti c or not), from the n bytes at p; 0
 * when t is no PLT entry.
 */
static inline uintptr_t zt_arch_plt_slot(const unsigned char *p, unsigned n, uintptr_t t)
{
	uint32_t adrp = zt_arch_insn(p), ldr;
	int64_t page;

	if (adrp == 0xd503245fu) {	/* bti c */
		if (n < 12)
			return 0;
		p += 4;
		t += 4;
		adrp = zt_arch_insn(p);
	}
	ldr = zt_arch_insn(p + 4);
	if ((adrp & 0x9f00001fu) != 0x90000010u || (ldr & 0xffc003ffu) != 0xf9400211u)
		return 0;
	page = (int64_t)((uint64_t)(((adrp >> 5) & 0x7ffffu) << 2 | ((adrp >> 29) & 3)) << 43) >> 31;
	return (t & ~(uintptr_t)0xfff) + (uintptr_t)page + ((ldr >> 10) & 0xfffu) * 8;
}

enum {
	ZT_ARCH_LEAF_BACK = 20,	/* bytes from a stub's start to its last instruction */
	ZT_ARCH_LEAF_LEN = 24,	/* bytes of the longest stub: bti c; PLT0 */
};

/* ld's PLT code: adrp x16, page; ldr x17, [x16, #o]; add x16, x16, #o; br x17. */
static inline int zt_arch_plt_body(const unsigned char *p, unsigned n)
{
	return n >= 16 && (zt_arch_insn(p) & 0x9f00001fu) == 0x90000010u &&
	       (zt_arch_insn(p + 4) & 0xffc003ffu) == 0xf9400211u &&
	       (zt_arch_insn(p + 8) & 0xffc003ffu) == 0x91000210u &&
	       zt_arch_insn(p + 12) == 0xd61f0220u;
}

/*
 * For PLT0 at p (n bytes: bti c, or not; stp x16, x30, [sp, #-16]!; a PLT
 * body), the offset of its body; -1 when p is no PLT0.
 */
static inline int zt_arch_plt0_body(const unsigned char *p, unsigned n)
{
	unsigned b = n >= 4 && zt_arch_insn(p) == 0xd503245fu ? 4 : 0;	/* bti c */

	if (n >= b + 4 && zt_arch_insn(p + b) == 0xa9bf7bf0u &&
	    zt_arch_plt_body(p + b + 4, n - b - 4))
		return (int)b + 4;
	return -1;
}

/*
 * Whether code without CFI, interrupted at pc, still has its caller's
 * return address in x30, and sp and x29 as the caller left them but for
 * *pushed bytes below sp: so the caller is x30 ("the leaf rule"). q holds
 * n readable bytes from pc - at (at a multiple of 4). True in:
 * - a PLT entry (after a bti c or not): the linker writes no CFI for .plt
 *   on aarch64, and the entry only jumps;
 * - PLT0, the lazy binder's stub: 16 bytes pushed once its stp ran;
 * - at a function's first frame-record store (stp x29, x30, [sp, #-N]!),
 *   not made yet: _init and _fini (crti.o) have no CFI.
 * Elsewhere in code without CFI a frame record is the rule (a sample
 * between that stp and its mov x29, sp, or in the epilogue, is partial).
 */
static inline int zt_arch_leaf_at(const unsigned char *q, unsigned n, unsigned at,
				  unsigned *pushed)
{
	unsigned b;
	uint32_t i;
	int h;

	*pushed = 0;
	if (n < 4)
		return 0;
	i = zt_arch_insn(q);
	if (at == 0 && (i & 0xffc07fffu) == 0xa9807bfdu && (i & 0x00200000u))
		return 1;
	if ((h = zt_arch_plt0_body(q, n)) >= 0) {
		*pushed = at >= (unsigned)h ? 16 : 0;
		return at < (unsigned)h + 16;
	}
	b = i == 0xd503245fu ? 4 : 0;	/* bti c */
	return zt_arch_plt_body(q + b, n - b) && at < b + 16;
}

/* AArch64 has no PLT CFA expression. */
static inline int zt_arch_plt_expression(const unsigned char *p, const unsigned char *end,
					 int64_t *off, int64_t *threshold)
{
	(void)p;
	(void)end;
	(void)off;
	(void)threshold;
	return 0;
}

static inline void zt_arch_pause(void)
{
	__asm__ volatile("yield" ::: "memory");
}

static inline long zt_arch_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

#endif
