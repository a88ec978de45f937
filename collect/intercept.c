/*
 * intercept.c — the libc functions the collector must see, interposed by
 * being preloaded:
 *
 *   dlopen, dlclose      record the new objects' build-ids and unwind
 *                        tables; snapshot the maps after (snapshot.c), so
 *                        that every sample is named after what was mapped
 *                        when it was taken
 *   mmap, munmap,        the same around changes to executable mappings
 *   mprotect             (JIT code); cheap otherwise; the program's large
 *                        anonymous mappings are allocations (alloc.c)
 *   execve, execv,       finish the dump before the image is replaced (exec
 *   execvp, execvpe      skips destructors); restart it if the exec fails
 *   sigaction, signal    for the signals whose default kills, zt's handler
 *                        writes the dump first; the program still sees
 *                        SIG_DFL, and its own handler replaces zt's
 *   sigaction, signal    zt samples on a real-time signal nobody handled
 *                        at start (prof.c); SIGPROF and ITIMER_PROF are the
 *                        program's. A program that installs a handler on
 *                        zt's signal later keeps it: its disposition is
 *                        kept here, every signal that is not from zt's own
 *                        timers is passed to it, and zt moves to another
 *                        free signal (or shares this one when none is
 *                        left), which the dump says
 *   wait, waitpid,       record each child reaped with the kernel's account
 *   wait3, wait4, waitid of its CPU time (the -f line's "kernel's exit")
 *
 * Each passes through to the next definition (RTLD_NEXT).
 */
#include "intercept.h"
#include "alloc.h"
#include "dump.h"
#include "files.h"
#include "prof.h"
#include "sigmask.h"
#include "snapshot.h"
#include "tables.h"
#include "rawfmt.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			       const posix_spawnattr_t *, char *const[], char *const[]);
static int (*real_posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
				const posix_spawnattr_t *, char *const[], char *const[]);
static sighandler_t (*real_signal)(int, sighandler_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_mprotect)(void *, size_t, int);

#define RESOLVE(name) \
	do { if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name); } while (0)

void zt_intercept_init(void)
{
	RESOLVE(dlopen);
	RESOLVE(dlclose);
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(posix_spawn);
	RESOLVE(posix_spawnp);
	RESOLVE(signal);
	RESOLVE(mmap);
	RESOLVE(munmap);
	RESOLVE(mprotect);
}

/* The program's own disposition of each signal zt's handler is on; zeroed means SIG_DFL. */
static struct sigaction program_act[65];

/* Whether zt's handler is on sig. */
static int owned(int sig)
{
	return zt_state_signal_owned(sig);
}

int zt_intercept_program_handles(int sig)
{
	return owned(sig) && program_act[sig].sa_handler != SIG_DFL &&
	       program_act[sig].sa_handler != SIG_IGN;
}

/*
 * The mask the program's handler act would run with, had the kernel called
 * it: the interrupted code's, its sa_mask, and sig unless SA_NODEFER. Set
 * before zt's handler calls it, so that a handler that leaves with longjmp
 * leaves that mask, not zt's (everything blocked).
 */
static void handler_mask(int sig, const struct sigaction *act, const ucontext_t *uc)
{
	sigset_t m = uc->uc_sigmask;

	for (int s = 1; s < NSIG; s++)
		if (sigismember(&act->sa_mask, s) == 1)
			sigaddset(&m, s);
	if (!(act->sa_flags & SA_NODEFER))
		sigaddset(&m, sig);
	zt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&m, 0, NSIG / 8, 0, 0);
}

/*
 * A signal on one of zt's that did not come from zt's timers, handled as
 * the program asked. Runs inside zt's handler.
 */
void zt_intercept_foreign(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a;

	if (!owned(sig))
		return;
	a = program_act[sig];

	if (a.sa_handler != SIG_IGN && a.sa_handler != SIG_DFL)
		handler_mask(sig, &a, uc);
	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_flags & SA_RESETHAND)
			memset(&program_act[sig], 0, sizeof program_act[sig]);
		a.sa_sigaction(sig, si, uc);
	} else if (a.sa_handler == SIG_IGN) {
		return;
	} else if (a.sa_handler == SIG_DFL) {
		/* The default of every signal zt takes is to kill: finish the
		 * dump, then die of it. */
		struct sigaction dfl;
		sigset_t set;

		zt_prof_fatal_depth++;
		zt_prof_stop();
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		zt_sys_sigaction(sig, &dfl, NULL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		syscall(SYS_tgkill, getpid(), zt_sys_gettid(), sig);
		zt_sys_call(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&set, 0, NSIG / 8, 0, 0);
	} else {
		if (a.sa_flags & SA_RESETHAND)
			memset(&program_act[sig], 0, sizeof program_act[sig]);
		a.sa_handler(sig);
	}
}

/* In a process that no longer samples, give zt's signals back to the program. */
void zt_intercept_signals_release(void)
{
	for (int sig = 1; sig <= 64; sig++)
		if (owned(sig))
			zt_sys_sigaction(sig, &program_act[sig], NULL);
}

/* Whether act asks for the default action. */
static int is_default(const struct sigaction *act)
{
	return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

ZT_INTERPOSE int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (zt_prof_fatal_is_ours(sig)) {
		/* zt stands in for SIG_DFL: show SIG_DFL, keep standing in for it. */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		if (act && !is_default(act)) {
			zt_prof_fatal_release(sig);
			if (zt_sys_sigaction(sig, act, NULL) < 0)
				return -1;
		}
		if (old)
			*old = dfl;
		return 0;
	}
	if (act && is_default(act) && zt_state_owner_cached()) {
		/* Back to the default: zt stands in for it again. */
		struct sigaction prev;

		if (zt_prof_fatal_take(sig, &prev) == 0) {
			if (old)
				*old = prev;
			return 0;
		}
	}
	if (owned(sig) && zt_state_owner_cached()) {
		if (old)
			*old = program_act[sig];
		if (act) {
			program_act[sig] = *act;
			if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN)
				zt_prof_signal_taken(sig);
		}
		return 0;
	}
	return zt_sys_sigaction(sig, act, old);
}

ZT_INTERPOSE sighandler_t signal(int sig, sighandler_t handler)
{
	RESOLVE(signal);
	if ((owned(sig) && zt_state_owner_cached()) || zt_prof_fatal_is_ours(sig) ||
	    (handler == SIG_DFL && zt_state_owner_cached())) {
		struct sigaction act, old;

		memset(&act, 0, sizeof act);
		act.sa_handler = handler;
		act.sa_flags = SA_RESTART;
		sigaction(sig, &act, &old);
		return old.sa_handler;
	}
	return real_signal(sig, handler);
}

/*
 * Daemons close every descriptor they did not open. zt's own (the dump, the
 * sampling counters, all at 512 or above) are left open and the close is
 * reported done, so that sampling and the dump go on; every other
 * descriptor is closed as asked. (A raw close system call is not seen: then
 * files.c notices the loss before the next write.)
 */
ZT_INTERPOSE int close(int fd)
{
	static int (*real_close)(int);

	if (!real_close)
		*(void **)&real_close = dlsym(RTLD_NEXT, "close");
	if (zt_state_owner_cached() && zt_files_fd_is_ours(fd))
		return 0;
	if (!real_close)
		return (int)syscall(SYS_close, fd);
	return real_close(fd);
}

/* In order, in place: qsort could take memory from the program's malloc (sys.h). */
static void sort_ints(int *v, int n)
{
	for (int i = 1; i < n; i++) {
		int x = v[i], j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

ZT_INTERPOSE int close_range(unsigned lo, unsigned hi, int flags)
{
	int mine[3 * ZT_MAX_THREADS + 8];	/* perf counters, the off-CPU sampler's two a thread */
	unsigned from = lo;
	int n;

	/* Cached, as close's: a vforked child (Python's subprocess) spares them too. */
	if (!zt_state_owner_cached())
		return (int)syscall(SYS_close_range, lo, hi, flags);
	/* Close around zt's descriptors: each run of others, in order. */
	n = zt_files_fds_ours(mine, sizeof mine / sizeof mine[0]);
	sort_ints(mine, n);
	for (int i = 0; i < n; i++) {
		unsigned fd = (unsigned)mine[i];

		if (fd < from || fd > hi)
			continue;
		if (fd > from && syscall(SYS_close_range, from, fd - 1, flags) < 0)
			return -1;
		from = fd + 1;
	}
	if (from <= hi && from >= lo && syscall(SYS_close_range, from, hi, flags) < 0)
		return -1;
	return 0;
}

/*
 * glibc's closefrom (2.34) makes the close_range system call itself, past
 * the interposer above: so it is interposed too, and closes around zt's
 * descriptors the same way.
 */
ZT_INTERPOSE void closefrom(int lowfd)
{
	if (close_range(lowfd > 0 ? (unsigned)lowfd : 0, ~0U, 0) == 0)
		return;
	/* Without close_range (ENOSYS): one by one, as glibc falls back to. */
	for (int fd = lowfd > 0 ? lowfd : 0; fd < 65536; fd++)
		close(fd);
}

/*
 * dlopen and dlclose change the maps: a snapshot after, under snapshot.c's
 * lock, so that no other snapshot or interposed change falls between (a
 * constructor that calls dlopen takes the lock again). The state before is
 * the last snapshot's, since every change zt sees is followed by one,
 * unless the handler saw code outside it: then one is taken before too.
 */
ZT_INTERPOSE void *dlopen(const char *file, int mode)
{
	void *h;
	int saved;

	RESOLVE(dlopen);
	if (!zt_state_owner())
		return real_dlopen(file, mode);
	zt_snap_lock();
	zt_snap_if_stale();
	h = real_dlopen(file, mode);
	saved = errno;
	if (h) {
		zt_dump_buildids_scan();
		zt_tables_update();
		zt_snap_take();
	}
	zt_snap_unlock();
	errno = saved;
	return h;
}

ZT_INTERPOSE int dlclose(void *h)
{
	int rc, saved;

	RESOLVE(dlclose);
	if (!zt_state_owner())
		return real_dlclose(h);
	zt_snap_lock();
	zt_snap_if_stale();
	zt_tables_closing();
	rc = real_dlclose(h);
	saved = errno;
	zt_tables_update();
	zt_tables_closed();
	zt_snap_take();
	zt_snap_unlock();
	errno = saved;
	return rc;
}

/*
 * Executable memory that appears, disappears or is replaced (JIT code, a
 * runtime remapping its own code) is snapshotted the same way, after a
 * change that may remove, replace or add an executable mapping. Other
 * calls only pay a check. Before the collector resolved the
 * next definition, the system call is made directly.
 */
static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (real_mmap)
		return real_mmap(addr, len, prot, flags, fd, off);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* mmap for the code that caller returns to (alloc.c counts the program's anonymous ones). */
static void *mapped(void *addr, size_t len, int prot, int flags, int fd, off_t off,
		    const void *caller)
{
	int replaces, saved;
	void *p;

	if (!zt_state_owner())
		return sys_mmap(addr, len, prot, flags, fd, off);
	replaces = (flags & MAP_FIXED) && zt_snap_overlaps_exec((uintptr_t)addr, len);
	if (!replaces && !(prot & PROT_EXEC)) {
		p = sys_mmap(addr, len, prot, flags, fd, off);
		saved = errno;
		if ((flags & MAP_ANONYMOUS) && !(flags & (MAP_FIXED | MAP_NORESERVE)) &&
		    (prot & (PROT_READ | PROT_WRITE)))
			zt_alloc_mapped(p, len, caller);
		zt_snap_if_stale();
		errno = saved;
		return p;
	}
	zt_snap_lock();
	if (replaces)
		zt_snap_if_stale();
	p = sys_mmap(addr, len, prot, flags, fd, off);
	saved = errno;
	zt_snap_take();
	zt_snap_unlock();
	errno = saved;
	return p;
}

ZT_INTERPOSE void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mapped(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

ZT_INTERPOSE void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mapped(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

ZT_INTERPOSE int munmap(void *addr, size_t len)
{
	int rc, saved;

	if (!real_munmap || !zt_state_owner())
		return real_munmap ? real_munmap(addr, len) : (int)syscall(SYS_munmap, addr, len);
	zt_alloc_unmapped(addr, len);
	if (!zt_snap_overlaps_exec((uintptr_t)addr, len)) {
		rc = real_munmap(addr, len);
		saved = errno;
		zt_snap_if_stale();
		errno = saved;
		return rc;
	}
	zt_snap_lock();
	zt_snap_if_stale();
	rc = real_munmap(addr, len);
	saved = errno;
	zt_snap_take();
	zt_snap_unlock();
	errno = saved;
	return rc;
}

ZT_INTERPOSE int mprotect(void *addr, size_t len, int prot)
{
	int rc, saved;

	if (!real_mprotect)
		return (int)syscall(SYS_mprotect, addr, len, prot);
	rc = real_mprotect(addr, len, prot);
	if (!zt_state_owner())
		return rc;
	saved = errno;
	/* Memory made executable that no snapshot knows as such. */
	if (rc == 0 && (prot & PROT_EXEC) && !zt_snap_covered_exec((uintptr_t)addr, len))
		zt_snap_take();
	else
		zt_snap_if_stale();
	errno = saved;
	return rc;
}

/*
 * Why the loader will not preload zt into the program at path: statically
 * linked (an ELF file with no PT_INTERP), or set-user-ID or set-group-ID
 * to another user or group (secure-execution mode ignores LD_PRELOAD's
 * paths); NULL when it will, or when the file cannot be read. Scripts and
 * other formats are taken as reachable. Raw system calls only: this runs
 * in a vforked child, in its parent's memory.
 */
static const char *exec_unreachable(const char *path)
{
	unsigned char eh[64], ph[56];
	struct stat st;
	const char *why = NULL;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
			why = ZT_RAW_UNREACHED_SETUID;
		else if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
			why = ZT_RAW_UNREACHED_SETGID;
		else if (syscall(SYS_pread64, fd, eh, sizeof eh, 0) == (long)sizeof eh &&
			 memcmp(eh, ELFMAG, SELFMAG) == 0 && eh[EI_CLASS] == ELFCLASS64) {
			Elf64_Ehdr *e = (Elf64_Ehdr *)eh;
			int interp = 0;

			for (unsigned i = 0; i < e->e_phnum && i < 128 && !interp; i++) {
				Elf64_Phdr *p = (Elf64_Phdr *)ph;

				if (e->e_phentsize < sizeof *p ||
				    syscall(SYS_pread64, fd, ph, sizeof ph,
					    e->e_phoff + (uint64_t)i * e->e_phentsize) != (long)sizeof ph)
					break;
				interp = p->p_type == PT_INTERP;
			}
			if (!interp && e->e_phnum > 0)
				why = ZT_RAW_UNREACHED_STATIC;
		}
	}
	zt_sys_close(fd);
	return why;
}

/*
 * When zt cannot reach the program file that process pid runs, put it in
 * the list of this dump (zt_state.unreached) and return its slot; -1
 * otherwise. file is searched on PATH when it has no '/' and searching was
 * asked. No allocation, raw system calls: see vfork_exec_note.
 */
static int note_unreached(const char *file, int search, int pid)
{
	char buf[512];
	const char *path = file, *why = NULL;
	unsigned slot;

	if (search && !strchr(file, '/')) {
		const char *dirs = getenv("PATH");

		if (!dirs)
			dirs = "/usr/local/bin:/usr/bin:/bin";
		for (path = NULL; *dirs && !path; ) {
			size_t n = strcspn(dirs, ":"), f = strlen(file);

			if (n + f + 2 <= sizeof buf) {
				memcpy(buf, n ? dirs : ".", n ? n : 1);
				buf[n ? n : 1] = '/';
				memcpy(buf + (n ? n : 1) + 1, file, f + 1);
				if (syscall(SYS_faccessat, AT_FDCWD, buf, X_OK) == 0)
					path = buf;
			}
			dirs += n + (dirs[n] == ':');
		}
		if (!path)
			return -1;
	}
	why = exec_unreachable(path);
	if (!why)
		return -1;
	slot = __atomic_fetch_add(&zt_state.nunreached, 1, __ATOMIC_RELAXED);
	if (slot >= ZT_UNREACHED_MAX)
		return -1;
	strncpy(zt_state.unreached[slot].why, why, sizeof zt_state.unreached[slot].why - 1);
	strncpy(zt_state.unreached[slot].path, file, sizeof zt_state.unreached[slot].path - 1);
	__atomic_store_n(&zt_state.unreached[slot].pid, pid, __ATOMIC_RELEASE);
	return (int)slot;
}

/*
 * In a vforked child under -f, before it execs: the child runs in its
 * parent's memory and has no dump of its own, so a program zt cannot reach
 * goes into the parent's list. Returns the slot, so that a failed exec can
 * give it back, or -1.
 */
static int vfork_exec_note(const char *file, int search)
{
	if (!zt_state.follow || zt_state.dump.fd < 0 || getpid() == zt_state.pid)
		return -1;
	return note_unreached(file, search, (int)syscall(SYS_getpid));
}

/*
 * posix_spawn runs its program through glibc's own execve, which no
 * interposer sees: the parent judges the program once the child exists.
 */
ZT_INTERPOSE int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int rc;
	pid_t child;

	RESOLVE(posix_spawn);
	rc = real_posix_spawn(&child, path, fa, attr, argv, envp);
	if (pid && rc == 0)
		*pid = child;
	if (rc == 0 && zt_state.follow && zt_state_owner())
		note_unreached(path, 0, (int)child);
	return rc;
}

ZT_INTERPOSE int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int rc;
	pid_t child;

	RESOLVE(posix_spawnp);
	rc = real_posix_spawnp(&child, file, fa, attr, argv, envp);
	if (pid && rc == 0)
		*pid = child;
	if (rc == 0 && zt_state.follow && zt_state_owner())
		note_unreached(file, 1, (int)child);
	return rc;
}

/*
 * wait, waitpid, wait3, wait4, waitid: once a child is reaped, its CPU time
 * as the kernel accounts it (the child's whole time, its exit included, and
 * its own reaped descendants') is kept for the dump ("reaped PID NS").
 * zt-collect takes the child's own dump from it to measure each process's
 * exit in the kernel, which no process can measure of itself. It costs no
 * system call the program would not make: the wait family is one wait4
 * system call in the C library, and zt asks that same call for the child's
 * rusage when the program did not. waitid's rusage is not the C library's
 * to give: there, the growth of RUSAGE_CHILDREN since the last reaping (one
 * getrusage), so a child the C library reaped itself (system, pclose)
 * counts in that figure; after wait4 such a child is in no figure.
 */
static void reaped(pid_t pid, const struct rusage *child)
{
	struct rusage ru;
	uint64_t now, last, ns;
	unsigned i;

	if (pid <= 0 || zt_state.dump.fd < 0)
		return;
	if (child) {
		ns = zt_rusage_ns(child);
		__atomic_fetch_add(&zt_state.children_ns, ns, __ATOMIC_RELAXED);
	} else {
		/* Not once the dump is ended: a seccomp filter may kill getrusage then. */
		if (zt_state.seccomp == ZT_SECCOMP_STOPPED || getrusage(RUSAGE_CHILDREN, &ru) < 0)
			return;
		now = zt_rusage_ns(&ru);
		last = __atomic_exchange_n(&zt_state.children_ns, now, __ATOMIC_RELAXED);
		ns = now > last ? now - last : 0;
	}
	i = __atomic_fetch_add(&zt_state.nreaped, 1, __ATOMIC_RELAXED);
	if (i < ZT_REAPED_MAX) {
		zt_state.reaped[i].ns = ns;
		__atomic_store_n(&zt_state.reaped[i].pid, (int)pid, __ATOMIC_RELEASE);
	}
}

static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *);
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int);

ZT_INTERPOSE pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	struct rusage own;
	int saved, st;
	pid_t r;

	if (!real_wait4)
		*(void **)&real_wait4 = dlsym(RTLD_NEXT, "wait4");
	r = real_wait4(pid, status ? status : &st, options, ru ? ru : &own);
	saved = errno;
	/* A child stopped or continued (WUNTRACED, WCONTINUED) is not reaped. */
	if (r > 0 && (WIFEXITED(status ? *status : st) || WIFSIGNALED(status ? *status : st)))
		reaped(r, ru ? ru : &own);
	errno = saved;
	return r;
}

ZT_INTERPOSE pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}

ZT_INTERPOSE pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

ZT_INTERPOSE pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

ZT_INTERPOSE int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	int saved, r;

	if (!real_waitid)
		*(void **)&real_waitid = dlsym(RTLD_NEXT, "waitid");
	r = real_waitid(type, id, info, options);
	saved = errno;
	if (r == 0 && info && !(options & WNOWAIT) && info->si_pid > 0 &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	     info->si_code == CLD_DUMPED))
		reaped(info->si_pid, NULL);
	errno = saved;
	return r;
}

/* The exec failed: its program ran nowhere, give its slot back. */
static void vfork_exec_failed(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&zt_state.unreached[slot].pid, 0, __ATOMIC_RELEASE);
}

/* Finish the dump before exec replaces this image; restart it on failure. */
/*
 * With -f the new image, a descendant zt-collect reports on, keeps the
 * status pipe (its collector checks the pipe's inode and takes it
 * close-on-exec again): so what becomes of its dump is said too. Also from
 * a vforked child (dash runs commands so), which owns no dump: its
 * descriptors are its own. Last: the pipe is no longer zt's as recorded.
 */
static void keep_status(void)
{
	if (zt_state.follow)
		zt_files_keep_on_exec(1);
}

static void before_exec(const char *path)
{
	size_t n;

	if (!zt_state_owner()) {
		keep_status();
		return;
	}
	n = strlen(path);
	if (n >= sizeof zt_state.exec_path)
		n = sizeof zt_state.exec_path - 1;
	memcpy(zt_state.exec_path, path, n);
	zt_state.exec_path[n] = '\0';
	zt_prof_stop();
	/* The new image inherits the mask the program asked for. */
	zt_sigmask_reveal();
	keep_status();
}

static void after_failed_exec(void)
{
	int saved = errno;

	zt_files_keep_on_exec(0);

	if (zt_state.pid == getpid() && zt_state.dump.fd < 0) {
		zt_state.exec_path[0] = '\0';
		if (zt_prof_begin() == 0) {
			zt_sigmask_thread_start(0);
			zt_prof_arm();
		}
	}
	errno = saved;
}

ZT_INTERPOSE int execve(const char *path, char *const argv[], char *const envp[])
{
	int slot;

	RESOLVE(execve);
	slot = vfork_exec_note(path, 0);
	before_exec(path);
	real_execve(path, argv, envp);
	vfork_exec_failed(slot);
	after_failed_exec();
	return -1;
}

ZT_INTERPOSE int execv(const char *path, char *const argv[])
{
	extern char **environ;

	return execve(path, argv, environ);
}

ZT_INTERPOSE int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int slot;

	RESOLVE(execvpe);
	slot = vfork_exec_note(file, 1);
	before_exec(file);
	real_execvpe(file, argv, envp);
	vfork_exec_failed(slot);
	after_failed_exec();
	return -1;
}

ZT_INTERPOSE int execvp(const char *file, char *const argv[])
{
	extern char **environ;

	return execvpe(file, argv, environ);
}
