/*
 * spill.c — the file that keeps each thread's unwritten samples where
 * zt-collect can read them after the process is gone (spill.h).
 *
 * The buffers were private memory: a process that ended without zt's exit
 * path lost the last buffer of each thread, up to a second of samples (a
 * flush interval), which for a short Go program (whose every ending is a
 * raw exit_group) was most of its run. Now each buffer is a slot of
 * FILE.tmp.PID.bufs in the output directory, mapped shared, so its lines
 * are in the page cache as soon as they are written, and survive the
 * process. Space is reserved with fallocate before a slot is mapped, so a
 * full disk can never fault a store in the handler (SIGBUS); a file system
 * that cannot reserve keeps the buffers private, as before.
 */
#include "spill.h"
#include "files.h"
#include "hex.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static struct zt_owned file = { .fd = -1 };
static char path[sizeof zt_state.tmp + sizeof ZT_SPILL_SUFFIX];
static size_t slot_bytes;
/* The off-CPU sampler's buffer region, and whether it is in the file. */
static void *sampler;
static struct zt_spill_head *sampler_head;
/* The file's identity, kept after it is closed: its mappings stay. */
static dev_t file_dev;
static ino_t file_ino;
static int sampler_gone;

/* Its slot: the one after every thread's. */
#define SAMPLER_SLOT ZT_MAX_THREADS
/* The threads' slots whose space is reserved: 0 to reserved - 1. */
static int reserved;
/* The file is removed (the dump ended, or a slot could not go in it): no slot more. */
static int gone;

size_t zt_spill_slot_size(size_t buf_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (sizeof(struct zt_spill_head) + buf_size + page - 1) / page * page;
}

struct zt_owned *zt_spill_owned(void)
{
	return &file;
}

/* Whether a maps line (its end at nl) maps the file: by its device and inode. */
static int maps_file(const char *p, const char *nl)
{
	uint64_t major, minor, ino;
	const char *q = p;

	/* range, perms, offset: then "MAJOR:MINOR INODE". */
	for (int f = 0; f < 3; f++) {
		while (q < nl && *q != ' ')
			q++;
		while (q < nl && *q == ' ')
			q++;
	}
	q = zt_hex(q, nl, &major);
	if (!q || q >= nl || *q != ':')
		return 0;
	q = zt_hex(q + 1, nl, &minor);
	if (!q || q >= nl || *q != ' ')
		return 0;
	for (ino = 0, q++; q < nl && *q >= '0' && *q <= '9'; q++)
		ino = ino * 10 + (uint64_t)(*q - '0');
	return ino == (uint64_t)file_ino && major == major(file_dev) && minor == minor(file_dev);
}

size_t zt_spill_hide_maps(char *p, size_t len)
{
	char *in = p, *out = p, *end = p + len;

	if (!file_ino)
		return len;
	while (in < end) {
		char *nl = memchr(in, '\n', (size_t)(end - in));
		size_t n = nl ? (size_t)(nl + 1 - in) : (size_t)(end - in);

		if (!nl || !maps_file(in, nl)) {
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	return (size_t)(out - p);
}

/*
 * A slot could not go in the file: the file goes, so that zt-collect never
 * takes it for every buffer (it then knows nothing of the last buffers, as
 * before). The slots mapped already keep their pages, of an unlinked file.
 * The descriptor stays open (and zt's): another thread may be mapping
 * through it just now, and a number closed here could be the program's
 * file by then.
 */
static void give_up(void)
{
	if (!__atomic_exchange_n(&gone, 1, __ATOMIC_SEQ_CST))
		zt_files_unlink_in_dir(path);
}

/*
 * Space for slot number slot, reserved: the sampler's alone; a thread's
 * with the slots before it, the reservation doubled each time it grows,
 * since a file system's fallocate may cost a journal commit (2,000 threads
 * took 0.2 s of system time more, one call a slot). 0, or -1.
 */
static int reserve(int fd, int slot)
{
	int have = __atomic_load_n(&reserved, __ATOMIC_ACQUIRE), want;

	if (slot == SAMPLER_SLOT)
		return fallocate(fd, 0, (off_t)slot * (off_t)slot_bytes, (off_t)slot_bytes);
	if (slot < have)
		return 0;
	want = slot + 1 > 2 * have ? slot + 1 : 2 * have;
	if (want > ZT_MAX_THREADS)
		want = ZT_MAX_THREADS;
	/* From 0: threads growing it at once each cover what they need. */
	if (fallocate(fd, 0, 0, (off_t)want * (off_t)slot_bytes) < 0)
		return -1;
	while (have < want && !__atomic_compare_exchange_n(&reserved, &have, want, 0,
							   __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
		;
	return 0;
}

int zt_spill_map(int slot, void *region, size_t used)
{
	struct zt_spill_head *h = region;
	off_t off = (off_t)slot * (off_t)slot_bytes;
	int fd = file.fd;

	if (fd < 0 || !slot_bytes || __atomic_load_n(&gone, __ATOMIC_ACQUIRE))
		return -1;
	/*
	 * Reserved first: a store into a shared page the disk has no room
	 * for faults. What the region holds already goes with it (a fresh
	 * one's zeros are the reservation's own: nothing written).
	 */
	if (used > slot_bytes)
		used = slot_bytes;
	if (!zt_files_ok(&file) || reserve(fd, slot) < 0 ||
	    (used && pwrite(fd, region, used, off) != (ssize_t)used) ||
	    mmap(region, slot_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 off) == MAP_FAILED) {
		give_up();
		return -1;
	}
	h->slot_size = slot_bytes;
	h->writing = 0;
	__atomic_store_n(&h->magic, ZT_SPILL_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* The region of thread t's slot: its head, then its buffer. */
static void *region_of(const struct zt_thread *t)
{
	return t->buf - sizeof(struct zt_spill_head);
}

void zt_spill_start(void)
{
	size_t len = strlen(zt_state.tmp);
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	if (file.fd >= 0 || !len || len + sizeof ZT_SPILL_SUFFIX > sizeof path)
		return;
	memcpy(path, zt_state.tmp, len);
	memcpy(path + len, ZT_SPILL_SUFFIX, sizeof ZT_SPILL_SUFFIX);
	/* Its name is predictable: made here, never opened through a link. */
	if (zt_files_own(&file, zt_files_open_in_dir(path, O_RDWR | O_CREAT | O_EXCL, 0600)) < 0)
		return;
	file_dev = file.dev;
	file_ino = file.ino;
	reserved = 0;
	gone = 0;
	slot_bytes = zt_spill_slot_size(zt_state.buf_size);
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		/* Each, afresh: a slot may still be in the file of a dump that ended. */
		if (t)
			t->spill = zt_spill_map(i, region_of(t), t->len ? sizeof(struct zt_spill_head) +
						 t->len : 0) == 0 ? region_of(t) : NULL;
	}
	if (sampler)
		sampler_head = zt_spill_map(SAMPLER_SLOT, sampler, 0) == 0 ? sampler : NULL;
}

struct zt_spill_head *zt_spill_sampler(void *region)
{
	sampler = region;
	sampler_head = region && zt_spill_map(SAMPLER_SLOT, region, 0) == 0 ? region : NULL;
	return sampler_head;
}

struct zt_spill_head *zt_spill_sampler_head(void)
{
	return sampler_head;
}

int zt_spill_sampler_gone(void)
{
	return sampler_gone;
}

void zt_spill_end(void)
{
	if (file.fd >= 0)
		give_up();
}

void zt_spill_after_fork(void)
{
	int n = zt_state.nthreads < ZT_MAX_THREADS ? zt_state.nthreads : ZT_MAX_THREADS;

	/* The parent's file, its descriptor a copy: only forgotten (one thread here). */
	if (file.fd >= 0)
		zt_files_close(&file);
	gone = 0;
	for (int i = 0; i < n; i++) {
		struct zt_thread *t = zt_state.threads[i];

		if (!t || !t->spill)
			continue;
		/* Private and zeroed, in place; should that fail, the slot is never used again. */
		if (mmap(region_of(t), slot_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			zt_state.threads[i] = NULL;
		t->spill = NULL;
	}
	if (sampler_head && mmap(sampler, slot_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		sampler_gone = 1;	/* still the parent's: never written (zt_spill_sampler_gone) */
	sampler_head = NULL;
}
