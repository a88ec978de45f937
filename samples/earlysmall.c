/*
 * earlysmall.c — libearlysmall.so: its constructor, which the loader runs
 * before zt's, starts two threads that zt finds already running when it
 * starts (samples/earlystacks links it; tests/0114):
 *
 * - a pthread on a 64 KiB stack of the library's own that spins in its
 *   deepest frame with 4 KiB of headroom, the rest of the stack filled with
 *   a pattern: early_small_join() says how many bytes below it no one
 *   touched (a signal handler run on this stack touches them, or overflows
 *   into the guard page below);
 * - a raw clone (no pthreads, sharing the creator's TLS) that spins on a
 *   stack of its own in raw_spin and, before it ends, asks the kernel with
 *   a raw sigaltstack call whether it has an alternate signal stack:
 *   early_raw_join() returns 1 if it had one.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { STACK = 64 * 1024, HEADROOM = 4096, SPINS = 250000000 };

static unsigned char *lo;	/* the small stack's lowest usable byte */
static pthread_t th;
static volatile unsigned long sink;
static volatile int raw_done, raw_alt;

__attribute__((noinline)) unsigned long early_small_spin(unsigned long x)
{
	for (long i = 0; i < SPINS; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

/* Take all of the stack but HEADROOM bytes, fill what is below with the pattern, spin. */
static __attribute__((noinline)) unsigned long deep(unsigned long x)
{
	char here;
	size_t room = (size_t)(&here - (char *)lo);
	volatile char *pad = alloca(room - HEADROOM);

	pad[0] = 1;
	memset(lo, 0xa5, (size_t)((char *)pad - 256 - (char *)lo));
	return early_small_spin(x);
}

static void *small_main(void *arg)
{
	(void)arg;
	sink = deep(1);
	return NULL;
}

__attribute__((noinline)) void raw_spin(void)
{
	for (long i = 0; i < SPINS; i++)
		sink += (unsigned long)i;
}

/*
 * The kernel's answer, past any interposer of sigaltstack or syscall (a
 * profiler's would answer with the TLS of this thread, which is its
 * creator's).
 */
static long raw_sigaltstack(stack_t *old)
{
#ifdef __x86_64__
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sigaltstack), "D"(0L), "S"(old)
			 : "rcx", "r11", "memory");
	return r;
#else
	return syscall(SYS_sigaltstack, NULL, old);
#endif
}

/* Raw system calls only: this thread's TLS is its creator's. */
static int raw_main(void *arg)
{
	stack_t ss;

	(void)arg;
	raw_spin();
	if (raw_sigaltstack(&ss) == 0)
		raw_alt = !(ss.ss_flags & SS_DISABLE);
	__atomic_store_n(&raw_done, 1, __ATOMIC_RELEASE);
	return 0;
}

__attribute__((constructor)) static void start(void)
{
	pthread_attr_t attr;
	unsigned char *m = mmap(NULL, STACK + 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *r = mmap(NULL, 256 * 1024, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || r == MAP_FAILED || mprotect(m, 4096, PROT_NONE) < 0)
		_exit(1);
	lo = m + 4096;
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, lo, STACK);
	if (pthread_create(&th, &attr, small_main, NULL) != 0)
		_exit(1);
	if (clone(raw_main, r + 256 * 1024, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		  CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0)
		_exit(1);
}

long early_small_join(void)
{
	long untouched = 0;

	pthread_join(th, NULL);
	while (untouched < STACK && lo[untouched] == 0xa5)
		untouched++;
	return untouched;
}

int early_raw_join(void)
{
	while (!__atomic_load_n(&raw_done, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(10000);	/* its exit, after the flag */
	return raw_alt;
}
