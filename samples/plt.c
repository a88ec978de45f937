/*
 * plt.c — a program whose hot loop calls through the PLT: calls() calls
 * libpltlib.so's plt_tiny 200,000 times a round, so samples land in the PLT
 * entry (plt_tiny@plt), which has no CFI on aarch64. Run with LD_BIND_NOT=1,
 * glibc never writes the resolved address into the GOT slot, and every call
 * goes through PLT0 and ld.so's lazy binder (_dl_runtime_resolve, _dl_fixup,
 * the symbol lookup): most samples are then there. calls() also calls
 * nocfi, a function without CFI. Every stack must still reach _start
 * through calls and main.
 *
 * An optional argument scales the work (default 100 rounds). It prints "done".
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long plt_tiny(unsigned long x);

static volatile unsigned long sink;

/*
 * nocfi: a function without CFI that makes a frame record, as _init and
 * _fini do (crti.o): a sample at its first instruction has its caller in
 * x30 only.
 */
unsigned long nocfi(unsigned long x);
#ifdef __aarch64__
__asm__(".text\n"
	".globl nocfi\n"
	".type nocfi, %function\n"
	"nocfi:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	add x0, x0, #1\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size nocfi, .-nocfi\n");
#else
unsigned long nocfi(unsigned long x)
{
	return x + 1;
}
#endif

__attribute__((noinline)) void calls(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += plt_tiny(i) + nocfi(i);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	for (int r = 0; r < rounds; r++)
		calls(200000);
	printf("done\n");
	return 0;
}
