/*
 * arch-x86_64.h — what the collector needs to know of x86-64 (arch.h).
 * All of it is async-signal-safe: inline code, no calls.
 */
#ifndef ZT_ARCH_X86_64_H
#define ZT_ARCH_X86_64_H

#include <stdint.h>
#include <string.h>
#include <ucontext.h>

/* The dump's "arch" value. */
#define ZT_ARCH_RAW_NAME ZT_RAW_ARCH_X86_64
/* The return address has a place of its own, CFA + ZT_ARCH_RA_AT (AArch64's is x's rule). */
#define ZT_ARCH_RA_IN_X 0

enum {
	/* DWARF register numbers (the x86-64 psABI), as CFI names them. */
	ZT_ARCH_DWARF_X = 3,	/* rbx: the CFA of ld.so's _dl_runtime_resolve */
	ZT_ARCH_DWARF_FP = 6,	/* rbp */
	ZT_ARCH_DWARF_SP = 7,	/* rsp */
	ZT_ARCH_DWARF_RA = 16,	/* the return address column */
	ZT_ARCH_RA_AT = -8,	/* where every row keeps it: at CFA - 8 */
	ZT_ARCH_NEGATE_RA_STATE = 0,	/* 0x2d is no x86-64 CFI op */
	ZT_ARCH_SIGRETURN_PROBE = 0,	/* glibc's __restore_rt: CFI marks it a signal frame */
	ZT_ARCH_SIGRETURN_LEN = 0,
	/*
	 * The frame record that code built with frame pointers pushes:
	 * "push %rbp; mov %rsp, %rbp" leaves the caller's rbp at [rbp] and
	 * the return address at [rbp + 8]; the caller's rsp is rbp + 16.
	 */
	ZT_ARCH_FRAME_FP = 0, ZT_ARCH_FRAME_RA = 8, ZT_ARCH_FRAME_SIZE = 16,
	/* Offsets of the interrupted registers in the ucontext that a signal
	 * frame's rsp points at (the kernel's rt_sigframe, after its return
	 * address), for the trampoline's row (CFI marks it a signal frame). */
	ZT_ARCH_SIG_FP = 40 + 10 * 8, ZT_ARCH_SIG_X = 40 + 11 * 8,
	ZT_ARCH_SIG_SP = 40 + 15 * 8, ZT_ARCH_SIG_PC = 40 + 16 * 8,
	ZT_ARCH_CALL_MAX = 7,	/* the longest call instruction zt recognises */
	ZT_ARCH_PLT_MIN = 6, ZT_ARCH_PLT_MAX = 11,	/* bytes of a PLT entry read */
};

/* The interrupted registers a walk starts from. */
static inline void zt_arch_ucontext_regs(const void *ucv, uintptr_t *pc, uintptr_t *sp,
					 uintptr_t *fp, uintptr_t *x)
{
	const ucontext_t *uc = ucv;

	*pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	*fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	*x = (uintptr_t)uc->uc_mcontext.gregs[REG_RBX];
}

/*
 * The registers of the code this expands in, as zt_arch_ucontext_regs gives
 * a signal's: a pc inside it and the stack pointer, frame pointer and x
 * there, for a walk that starts here (alloc.c). x is read first, fp and
 * sp before pc, so that no output register clobbers one still to be read.
 */
#define ZT_ARCH_HERE(pc, sp, fp, x)						\
	__asm__ volatile("mov %%rbx, %3\n\tmov %%rbp, %2\n\tmov %%rsp, %1\n\t"	\
			 "lea 0(%%rip), %0" : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(x))

/* A return address as it is stored: x86-64 signs none. */
static inline uintptr_t zt_arch_strip(uintptr_t ra)
{
	return ra;
}

static inline int32_t zt_arch_rel32(const unsigned char *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;

	return (int32_t)v;
}

/*
 * Whether the k bytes at p, which end at return address ra, are a call:
 * e8 rel32 (*target is then its destination), or one of ff /2's forms
 * (register, memory through a register with or without SIB and
 * displacement, rip-relative; *target 0). k is 2 to ZT_ARCH_CALL_MAX.
 */
static inline int zt_arch_call_is(const unsigned char *p, unsigned k, uintptr_t ra,
				  uintptr_t *target)
{
	unsigned m, mod, rm;

	*target = 0;
	if (k == 5) {
		if (p[0] != 0xe8)
			return 0;
		*target = ra + (uintptr_t)(intptr_t)zt_arch_rel32(p + 1);
		return 1;
	}
	if (p[0] != 0xff || (p[1] >> 3 & 7) != 2)
		return 0;
	m = p[1];
	mod = m >> 6;
	rm = m & 7;
	return (k == 2 && (mod == 3 || (mod == 0 && rm != 4 && rm != 5))) ||
	       (k == 3 && ((mod == 1 && rm != 4) || (mod == 0 && rm == 4 && (p[2] & 7) != 5))) ||
	       (k == 4 && mod == 1 && rm == 4) ||
	       (k == 6 && ((mod == 2 && rm != 4) || (mod == 0 && rm == 5))) ||
	       (k == 7 && ((mod == 2 && rm == 4) || (mod == 0 && rm == 4 && (p[2] & 7) == 5)));
}

/* The order call lengths are tried in: the direct call first. */
static const unsigned char zt_arch_call_len[] = { 5, 2, 3, 4, 6, 7 };

/*
 * The GOT slot a PLT entry at t jumps through (jmp *slot(%rip), after an
 * endbr64 and a bnd prefix or not), from the n bytes at p (n is
 * ZT_ARCH_PLT_MIN or ZT_ARCH_PLT_MAX); 0 when t is no PLT entry.
 */
static inline uintptr_t zt_arch_plt_slot(const unsigned char *p, unsigned n, uintptr_t t)
{
	if (p[0] == 0xff && p[1] == 0x25)
		return t + 6 + (uintptr_t)(intptr_t)zt_arch_rel32(p + 2);
	if (n < 11 || p[0] != 0xf3 || p[1] != 0x0f || p[2] != 0x1e || p[3] != 0xfa)
		return 0;
	if (p[4] == 0xf2 && p[5] == 0xff && p[6] == 0x25)
		return t + 11 + (uintptr_t)(intptr_t)zt_arch_rel32(p + 7);
	if (p[4] == 0xff && p[5] == 0x25)
		return t + 10 + (uintptr_t)(intptr_t)zt_arch_rel32(p + 6);
	return 0;
}

/*
 * Whether the DWARF expression [p, end) is the CFA rule of the x86-64 PLT
 * (rsp + off, plus 8 once the pc's low 4 bits reach threshold); sets *off
 * and *threshold if so.
 */
static inline int zt_arch_plt_expression(const unsigned char *p, const unsigned char *end,
					 int64_t *off, int64_t *threshold)
{
	/* DW_OP_breg7 N; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litK;
	 * DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus */
	static const unsigned char tail[] = { 0x80, 0x00, 0x3f, 0x1a };
	static const unsigned char last[] = { 0x2a, 0x33, 0x24, 0x22 };

	if (end - p != 11 || p[0] != 0x77 || (p[1] & 0x80))
		return 0;
	if (memcmp(p + 2, tail, sizeof tail) != 0 || p[6] < 0x30 || p[6] > 0x4f ||
	    memcmp(p + 7, last, sizeof last) != 0)
		return 0;
	*off = p[1] & 0x40 ? (int64_t)p[1] - 0x80 : p[1];
	*threshold = p[6] - 0x30;
	return 1;
}

/* The pause of a spin-wait. */
static inline void zt_arch_pause(void)
{
	__builtin_ia32_pause();
}

/* A system call, made here rather than through any interposer: the raw result (-errno on failure). */
static inline long zt_arch_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
