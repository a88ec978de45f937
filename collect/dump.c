/*
 * dump.c — the raw dump file (formats/raw.md: version 4, 5 for a wall-clock
 * profile).
 *
 * The header and the "samples" line are written when sampling starts; sample
 * lines are appended by the threads' buffers during the run; the maps
 * snapshots and the build-ids go to the side file FILE.tmp.PID.maps as they
 * are found (snapshot.c), so that zt-collect can finish the dump of a
 * process that died without this end (formats/raw.md, "Finished by
 * zt-collect"). At the end the side file, the final maps, the build-ids
 * found since, thread names and the summary are appended, followed by "end". The file is written
 * under a temporary name and renamed when complete (compressed on the way
 * with -z), so a dump is never seen half-written. Only system calls and
 * formatting into fixed buffers are used, and zlib gets a static arena, so
 * this code also runs inside a fatal signal's handler, where malloc cannot.
 */
#include "dump.h"
#include "extent.h"
#include "arch.h"
#include "files.h"
#include "fmt.h"
#include "perfmap.h"
#include "snapshot.h"
#include "spill.h"
#include "unwind.h"
#include "vdso.h"
#include "launch.h"
#include "rawfmt.h"
#include "labels.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include <zlib.h>

static const char *const loss_names[ZT_NLOSS] = {
	[ZT_LOST_WRITE] = ZT_RAW_LOST_WRITE,
	[ZT_LOST_FD] = ZT_RAW_LOST_FD,
	[ZT_LOST_WAIT] = ZT_RAW_LOST_WAIT,
	[ZT_LOST_DEFERRED] = ZT_RAW_LOST_DEFERRED,
};

/* The dump's descriptor while the header or the end is written. */
static int dfd = -1;
/* zt_dump_register's, set before any dump. */
static const struct zt_dump_part *parts[ZT_DUMP_PARTS];
static int nparts;

void zt_dump_register(const struct zt_dump_part *p)
{
	if (nparts < ZT_DUMP_PARTS)
		parts[nparts++] = p;
}

static void open_maps_now(void);
static void buildids_to_side(void);
/*
 * The build-ids already in the side file (snapshot.c) of side file number
 * bids_gen: the end writes only the rest, and zt-collect finds them there
 * when the process dies without its end.
 */
static uint32_t bids_side;
static unsigned bids_gen;

static void put_buildid_lines(int fd, uint32_t from, uint32_t n);

/* "key value\n" with a decimal value. */
void zt_dump_put_key(int fd, const char *key, uint64_t v)
{
	char buf[64], *p = buf;

	zt_files_puts(fd, key);
	*p++ = ' ';
	p = zt_fmt_u64(p, v, 10);
	*p++ = '\n';
	zt_files_write_all(fd, buf, (size_t)(p - buf));
}

/*
 * The collector's own code, as it knows it (never by its file's name, which
 * a program's library could share): the extent of libzt-prof.so's PT_LOADs
 * from its own program headers (__ehdr_start, its ELF header as loaded),
 * and the section of its interposers and start trampoline (sys.h's
 * ZT_INTERPOSE). Readers show a sample in zt's other code as "[zt]".
 */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
extern const char __start_zt_handover[] __attribute__((visibility("hidden")));
extern const char __stop_zt_handover[] __attribute__((visibility("hidden")));

static void put_range(int fd, const char *key, uintptr_t lo, uintptr_t hi)
{
	char buf[64], *p = buf;

	zt_files_puts(fd, key);
	*p++ = ' ';
	p = zt_fmt_u64(p, lo, 16);
	*p++ = '-';
	p = zt_fmt_u64(p, hi, 16);
	*p++ = '\n';
	zt_files_write_all(fd, buf, (size_t)(p - buf));
}

int zt_dump_own_code(uintptr_t *lo, uintptr_t *hi)
{
	return zt_extent_of(&__ehdr_start, lo, hi);
}

static void put_own_code(int fd)
{
	uintptr_t lo, hi;

	if (zt_dump_own_code(&lo, &hi))
		put_range(fd, ZT_RAW_ZT_CODE, lo, hi);
	if ((uintptr_t)__start_zt_handover < (uintptr_t)__stop_zt_handover)
		put_range(fd, ZT_RAW_ZT_HANDOVER, (uintptr_t)__start_zt_handover,
			  (uintptr_t)__stop_zt_handover);
}

static const char *timer_name(void)
{
	switch (zt_state.timer) {
	case ZT_TIMER_PERF:
		return ZT_RAW_TIMER_PERF;
	case ZT_TIMER_POSIX:
		return ZT_RAW_TIMER_POSIX;
	default:
		return ZT_RAW_TIMER_NONE;
	}
}

/*
 * Open the temporary dump and write its header. 0 on success. keep: a
 * snapshot's successor, on the first dump's time origin (its start-ns),
 * so that the times of every snapshot and of the build-ids and maps
 * carried over are on one clock.
 */
static int open_dump(int keep)
{
	char exe[4096];
	ssize_t n;
	size_t len = strlen(zt_state.out);
	char *p;
	int version;

	if (len + 24 > sizeof zt_state.tmp)
		return -1;
	memcpy(zt_state.tmp, zt_state.out, len);
	p = zt_state.tmp + len;
	memcpy(p, ".tmp.", 5);
	p = zt_fmt_u64(p + 5, (uint64_t)zt_state.name_pid, 10);
	*p = '\0';
	/*
	 * The name is predictable: create it exclusively and never through a
	 * symbolic link, so that a file or link planted there is not written
	 * through (the run then has no dump, and zt-collect says so).
	 */
	zt_files_dir_open(zt_state.tmp);
	open_maps_now();
	dfd = zt_files_own(&zt_state.dump, zt_files_open_in_dir(zt_state.tmp, O_WRONLY | O_CREAT |
						     O_EXCL | O_APPEND, 0644));
	zt_files_watch(dfd);
	if (dfd < 0) {
		zt_files_status(ZT_STATUS_OPEN_FAILED, errno, 0);
		return -1;
	}
	zt_state.write_errno = 0;
	zt_state.fd_lost = 0;
	version = zt_state.wall ? ZT_RAW_VERSION_WALL : ZT_RAW_VERSION;
	for (int i = 0; i < nparts; i++)
		if (parts[i]->version > version)
			version = parts[i]->version;
	zt_dump_put_key(dfd, ZT_RAW_MAGIC, (uint64_t)version);
	zt_dump_put_key(dfd, ZT_RAW_PID, (uint64_t)zt_state.pid);
	zt_files_puts(dfd, ZT_RAW_ARCH " " ZT_ARCH_RAW_NAME "\n");
	zt_labels_put(dfd);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		zt_files_puts(dfd, ZT_RAW_EXE " ");
		zt_files_put_text(dfd, exe, (size_t)n);
		zt_files_puts(dfd, "\n");
	}
	zt_dump_put_key(dfd, ZT_RAW_HZ, zt_state.hz);
	zt_dump_put_key(dfd, ZT_RAW_SIGNAL, (uint64_t)zt_state.signo_start);
	zt_files_puts(dfd, ZT_RAW_TIMER " ");
	zt_files_puts(dfd, timer_name());
	zt_files_puts(dfd, "\n");
	if (zt_state.timer == ZT_TIMER_POSIX)
		zt_files_puts(dfd, ZT_RAW_RATE_CAP " " ZT_RAW_CAP_KERNEL_TICK "\n");
	zt_dump_put_key(dfd, ZT_RAW_MAX_DEPTH, zt_state.max_depth);
	put_own_code(dfd);
	zt_files_puts(dfd, zt_state.unwind == ZT_UNWIND_FP ? ZT_RAW_UNWIND " " ZT_RAW_UNWIND_FP "\n" :
		zt_state.unwind == ZT_UNWIND_CFI ? ZT_RAW_UNWIND " " ZT_RAW_UNWIND_CFI "\n" :
		ZT_RAW_UNWIND " " ZT_RAW_UNWIND_AUTO "\n");
	if (!keep) {
		zt_state.start_ns = zt_sys_clock_ns(CLOCK_MONOTONIC);
		zt_state.start_time_ns = zt_sys_clock_ns(CLOCK_REALTIME);
	}
	zt_files_puts(dfd, ZT_RAW_CLOCK " " ZT_RAW_CLOCK_MONOTONIC "\n");
	zt_dump_put_key(dfd, ZT_RAW_START_NS, zt_state.start_ns);
	zt_dump_put_key(dfd, ZT_RAW_START_TIME_NS, zt_state.start_time_ns);
	if (zt_state.wall) {
		zt_files_puts(dfd, ZT_RAW_PROFILE_CLOCK " " ZT_RAW_PROFILE_WALL "\n");
		zt_dump_put_key(dfd, ZT_RAW_OFF_CPU_HZ, zt_state.off_cpu_hz);
	}
	for (int i = 0; i < nparts; i++)
		if (parts[i]->put_header)
			parts[i]->put_header(dfd);
	/* Before the samples: in the file zt-collect finishes when the
	   process dies without its end, and skipped by older readers. */
	zt_vdso_put(dfd);
	zt_files_puts(dfd, ZT_RAW_SAMPLES "\n");
	zt_files_watch(dfd = -1);
	zt_snap_reset();
	/* The side file of this dump is new: every build-id known goes in it. */
	bids_side = 0;
	bids_gen = zt_snap_side_gen() - 1;
	buildids_to_side();
	return 0;
}

int zt_dump_open(void)
{
	if (open_dump(0) < 0)
		return -1;
	zt_spill_start();
	/* For zt-collect -f: this process has a dump to finish (it names those that never do). */
	zt_files_status_started();
	return 0;
}

int zt_dump_reopen(void)
{
	return open_dump(1);
}

/*
 * /proc/self/maps, opened when the dump is, so that it can still be read at
 * the end after a chroot; re-read from the start it shows the maps of now
 * (snapshot.c). Not kept when it is no procfs file: qemu-user answers the
 * open with a copy of the maps of that moment, so each read opens anew.
 */
static void open_maps_now(void)
{
	struct statfs fs;

	zt_files_close(&zt_state.maps_now);
	zt_files_own(&zt_state.maps_now, open("/proc/self/maps", O_RDONLY | O_CLOEXEC));
	if (zt_state.maps_now.fd >= 0 &&
	    (fstatfs(zt_state.maps_now.fd, &fs) < 0 || fs.f_type != PROC_SUPER_MAGIC))
		zt_files_close(&zt_state.maps_now);
}

/*
 * Record the build-id of every loaded ELF object not yet in the table, read
 * from the notes of the image in memory rather than the file, which may
 * have changed since. Called at start and after each dlopen, never from a
 * signal handler (dl_iterate_phdr takes the loader's lock).
 */
static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t first = 0;
	int have_first = 0;
	uint32_t n = zt_state.nbids;

	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && !have_first) {
			first = info->dlpi_addr + ph->p_vaddr;
			have_first = 1;
		}
	}
	if (!have_first)
		return 0;
	if (n >= ZT_MAX_BUILDIDS)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;
		size_t a = ph->p_align == 8 ? 8 : 4;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc =
				(const unsigned char *)name + ((nh->n_namesz + a - 1) & ~(a - 1));
			struct zt_bid *b = &zt_state.bids[n];
			size_t len;

			if ((const char *)desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz > 0 &&
			    nh->n_descsz <= sizeof b->id) {
				uint64_t t = zt_sys_clock_ns(CLOCK_MONOTONIC);

				/* Known: the same object at the same place. Another
				 * object loaded where an unloaded one was is new. */
				for (uint32_t i = 0; i < n; i++)
					if (zt_state.bids[i].addr == first &&
					    zt_state.bids[i].len == nh->n_descsz &&
					    memcmp(zt_state.bids[i].id, desc, nh->n_descsz) == 0)
						return 0;
				b->addr = first;
				b->ns = t > zt_state.start_ns ? t - zt_state.start_ns : 0;
				b->len = nh->n_descsz;
				memcpy(b->id, desc, nh->n_descsz);
				len = strlen(info->dlpi_name);
				if (len >= sizeof b->path)
					len = sizeof b->path - 1;
				memcpy(b->path, info->dlpi_name, len);
				b->path[len] = '\0';
				__atomic_store_n(&zt_state.nbids, n + 1, __ATOMIC_RELEASE);
				return 0;
			}
			p = (const char *)desc + ((nh->n_descsz + a - 1) & ~(a - 1));
		}
	}
	return 0;
}


/* The build-ids not yet in the side file, written there now. */
static void buildids_to_side(void)
{
	uint32_t n = __atomic_load_n(&zt_state.nbids, __ATOMIC_ACQUIRE);
	int fd, saved = errno;

	if (!zt_state_owner())
		return;
	zt_snap_lock();
	fd = zt_snap_side_fd();
	if (bids_gen != zt_snap_side_gen()) {
		bids_gen = zt_snap_side_gen();
		bids_side = 0;
	}
	if (fd >= 0 && bids_side < n) {
		put_buildid_lines(fd, bids_side, n);
		bids_side = n;
	}
	zt_snap_unlock();
	errno = saved;
}

void zt_dump_buildids_scan(void)
{
	dl_iterate_phdr(scan_object, NULL);
	buildids_to_side();
}

static void put_buildid_lines(int fd, uint32_t from, uint32_t n)
{
	zt_files_puts(fd, ZT_RAW_BUILDIDS "\n");
	for (uint32_t i = from; i < n; i++) {
		const struct zt_bid *b = &zt_state.bids[i];
		char buf[256], *q = zt_fmt_u64(buf, b->addr, 16);

		*q++ = ' ';
		*q++ = ZT_RAW_TIME_MARK;
		q = zt_fmt_u64(q, b->ns, 10);
		*q++ = ' ';
		for (unsigned j = 0; j < b->len; j++) {
			*q++ = "0123456789abcdef"[b->id[j] >> 4];
			*q++ = "0123456789abcdef"[b->id[j] & 15];
		}
		*q++ = ' ';
		zt_files_write_all(fd, buf, (size_t)(q - buf));
		if (b->path[0])
			zt_files_put_text(fd, b->path, strlen(b->path));
		else
			zt_files_puts(fd, ZT_RAW_MAIN_PROGRAM);
		zt_files_puts(fd, "\n");
	}
}

/* The build-ids the side file (copied into the dump before) does not hold. */
static void put_buildids(void)
{
	uint32_t n = zt_state.nbids, from = bids_gen == zt_snap_side_gen() ? bids_side : 0;

	put_buildid_lines(dfd, from > n ? n : from, n);
}

/*
 * A snapshot's names of the threads still running (the end records them
 * in the table before it flushes them; a snapshot must not, or the table
 * would grow with every snapshot).
 */
static void put_live_names(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	for (int i = 0; i < n; i++) {
		const struct zt_thread *t = zt_state.threads[i];
		char path[64] = "/proc/self/task/", name[32], *p;
		ssize_t len = 0;
		int fd;

		if (!t || !t->live || t->closed)
			continue;
		p = zt_fmt_u64(path + strlen(path), (uint64_t)t->tid, 10);
		memcpy(p, "/comm", 6);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, name, sizeof name - 1);
		zt_sys_close(fd);
		while (len > 0 && name[len - 1] == '\n')
			len--;
		if (len <= 0)
			continue;
		p = zt_fmt_u64(path, (uint64_t)t->tid, 10);
		*p++ = ' ';
		zt_files_write_all(dfd, path, (size_t)(p - path));
		zt_files_put_text(dfd, name, (size_t)(len > 15 ? 15 : len));
		zt_files_puts(dfd, "\n");
	}
}

/* The program's handlers on zt's signal: "signal-taken FROM moved TO" or "FROM shared". */
static void put_taken(void)
{
	unsigned n = __atomic_load_n(&zt_state.ntaken, __ATOMIC_RELAXED);

	for (unsigned i = 0; i < n && i < ZT_TAKEN_MAX; i++) {
		char buf[64], *p = buf;

		memcpy(p, ZT_RAW_SIGNAL_TAKEN " ", sizeof ZT_RAW_SIGNAL_TAKEN);
		p = zt_fmt_u64(p + sizeof ZT_RAW_SIGNAL_TAKEN, (uint64_t)zt_state.taken[i].from, 10);
		if (zt_state.taken[i].to) {
			memcpy(p, " " ZT_RAW_SIGNAL_MOVED " ", sizeof ZT_RAW_SIGNAL_MOVED + 1);
			p = zt_fmt_u64(p + sizeof ZT_RAW_SIGNAL_MOVED + 1,
				       (uint64_t)zt_state.taken[i].to, 10);
		} else {
			memcpy(p, " " ZT_RAW_SIGNAL_SHARED, sizeof ZT_RAW_SIGNAL_SHARED);
			p += sizeof ZT_RAW_SIGNAL_SHARED;
		}
		*p++ = '\n';
		zt_files_write_all(dfd, buf, (size_t)(p - buf));
	}
}

/* Thread names: the table of ended threads, then the live ones. */
static void put_threads(void)
{
	uint32_t n = zt_state.nnames < ZT_MAX_NAMES ? zt_state.nnames : ZT_MAX_NAMES;

	zt_files_puts(dfd, ZT_RAW_THREADS "\n");
	for (uint32_t i = 0; i < n; i++) {
		char buf[32], *p = zt_fmt_u64(buf, (uint64_t)zt_state.names[i].tid, 10);

		*p++ = ' ';
		zt_files_write_all(dfd, buf, (size_t)(p - buf));
		if (zt_state.names[i].name[0])
			zt_files_put_text(dfd, zt_state.names[i].name, strlen(zt_state.names[i].name));
		else
			zt_files_puts(dfd, ZT_RAW_NO_NAME);
		zt_files_puts(dfd, "\n");
	}
	if (zt_state.snapshot)
		put_live_names();
}

/*
 * The process's CPU time while sampling ran in this dump: its windows'
 * (all of it when sampling was never paused).
 */
static uint64_t sampled_cpu(void)
{
	int64_t end = zt_state.cpu_stop_ns ? zt_state.cpu_stop_ns : zt_sys_cpu_ns();
	uint64_t cpu = zt_state.window_cpu_ns;

	if (!zt_state.paused && end > zt_state.window_cpu0)
		cpu += (uint64_t)(end - zt_state.window_cpu0);
	return cpu;
}

static void put_summary(void)
{
	struct rusage ru;
	uint64_t lost = 0;
	char buf[256], *p;

	for (int i = 0; i < ZT_NLOSS; i++)
		lost += zt_state.lost[i];
	zt_files_puts(dfd, ZT_RAW_SUMMARY "\n");
	zt_dump_put_key(dfd, ZT_RAW_NSAMPLES, zt_state.samples);
	p = buf;
	memcpy(p, ZT_RAW_LOST " ", sizeof ZT_RAW_LOST " " - 1);
	p = zt_fmt_u64(p + sizeof ZT_RAW_LOST " " - 1, lost, 10);
	for (int i = 0; i < ZT_NLOSS; i++) {
		if (!zt_state.lost[i])
			continue;
		*p++ = ' ';
		memcpy(p, loss_names[i], strlen(loss_names[i]));
		p += strlen(loss_names[i]);
		*p++ = '=';
		p = zt_fmt_u64(p, zt_state.lost[i], 10);
	}
	*p++ = '\n';
	zt_files_write_all(dfd, buf, (size_t)(p - buf));
	zt_dump_put_key(dfd, ZT_RAW_TRUNCATED, zt_state.truncated);
	zt_dump_put_key(dfd, ZT_RAW_PARTIAL, zt_state.partial);
	if (zt_state.unwind != ZT_UNWIND_FP) {
		zt_dump_put_key(dfd, ZT_RAW_CFI_OBJECTS, zt_state.cfi_objects);
		zt_dump_put_key(dfd, ZT_RAW_CFI_ROWS, zt_state.cfi_rows);
		zt_dump_put_key(dfd, ZT_RAW_CFI_BYTES, zt_state.cfi_bytes);
		zt_dump_put_key(dfd, ZT_RAW_CFI_BUILD_NS, zt_state.cfi_build_ns);
		zt_dump_put_key(dfd, ZT_RAW_CFI_SKIPPED, __atomic_load_n(&zt_state.cfi_skipped, __ATOMIC_RELAXED));
		zt_dump_put_key(dfd, ZT_RAW_CFI_LAZY, zt_state.cfi_lazy);
	}
	zt_dump_put_key(dfd, ZT_RAW_ZT_MINFLT, __atomic_load_n(&zt_state.own_minflt, __ATOMIC_RELAXED) +
		(zt_state.stop_minflt0 ? zt_sys_minflt() - zt_state.stop_minflt0 : 0));
	zt_dump_put_key(dfd, ZT_RAW_MAPS_SNAPSHOTS, zt_state.maps_snapshots);
	if (zt_state.maps_lost)
		zt_dump_put_key(dfd, ZT_RAW_MAPS_LOST, zt_state.maps_lost);
	if (zt_state.perfmap_state == 1) {
		zt_dump_put_key(dfd, ZT_RAW_PERFMAP_LINES, zt_state.perfmap_lines);
		zt_dump_put_key(dfd, ZT_RAW_PERFMAP_SKIPPED, zt_state.perfmap_skipped);
		if (zt_state.perfmap_truncated)
			zt_dump_put_key(dfd, ZT_RAW_PERFMAP_TRUNCATED, 1);
	} else if (zt_state.perfmap_state == 2) {
		zt_dump_put_key(dfd, ZT_RAW_PERFMAP_REFUSED, 1);
	}
	if (zt_state.unsampled)
		zt_dump_put_key(dfd, ZT_RAW_UNSAMPLED, zt_state.unsampled);
	if (zt_state.sigprof_blocked)
		zt_dump_put_key(dfd, ZT_RAW_SIGPROF_BLOCKED, zt_state.sigprof_blocked);
	{
		/*
		 * CPU time no sample covers: with SIGPROF blocked for real
		 * (sigmask.c), and what the process used that no thread's
		 * timer counted (threads without one, a raw clone's).
		 */
		uint64_t cpu = sampled_cpu();
		uint64_t seen = __atomic_load_n(&zt_state.sampled_cpu_ns, __ATOMIC_RELAXED);
		/* With windows the timers count paused time too, and running
		 * threads' counts are summed only at their end: left out. The
		 * off-CPU sampler thread's time is zt's. */
		uint64_t none, own = 0;

		for (int i = 0; i < nparts; i++)
			if (parts[i]->own_cpu_ns)
				own += parts[i]->own_cpu_ns();

		cpu = cpu > own ? cpu - own : 0;
		none = zt_state.unsampled_cpu_ns + (!zt_state.control && cpu > seen ? cpu - seen : 0);

		if (none)
			zt_dump_put_key(dfd, ZT_RAW_UNSAMPLED_CPU_NS, none);
		if (zt_state.unsampled_cpu_ns)
			zt_dump_put_key(dfd, ZT_RAW_UNSAMPLED_BLOCKED_NS, zt_state.unsampled_cpu_ns);
	}
	if (zt_state.timers_lost)
		zt_dump_put_key(dfd, ZT_RAW_TIMERS_LOST, zt_state.timers_lost);
	if (zt_state.timer_fallback)
		zt_dump_put_key(dfd, ZT_RAW_TIMER_FALLBACK, zt_state.timer_fallback);
	if (zt_state.fd_reopened)
		zt_dump_put_key(dfd, ZT_RAW_DUMP_REOPENED, zt_state.fd_reopened);
	put_taken();
	for (unsigned i = 0; i < zt_state.nunreached && i < ZT_UNREACHED_MAX; i++) {
		int pid = __atomic_load_n(&zt_state.unreached[i].pid, __ATOMIC_ACQUIRE);
		char num[24];

		if (!pid)
			continue;
		zt_files_puts(dfd, ZT_RAW_UNREACHED " ");
		*zt_fmt_u64(num, (uint64_t)pid, 10) = '\0';
		zt_files_puts(dfd, num);
		zt_files_puts(dfd, " ");
		zt_files_puts(dfd, zt_state.unreached[i].why);
		zt_files_puts(dfd, " ");
		zt_files_put_text(dfd, zt_state.unreached[i].path, strlen(zt_state.unreached[i].path));
		zt_files_puts(dfd, "\n");
	}
	if (zt_state.exec_path[0]) {
		zt_files_puts(dfd, ZT_RAW_EXEC " ");
		zt_files_put_text(dfd, zt_state.exec_path, strlen(zt_state.exec_path));
		zt_files_puts(dfd, "\n");
	}
	zt_dump_put_key(dfd, ZT_RAW_CPU_NS, sampled_cpu());
	/*
	 * What the sampled threads ran while their timers ran, by their own
	 * clocks: what the samples stand for. Not with windows: the timers
	 * run while sampling is paused too.
	 */
	if (!zt_state.control) {
		zt_dump_put_key(dfd, ZT_RAW_SAMPLED_USER_NS, zt_state.sampled_user_ns);
		zt_dump_put_key(dfd, ZT_RAW_SAMPLED_SYS_NS, zt_state.sampled_sys_ns);
	}
	/*
	 * zt's own exit work so far (stopping, flushing, the end's sections):
	 * said apart, as its set-up is, so that it is not taken for the
	 * program's unsampled time. What comes after these figures (the
	 * dump's sync and rename) goes to zt-collect (zt_dump_finish).
	 */
	if (zt_state.exit_cpu0 && !zt_state.snapshot) {
		zt_state.summary_cpu = zt_sys_cpu_ns();
		if (zt_state.summary_cpu > zt_state.exit_cpu0)
			zt_dump_put_key(dfd, ZT_RAW_ZT_EXIT_NS,
				(uint64_t)(zt_state.summary_cpu - zt_state.exit_cpu0));
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		uint64_t user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
				(uint64_t)ru.ru_utime.tv_usec * 1000u;
		uint64_t sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
			       (uint64_t)ru.ru_stime.tv_usec * 1000u;
		uint64_t ustart = zt_state.user_start_ns, sstart = zt_state.sys_start_ns;

		if (zt_state.control) {
			/* The end values less the user and system time while
			 * sampling was on, so that their difference is the
			 * windows' (formats/raw.md). */
			uint64_t u = zt_state.window_user_ns, k = zt_state.window_sys_ns;

			if (!zt_state.paused) {
				u += user > zt_state.window_user0 ? user - zt_state.window_user0 : 0;
				k += sys > zt_state.window_sys0 ? sys - zt_state.window_sys0 : 0;
			}
			ustart = user > u ? user - u : 0;
			sstart = sys > k ? sys - k : 0;
		}
		zt_dump_put_key(dfd, ZT_RAW_CPU_USER_START_NS, ustart);
		zt_dump_put_key(dfd, ZT_RAW_CPU_SYS_START_NS, sstart);
		zt_dump_put_key(dfd, ZT_RAW_CPU_USER_NS, user);
		zt_dump_put_key(dfd, ZT_RAW_CPU_SYS_NS, sys);
	} else {
		zt_dump_put_key(dfd, ZT_RAW_CPU_USER_START_NS, zt_state.user_start_ns);
		zt_dump_put_key(dfd, ZT_RAW_CPU_SYS_START_NS, zt_state.sys_start_ns);
	}
	if (zt_state.setup_ns)
		zt_dump_put_key(dfd, ZT_RAW_ZT_SETUP_NS, zt_state.setup_ns);
	/*
	 * The children it reaped, each with the kernel's account of it, and
	 * all it reaped (RUSAGE_CHILDREN): zt-collect's -f line takes each
	 * child's own dump from its figure to say its exit in the kernel.
	 */
	if (!zt_state.snapshot && getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		unsigned n = __atomic_load_n(&zt_state.nreaped, __ATOMIC_RELAXED);

		zt_dump_put_key(dfd, ZT_RAW_CPU_CHILDREN_NS, zt_rusage_ns(&ru));
		for (unsigned i = 0; i < n && i < ZT_REAPED_MAX; i++) {
			int pid = __atomic_load_n(&zt_state.reaped[i].pid, __ATOMIC_ACQUIRE);
			char line[64], *p = line;

			if (!pid)
				continue;
			memcpy(p, ZT_RAW_REAPED " ", sizeof ZT_RAW_REAPED);
			p = zt_fmt_u64(p + sizeof ZT_RAW_REAPED, (uint64_t)pid, 10);
			*p++ = ' ';
			p = zt_fmt_u64(p, zt_state.reaped[i].ns, 10);
			*p++ = '\n';
			zt_files_write_all(dfd, line, (size_t)(p - line));
		}
		if (n > ZT_REAPED_MAX)
			zt_dump_put_key(dfd, ZT_RAW_REAPED_UNRECORDED, n - ZT_REAPED_MAX);
	}
	for (int i = 0; i < nparts; i++)
		if (parts[i]->put_summary)
			parts[i]->put_summary(dfd);
}

/*
 * zlib's memory for -z, from a static arena: deflate with the default window
 * and memory level needs about 268 KiB, and malloc is off limits in a signal
 * handler. The arena is reset for each dump.
 */
static unsigned char zarena[512 * 1024] __attribute__((aligned(16)));
static size_t zused;

static void *zalloc(void *opaque, unsigned items, unsigned size)
{
	size_t n = ((size_t)items * size + 15) & ~(size_t)15;

	(void)opaque;
	if (n > sizeof zarena - zused)
		return Z_NULL;
	zused += n;
	return zarena + zused - n;
}

static void zfree(void *opaque, void *p)
{
	(void)opaque;
	(void)p;
}

/* Compress the file at from into to (an open fd); 0, or the errno of what failed. */
static int compress_file(const char *from, int to)
{
	static unsigned char in[32768], out[32768];
	z_stream z;
	int fd = zt_files_open_in_dir(from, O_RDONLY, 0), flush, rc = 0;

	if (fd < 0)
		return errno;
	memset(&z, 0, sizeof z);
	zused = 0;
	z.zalloc = zalloc;
	z.zfree = zfree;
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		zt_sys_close(fd);
		return ENOMEM;
	}
	do {
		ssize_t n = read(fd, in, sizeof in);
		int zrc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno;
			break;
		}
		flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = in;
		z.avail_in = (unsigned)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			zrc = deflate(&z, flush);
			if (zrc == Z_STREAM_ERROR) {
				rc = EIO;
				break;
			}
			if (zt_files_write_all(to, (const char *)out, sizeof out - z.avail_out) < 0) {
				rc = errno ? errno : EIO;
				break;
			}
		} while (z.avail_out == 0);
	} while (rc == 0 && flush != Z_FINISH);
	deflateEnd(&z);
	zt_sys_close(fd);
	if (rc == 0 && fdatasync(to) < 0 && errno != EINVAL)
		rc = errno;	/* a full disk may only say so now */
	return rc;
}

/* Drop the dump in progress (a failed start). */
void zt_dump_abandon(void)
{
	zt_spill_end();
	zt_files_close(&zt_state.dump);
	zt_files_unlink_in_dir(zt_state.tmp);
}

/* All the samples this dump took, written or not. */
static uint64_t all_samples(void)
{
	uint64_t n = zt_state.samples;

	for (int i = 0; i < ZT_NLOSS; i++)
		n += zt_state.lost[i];
	return n;
}

/* Write the sections known only at the end; -1 when a write failed. */
static int put_end(int fd)
{
	zt_files_watch(dfd = fd);
	for (int i = 0; i < nparts; i++)
		if (parts[i]->put_samples)
			parts[i]->put_samples(fd);
	zt_snap_finish(fd);
	zt_files_close(&zt_state.maps_now);
	zt_perfmap_put(fd);
	put_buildids();
	put_threads();
	put_summary();
	zt_files_puts(fd, ZT_RAW_END "\n");
	zt_files_watch(dfd = -1);
	if (zt_state.write_errno == 0 && fdatasync(fd) < 0 && errno != EINVAL)
		zt_files_write_failed(errno);
	return zt_state.write_errno ? -1 : 0;
}

/*
 * Publish the whole dump at zt_state.tmp as to (compressed on the way with
 * -z), through the output directory. report: tell zt-collect how it went
 * (the end's dump; a snapshot's client is told instead). 0, or the errno
 * of the rename that failed (the whole dump is then kept under tmp).
 */
static int publish(const char *to, int report)
{
	if (zt_state.gzip) {
		char gz[sizeof zt_state.tmp + 8];
		size_t len = strlen(zt_state.tmp);
		int out, err;

		memcpy(gz, zt_state.tmp, len);
		memcpy(gz + len, ".gz", 4);
		out = zt_files_open_in_dir(gz, O_WRONLY | O_CREAT | O_EXCL, 0644);
		err = out < 0 ? errno : compress_file(zt_state.tmp, out);
		if (err == 0) {
			zt_sys_close(out);
			if (zt_files_rename_in_dir(gz, to) == 0) {
				zt_files_unlink_in_dir(zt_state.tmp);
				if (report)
					zt_files_status(ZT_STATUS_OK, 0, zt_state.samples);
				return 0;
			}
		} else {
			/* Keep the whole dump uncompressed rather than lose it. */
			if (report)
				zt_files_status(ZT_STATUS_GZIP_FAILED, err, 0);
			if (out >= 0)
				zt_sys_close(out);
		}
		zt_files_unlink_in_dir(gz);
	}
	if (zt_files_rename_in_dir(zt_state.tmp, to) < 0) {
		int err = errno;

		if (report)
			zt_files_status(ZT_STATUS_RENAME_FAILED, err, zt_state.samples);
		return err ? err : EIO;
	}
	if (report)
		zt_files_status(ZT_STATUS_OK, 0, zt_state.samples);
	return 0;
}

/*
 * Append everything known only at the end and publish the dump under its
 * final name; or, when it cannot be whole, remove it and tell zt-collect
 * why. A dump is never published half-written. Sampling must already be
 * stopped and every buffer flushed.
 */
void zt_dump_finish(void)
{
	int fd = zt_files_dump_fd(), ok;

	/* Every buffer is written: nothing is left for zt-collect to take. */
	zt_spill_end();
	if (fd < 0) {
		zt_files_status(ZT_STATUS_DESCRIPTOR_LOST, 0, all_samples());
		zt_files_close(&zt_state.maps);
		zt_files_close(&zt_state.maps_now);
		zt_state.dump.fd = -1;	/* it is not ours: never closed */
		zt_files_unlink_in_dir(zt_state.tmp);
		return;
	}
	ok = put_end(fd) == 0 && zt_state.lost[ZT_LOST_WRITE] == 0;
	zt_files_close(&zt_state.dump);
	if (!ok) {
		/* The file holds what a full disk let through: not a dump. */
		zt_files_status(ZT_STATUS_WRITE_FAILED, zt_state.write_errno, all_samples());
		zt_files_unlink_in_dir(zt_state.tmp);
		return;
	}
	publish(zt_state.out, 1);
	/*
	 * The CPU time of the exit work after the summary's figures (the sync,
	 * the rename): for zt-collect's -f line, which no dump can hold.
	 */
	if (zt_state.summary_cpu) {
		int64_t now = zt_sys_cpu_ns();

		zt_files_status(ZT_STATUS_EXIT_CPU_NS, 0, now > zt_state.summary_cpu ?
				(uint64_t)(now - zt_state.summary_cpu) : 0);
	}
}

/*
 * A snapshot: the dump so far, finished as the end finishes it and
 * published as path (FILE.N), with zt_state.snapshot its number. The
 * caller holds sampling and has flushed every buffer; it then starts the
 * next dump with zt_dump_reopen. 0, or an errno (no file is left).
 */
int zt_dump_snapshot(const char *path)
{
	int fd = zt_files_dump_fd(), ok, err;

	if (fd < 0) {
		zt_files_close(&zt_state.maps);
		zt_files_close(&zt_state.maps_now);
		zt_state.dump.fd = -1;
		zt_files_unlink_in_dir(zt_state.tmp);
		return EBADF;
	}
	ok = put_end(fd) == 0 && zt_state.lost[ZT_LOST_WRITE] == 0;
	err = zt_state.write_errno;
	zt_files_close(&zt_state.dump);
	if (!ok) {
		zt_files_unlink_in_dir(zt_state.tmp);
		return err ? err : EIO;
	}
	err = publish(path, 0);
	if (err)
		zt_files_unlink_in_dir(zt_state.tmp);
	return err;
}
