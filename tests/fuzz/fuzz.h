/*
 * fuzz.h — what the libFuzzer targets here share. Define FUZZ_NAME (the
 * target's name, a string) before including it, in the one file of a
 * target.
 *
 * - Undefined behaviour is a bug like a crash: UBSan stops at the first
 *   report, so that libFuzzer saves the input (UBSAN_OPTIONS=halt_on_error=0
 *   goes on).
 * - CHECK(c) aborts with the target's name and the place when c is false.
 * - fuzz_memfd() and fuzz_input() give an input's bytes as a file, the way
 *   the tools read them.
 */
#ifndef ZT_FUZZ_H
#define ZT_FUZZ_H

#include "input.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, FUZZ_NAME ": %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
	abort(); } } while (0)

/* A memfd holding data, at offset 0; -1 if the kernel refuses. */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create(FUZZ_NAME, MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A fresh input over a memfd holding data; NULL if the kernel refuses. */
static inline struct zt_input *fuzz_input(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);

	return fd < 0 ? NULL : zt_input_fdopen(fd, "<fuzz>");	/* owns fd */
}

#endif
