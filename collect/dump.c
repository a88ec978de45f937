/*
 * dump.c — the raw dump file (formats/raw.md, version 3).
 *
 * The header and the "samples" line are written when sampling starts; sample
 * lines are appended by the threads' buffers during the run; maps (with the
 * snapshots taken before each dlclose), build-ids, thread names and the
 * summary are appended at the end, followed by "end". The file is written
 * under a temporary name and renamed when complete (compressed on the way
 * with -z), so a dump is never seen half-written. Only system calls and
 * formatting into fixed buffers are used, and zlib gets a static arena, so
 * this code also runs inside a fatal signal's handler, where malloc cannot.
 */
#include "prof.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

static const char *const loss_names[ZT_NLOSS] = {
	[ZT_LOST_WRITE] = "write-error",
};

void zt_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

void zt_puts(int fd, const char *s)
{
	zt_write_all(fd, s, strlen(s));
}

/* "key value\n" with a decimal value. */
static void put_key(int fd, const char *key, uint64_t v)
{
	char buf[64], *p = buf;

	zt_puts(fd, key);
	*p++ = ' ';
	p = zt_fmt_u64(p, v, 10);
	*p++ = '\n';
	zt_write_all(fd, buf, (size_t)(p - buf));
}

static const char *timer_name(void)
{
	switch (zt_state.timer) {
	case ZT_TIMER_PERF:
		return "perf-task-clock";
	case ZT_TIMER_POSIX:
		return "posix-cpu";
	default:
		return "none";
	}
}

/* Open the temporary dump and write its header. 0 on success. */
int zt_dump_open(void)
{
	char exe[4096];
	ssize_t n;
	size_t len = strlen(zt_state.out);
	char *p;

	if (len + 24 > sizeof zt_state.tmp)
		return -1;
	memcpy(zt_state.tmp, zt_state.out, len);
	p = zt_state.tmp + len;
	memcpy(p, ".tmp.", 5);
	p = zt_fmt_u64(p + 5, (uint64_t)zt_state.pid, 10);
	*p = '\0';
	/*
	 * The name is predictable: create it exclusively and never through a
	 * symbolic link, so that a file or link planted there is not written
	 * through (the run then has no dump, and zt-collect says so).
	 */
	zt_state.fd = open(zt_state.tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			   O_APPEND | O_CLOEXEC, 0644);
	if (zt_state.fd < 0)
		return -1;
	zt_puts(zt_state.fd, "zt-prof 3\n");
	put_key(zt_state.fd, "pid", (uint64_t)zt_state.pid);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		zt_puts(zt_state.fd, "exe ");
		zt_puts(zt_state.fd, exe);
		zt_puts(zt_state.fd, "\n");
	}
	put_key(zt_state.fd, "hz", zt_state.hz);
	zt_puts(zt_state.fd, "timer ");
	zt_puts(zt_state.fd, timer_name());
	zt_puts(zt_state.fd, "\n");
	if (zt_state.timer == ZT_TIMER_POSIX)
		zt_puts(zt_state.fd, "rate-cap kernel-tick\n");
	put_key(zt_state.fd, "max-depth", ZT_MAX_DEPTH);
	zt_puts(zt_state.fd, zt_state.unwind == ZT_UNWIND_FP ? "unwind fp\n" :
		zt_state.unwind == ZT_UNWIND_CFI ? "unwind cfi\n" : "unwind auto\n");
	zt_puts(zt_state.fd, "samples\n");
	return 0;
}

/* Copy the file at path to fd. */
static void copy_file(const char *path, int to)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof buf)) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0)
			zt_write_all(to, buf, (size_t)n);
	close(fd);
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
	for (uint32_t i = 0; i < n; i++)
		if (zt_state.bids[i].addr == first)
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
				b->addr = first;
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

void zt_buildids_scan(void)
{
	dl_iterate_phdr(scan_object, NULL);
}

static void put_buildids(void)
{
	uint32_t n = zt_state.nbids;

	zt_puts(zt_state.fd, "buildids\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct zt_bid *b = &zt_state.bids[i];
		char buf[256], *q = zt_fmt_u64(buf, b->addr, 16);

		*q++ = ' ';
		for (unsigned j = 0; j < b->len; j++) {
			*q++ = "0123456789abcdef"[b->id[j] >> 4];
			*q++ = "0123456789abcdef"[b->id[j] & 15];
		}
		*q++ = ' ';
		zt_write_all(zt_state.fd, buf, (size_t)(q - buf));
		zt_puts(zt_state.fd, b->path[0] ? b->path : "-");
		zt_puts(zt_state.fd, "\n");
	}
}

/*
 * Keep the current maps before a library is unloaded: appended to a side
 * file that becomes a second maps section at the end.
 */
void zt_maps_snapshot(void)
{
	if (zt_state.maps_fd < 0) {
		size_t len = strlen(zt_state.tmp);

		if (len + 6 >= sizeof zt_state.maps_tmp)
			return;
		memcpy(zt_state.maps_tmp, zt_state.tmp, len);
		memcpy(zt_state.maps_tmp + len, ".maps", 6);
		zt_state.maps_fd = open(zt_state.maps_tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_APPEND | O_CLOEXEC, 0600);
		if (zt_state.maps_fd < 0)
			return;
	}
	copy_file("/proc/self/maps", zt_state.maps_fd);
}

/* Thread names: the table of ended threads, then the live ones. */
static void put_threads(void)
{
	uint32_t n = zt_state.nnames < ZT_MAX_NAMES ? zt_state.nnames : ZT_MAX_NAMES;

	zt_puts(zt_state.fd, "threads\n");
	for (uint32_t i = 0; i < n; i++) {
		char buf[32], *p = zt_fmt_u64(buf, (uint64_t)zt_state.names[i].tid, 10);

		*p++ = ' ';
		zt_write_all(zt_state.fd, buf, (size_t)(p - buf));
		zt_puts(zt_state.fd, zt_state.names[i].name[0] ? zt_state.names[i].name : "?");
		zt_puts(zt_state.fd, "\n");
	}
}

static void put_summary(void)
{
	struct rusage ru;
	uint64_t lost = 0;
	char buf[256], *p;

	for (int i = 0; i < ZT_NLOSS; i++)
		lost += zt_state.lost[i];
	zt_puts(zt_state.fd, "summary\n");
	put_key(zt_state.fd, "samples", zt_state.samples);
	p = buf;
	memcpy(p, "lost ", 5);
	p = zt_fmt_u64(p + 5, lost, 10);
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
	zt_write_all(zt_state.fd, buf, (size_t)(p - buf));
	put_key(zt_state.fd, "truncated", zt_state.truncated);
	put_key(zt_state.fd, "partial", zt_state.partial);
	if (zt_state.unwind != ZT_UNWIND_FP) {
		put_key(zt_state.fd, "cfi-objects", zt_state.cfi_objects);
		put_key(zt_state.fd, "cfi-rows", zt_state.cfi_rows);
		put_key(zt_state.fd, "cfi-bytes", zt_state.cfi_bytes);
		put_key(zt_state.fd, "cfi-build-ns", zt_state.cfi_build_ns);
		put_key(zt_state.fd, "cfi-skipped", zt_state.cfi_skipped);
	}
	if (zt_state.unsampled)
		put_key(zt_state.fd, "unsampled-threads", zt_state.unsampled);
	if (zt_state.program_sigprof) {
		zt_puts(zt_state.fd, "program-sigprof");
		if (zt_state.program_sigprof & 1)
			zt_puts(zt_state.fd, " handler");
		if (zt_state.program_sigprof & 2)
			zt_puts(zt_state.fd, " itimer-prof");
		zt_puts(zt_state.fd, "\n");
	}
	if (zt_state.exec_path[0]) {
		zt_puts(zt_state.fd, "exec ");
		zt_puts(zt_state.fd, zt_state.exec_path);
		zt_puts(zt_state.fd, "\n");
	}
	put_key(zt_state.fd, "cpu-ns", (uint64_t)((zt_state.cpu_stop_ns ? zt_state.cpu_stop_ns
							      : zt_cpu_ns()) - zt_state.cpu_start_ns));
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		put_key(zt_state.fd, "cpu-user-ns",
			(uint64_t)ru.ru_utime.tv_sec * 1000000000u +
			(uint64_t)ru.ru_utime.tv_usec * 1000u);
		put_key(zt_state.fd, "cpu-sys-ns",
			(uint64_t)ru.ru_stime.tv_sec * 1000000000u +
			(uint64_t)ru.ru_stime.tv_usec * 1000u);
	}
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

/* Compress the file at from into to (an open fd); 0 on success. */
static int compress_file(const char *from, int to)
{
	static unsigned char in[32768], out[32768];
	z_stream z;
	int fd = open(from, O_RDONLY | O_CLOEXEC), flush, rc = 0;

	if (fd < 0)
		return -1;
	memset(&z, 0, sizeof z);
	zused = 0;
	z.zalloc = zalloc;
	z.zfree = zfree;
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		close(fd);
		return -1;
	}
	do {
		ssize_t n = read(fd, in, sizeof in);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -1;
			break;
		}
		flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = in;
		z.avail_in = (unsigned)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			deflate(&z, flush);
			zt_write_all(to, (const char *)out, sizeof out - z.avail_out);
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	close(fd);
	return rc;
}

/* Drop the dump in progress (a forked child's copy, a failed start). */
void zt_dump_abandon(void)
{
	if (zt_state.fd >= 0)
		close(zt_state.fd);
	zt_state.fd = -1;
	unlink(zt_state.tmp);
}

/*
 * Append everything known only at the end and publish the dump under its
 * final name. Sampling must already be stopped and every buffer flushed.
 */
void zt_dump_finish(void)
{
	int fd = zt_state.fd;

	zt_puts(fd, "maps\n");
	if (zt_state.maps_fd >= 0) {
		/* Libraries unloaded during the run, then the maps at the end. */
		close(zt_state.maps_fd);
		zt_state.maps_fd = -1;
		copy_file(zt_state.maps_tmp, fd);
		unlink(zt_state.maps_tmp);
		zt_puts(fd, "maps\n");
	}
	copy_file("/proc/self/maps", fd);
	put_buildids();
	put_threads();
	put_summary();
	zt_puts(fd, "end\n");
	close(fd);
	zt_state.fd = -1;
	if (zt_state.gzip) {
		char gz[sizeof zt_state.tmp + 8];
		size_t len = strlen(zt_state.tmp);
		int out;

		memcpy(gz, zt_state.tmp, len);
		memcpy(gz + len, ".gz", 4);
		out = open(gz, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (out >= 0 && compress_file(zt_state.tmp, out) == 0) {
			close(out);
			unlink(zt_state.tmp);
			rename(gz, zt_state.out);
			return;
		}
		if (out >= 0)
			close(out);
		unlink(gz);
	}
	rename(zt_state.tmp, zt_state.out);
}
