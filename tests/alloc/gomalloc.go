// gomalloc: a cgo program whose C code allocates and frees 200 MiB in
// 64 KiB blocks, then returns from main: Go's runtime ends the process by
// a raw exit_group, so its dump is finished by zt-collect from the file and
// the buffers the process left (tests/0780-alloc-collect.bats).
package main

/*
#include <stdlib.h>
static void churn(int mib) {
	for (long i = 0; i < (long)mib * 16; i++) {
		void *p = malloc(65536);
		((volatile char *)p)[0] = 1;
		free(p);
	}
}
*/
import "C"

func main() { C.churn(200) }
