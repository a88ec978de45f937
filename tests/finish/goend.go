// goend: a cgo program that burns CPU-seconds (argv[2]) in C, then ends
// as argv[1] says: return from main, os.Exit(3), panic, or a wait for
// SIGTERM (the runtime's own death by it). tests/0121-collect-finish.bats.
package main

/*
#include <time.h>
static volatile unsigned long sink;
static void burn(double s) {
	struct timespec t;
	do {
		for (unsigned long i = 0; i < 1000000; i++) sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec + t.tv_nsec / 1e9 < s);
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	s, _ := strconv.ParseFloat(os.Args[2], 64)
	C.burn(C.double(s))
	switch os.Args[1] {
	case "return":
		fmt.Println("returned")
		return
	case "exit":
		os.Exit(3)
	case "panic":
		panic("on purpose")
	case "sigterm":
		fmt.Println("waiting")
		os.Stdout.Sync()
		time.Sleep(60 * time.Second)
	}
}
