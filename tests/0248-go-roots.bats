#!/usr/bin/env bats
# A Go stack that reaches one of the runtime's roots is whole (issue 26,
# item 9): every goroutine's stack starts at runtime.goexit, every thread's
# g0 stack at runtime.mstart, the first at runtime.rt0_go. The collector
# knows no names, and Go code has no CFI for it, so it marks such stacks
# partial; zt-symbolize, every tool reading a dump and zt-pprof drop the
# [truncated] root of a stack whose outermost frame is one of them. Here a
# C function named runtime.mstart stands for Go's, and the dump's stacks
# are cut after it and marked partial, as the collector leaves Go's.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > groot.c <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (unsigned long i = 0; i < 300000000UL; i++)
		sink += i;
}
__attribute__((noinline)) void mstart(void) __asm__("runtime.mstart");
__attribute__((noinline)) void mstart(void)
{
	leaf();
	__asm__ volatile("");
}
int main(void)
{
	mstart();
	return 0;
}
C
	cc -O1 -fno-omit-frame-pointer -o groot groot.c
	zt-collect -o g.raw ./groot 2> /dev/null
}

@test "a partial stack whose root is runtime.mstart is whole; one cut below it stays [truncated]" {
	cd "$BATS_FILE_TMPDIR"
	# Two frames (leaf, then the return into runtime.mstart), marked partial.
	awk '/^samples$/ { on = 1 } on && $3 ~ /^@/ && NF >= 5 {
		print $1, $2, $3, $4, $5, "-"; next } { print }' g.raw > cut.raw
	# One frame: the leaf only.
	awk '/^samples$/ { on = 1 } on && $3 ~ /^@/ && NF >= 5 {
		print $1, $2, $3, $4, "-"; next } { print }' g.raw > leaf.raw
	zt-symbolize cut.raw | zt-fold > cut.folded
	zt-symbolize leaf.raw | zt-fold > leaf.folded
	cat cut.folded leaf.folded
	grep -q '^groot;runtime\.mstart;leaf [0-9]*$' cut.folded
	# (Samples elsewhere, in zt's own work at the end, cut at two frames,
	# are [truncated] as they should be: seen in a sanitized build.)
	run ! grep -q 'truncated\];leaf ' cut.folded
	grep -q '^groot;\[truncated\];leaf [0-9]*$' leaf.folded
	# The same from the dump itself, through every tool's one reader.
	zt-fold cut.raw > direct.folded
	zt-fold leaf.raw > direct-leaf.folded
	cat direct.folded direct-leaf.folded
	cmp cut.folded direct.folded
	cmp leaf.folded direct-leaf.folded
}
