/*
 * unit.h — a minimal unit-test harness for lib/ and collect/.
 *
 * A test is a function declared with UNIT_TEST(name); it registers itself
 * from a constructor. CHECK records a failure and goes on. tests/unit/main.c
 * runs every registered test and ends with "unit: N passed, N failed".
 */
#ifndef ZT_UNIT_H
#define ZT_UNIT_H

#include <stdio.h>
#include <string.h>

typedef void (*unit_fn)(void);
void unit_register(const char *name, unit_fn fn);
void unit_fail(const char *file, int line, const char *expr);

/* The run's scratch directory: made at first use, removed at exit; NULL if it cannot be. */
const char *unit_dir(void);

/*
 * Write text to unit_dir()/name, then run the shell command cmd in
 * unit_dir() (to build a program the test reads); 0 on success. Tests
 * share the directory: each names its files after itself.
 */
int unit_make(const char *name, const char *text, const char *cmd);

/*
 * Run fn(arg) with stderr going to a file, and put what it wrote there into
 * buf (NUL-ended, cut at cap - 1 bytes): for messages checked word for word.
 */
void unit_stderr(void (*fn)(void *), void *arg, char *buf, size_t cap);

#define UNIT_TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void name##_register(void) \
	{ unit_register(#name, name); } \
	static void name(void)

#define CHECK(expr) \
	do { if (!(expr)) unit_fail(__FILE__, __LINE__, #expr); } while (0)

#define CHECK_EQ_U(a, b) \
	do { unsigned long long a_ = (a), b_ = (b); \
	     if (a_ != b_) { \
		char m_[256]; \
		snprintf(m_, sizeof m_, "%s == %s (0x%llx != 0x%llx)", #a, #b, a_, b_); \
		unit_fail(__FILE__, __LINE__, m_); } } while (0)

#define CHECK_STR(a, b) \
	do { const char *a_ = (a), *b_ = (b); \
	     if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
		char m_[512]; \
		snprintf(m_, sizeof m_, "%s == \"%s\" (got \"%s\")", #a, b_ ? b_ : "(null)", a_ ? a_ : "(null)"); \
		unit_fail(__FILE__, __LINE__, m_); } } while (0)

#endif
