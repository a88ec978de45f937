/*
 * dump.c — the raw dump file (formats/raw.md, version 2).
 *
 * The header and the "samples" line are written when sampling starts; sample
 * lines are appended by the threads' buffers during the run; maps, build-ids,
 * thread names and the summary are appended at the end, followed by "end".
 * The file is written under a temporary name and renamed when complete, so a
 * dump is never seen half-written. Only raw system calls and formatting into
 * fixed buffers are used, so this code can also run where malloc cannot.
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

static const char *const loss_names[ZT_NLOSS] = {
	[ZT_LOST_WRITE] = "write-error",
	[ZT_LOST_NOBUF] = "no-buffer",
	[ZT_LOST_BUSY] = "busy",
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
	zt_state.fd = open(zt_state.tmp, O_WRONLY | O_CREAT | O_TRUNC |
			   O_APPEND | O_CLOEXEC, 0644);
	if (zt_state.fd < 0)
		return -1;
	zt_puts(zt_state.fd, "zt-prof 2\n");
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
	zt_puts(zt_state.fd, "samples\n");
	return 0;
}

/* Copy a /proc file to the dump. */
static void copy_file(const char *path)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof buf)) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0)
			zt_write_all(zt_state.fd, buf, (size_t)n);
	close(fd);
}

/*
 * One "ADDR BUILDID PATH" line per loaded ELF object, read from the notes of
 * the image in memory rather than the file, which may have changed since.
 */
static int put_buildid(struct dl_phdr_info *info, size_t size, void *data)
{
	int fd = *(int *)data;
	uintptr_t first = 0;
	int have_first = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && !have_first) {
			first = info->dlpi_addr + ph->p_vaddr;
			have_first = 1;
		}
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc =
				(const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			char buf[256], *q = buf;

			if ((const char *)desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz > 0 &&
			    nh->n_descsz <= 64) {
				q = zt_fmt_u64(q, first, 16);
				*q++ = ' ';
				for (unsigned j = 0; j < nh->n_descsz; j++) {
					*q++ = "0123456789abcdef"[desc[j] >> 4];
					*q++ = "0123456789abcdef"[desc[j] & 15];
				}
				*q++ = ' ';
				zt_write_all(fd, buf, (size_t)(q - buf));
				zt_puts(fd, info->dlpi_name[0] ? info->dlpi_name : "-");
				zt_puts(fd, "\n");
				return 0;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static void put_threads(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads
						    : ZT_MAX_THREADS;

	zt_puts(zt_state.fd, "threads\n");
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];
		char path[64] = "/proc/self/task/", name[64], buf[32], *p;
		int fd;
		ssize_t len = 0;

		if (!t)
			continue;
		p = zt_fmt_u64(path + strlen(path), (uint64_t)t->tid, 10);
		memcpy(p, "/comm", 6);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			len = read(fd, name, sizeof name - 1);
			close(fd);
		}
		if (len <= 0)
			len = 0;
		while (len > 0 && name[len - 1] == '\n')
			len--;
		p = zt_fmt_u64(buf, (uint64_t)t->tid, 10);
		*p++ = ' ';
		zt_write_all(zt_state.fd, buf, (size_t)(p - buf));
		if (len == 0)
			zt_puts(zt_state.fd, "?");
		else
			zt_write_all(zt_state.fd, name, (size_t)len);
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
	put_key(zt_state.fd, "cpu-ns", (uint64_t)(zt_cpu_ns() - zt_state.cpu_start_ns));
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
 * Append everything known only at the end and publish the dump under its
 * final name. Sampling must already be stopped and every buffer flushed.
 */
void zt_dump_finish(void)
{
	int fd = zt_state.fd;

	zt_puts(fd, "maps\n");
	copy_file("/proc/self/maps");
	zt_puts(fd, "buildids\n");
	dl_iterate_phdr(put_buildid, &fd);
	put_threads();
	put_summary();
	zt_puts(fd, "end\n");
	close(fd);
	zt_state.fd = -1;
	rename(zt_state.tmp, zt_state.out);
}
