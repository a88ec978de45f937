/*
 * snapshot.c — the maps of the process as they were when each sample was
 * taken (formats/raw.md, version 4, "Maps snapshots").
 *
 * The mappings change while the program runs: dlopen and dlclose, and JIT
 * code that maps and unmaps executable memory. Around each such change
 * that zt sees (the interposers in intercept.c), /proc/self/maps is read
 * whole, before and after, under one lock, so that no two snapshots and no
 * interposed change interleave. A snapshot that differs from the one
 * before is kept, with the time it was read on the clock of the samples;
 * zt-symbolize names a sample's address from the last snapshot read before
 * the sample was taken, else the first one after it. Identical snapshots
 * are written once, so a storm of dlopen/dlclose of one library costs one
 * snapshot per distinct state.
 *
 * The handler cannot read files; it only checks its pc against the
 * executable ranges of the last snapshot (published with a sequence
 * count, no lock) and raises a flag when the pc is in none: code mapped
 * behind zt's back (a raw mmap system call, libc's own dlopen). The next
 * interposed call, or the end of the run, re-reads the maps.
 *
 * Not for signal handlers, except zt_snap_pc_known and the final
 * snapshot, which a fatal signal's handler may take (system calls only).
 */
#include "snapshot.h"
#include "spill.h"
#include "files.h"
#include "fmt.h"
#include "arch.h"
#include "hex.h"
#include "rawfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	SNAP_BYTES_MAX = 64 << 20,	/* snapshots kept in the side file, at most */
	SEEN_MAX = 16,		/* distinct snapshots remembered for "= @ns" */
	STALE_GAP_NS = 10000000,	/* at most one read for unknown code per 10 ms */
	XR_MAX = 8192,		/* executable ranges the handler checks */
};

/* A growing buffer, mapped: malloc is not used in the collector's dump path. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct sbuf now;		/* the maps as read last */
static struct sbuf cur;		/* now's lines that are kept */
static struct sbuf fin_now, fin_cur;	/* the end's, when a snapshot was cut short */
static volatile int busy;	/* a snapshot is being taken (the lock is held) */
static struct sbuf last;	/* the last distinct snapshot */
static uint64_t last_ns;
static int have_last, last_written;
static uint64_t side_bytes;	/* bytes written to the side file */
/*
 * The last distinct snapshots written, each with its time: one that comes
 * back (a library loaded and unloaded in a loop) is written as a reference
 * to it, "= @ns", instead of again.
 */
static struct sbuf seen[SEEN_MAX];
static uint64_t seen_ns[SEEN_MAX];
static unsigned nseen, seen_next;
static volatile int stale;	/* a pc outside every known executable range */
/*
 * Where the last distinct snapshot's section lies in the side file, [from,
 * to); to is 0 when it is not there. Snapshots are written as they are
 * taken, so that a process that dies without zt's exit path leaves them for
 * zt-collect; at the end, one the final maps repeat is left out again.
 */
static off_t last_from, last_to;
static unsigned side_gen;	/* side files made for this process's dumps */

/* The executable ranges of the last snapshot, for the handler. */
static struct {
	uint64_t lo, hi;
} xr[XR_MAX];
static volatile uint32_t nxr;
static volatile uint32_t xseq;	/* odd while xr is rewritten */
static volatile int xvalid;	/* xr holds every executable range */

static int reserve(struct sbuf *b, size_t want)
{
	size_t cap = b->cap ? b->cap : 64 * 1024;
	char *p;

	if (want <= b->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	p = zt_sys_map(cap);
	if (p == MAP_FAILED)
		return -1;
	if (b->len)
		memcpy(p, b->p, b->len);
	if (b->p)
		zt_sys_unmap(b->p, b->cap);
	b->p = p;
	b->cap = cap;
	return 0;
}

/*
 * The current maps, whole, into b. Read from the start with read(2),
 * which returns whole lines only, through the descriptor opened at the
 * start (it still works after a chroot), or, with own_fd (that one may be
 * in use by a snapshot cut short), through one of its own. -1 if they
 * could not be read.
 */
static int read_maps(struct sbuf *b, int own_fd)
{
	int fd = !own_fd && zt_files_ok(&zt_state.maps_now) ? zt_state.maps_now.fd : -1, own = 0;
	ssize_t n;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		own = 1;
	}
	b->len = 0;
	for (;;) {
		if (b->cap - b->len < 4096 && reserve(b, b->cap * 2 + 4096) < 0) {
			n = -1;
			break;
		}
		n = read(fd, b->p + b->len, b->cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		b->len += (size_t)n;
	}
	if (own)
		zt_sys_close(fd);
	if (n < 0 || (b->len && b->p[b->len - 1] != '\n'))
		return -1;
	b->len = zt_spill_hide_maps(b->p, b->len);
	return 0;
}

static const char *field_end(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	return p;
}

/*
 * The lines of in that symbolization needs, into out: every executable
 * mapping and every file mapping (the first one of a file gives its load
 * bias). Anonymous data, heaps and stacks are left to the final maps. The
 * executable ranges go to the handler's table.
 */
static int filter(const struct sbuf *in, struct sbuf *out)
{
	const char *p = in->p, *end = in->p + in->len;
	uint32_t nx = 0;
	int complete = 1;

	out->len = 0;
	if (reserve(out, in->len + 1) < 0)
		return -1;
	__atomic_store_n(&xseq, xseq + 1, __ATOMIC_SEQ_CST);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *range = p, *dash, *perms, *q;
		int exec, file;

		if (!nl)
			break;
		dash = memchr(range, '-', (size_t)(nl - range));
		perms = field_end(range, nl);
		if (!dash || perms + 5 > nl)
			break;
		perms++;
		exec = perms[2] == 'x';
		/* The path, after offset, device and inode. */
		q = perms;
		for (int f = 0; f < 4 && q < nl; f++) {
			q = field_end(q, nl);
			while (q < nl && *q == ' ')
				q++;
		}
		file = q < nl && *q == '/';
		if (exec || file) {
			memcpy(out->p + out->len, p, (size_t)(nl + 1 - p));
			out->len += (size_t)(nl + 1 - p);
		}
		if (exec) {
			if (nx < XR_MAX) {
				zt_hex(range, dash, &xr[nx].lo);
				zt_hex(dash + 1, perms - 1, &xr[nx].hi);
				nx++;
			} else {
				complete = 0;
			}
		}
		p = nl + 1;
	}
	nxr = nx;
	xvalid = complete;
	__atomic_store_n(&xseq, xseq + 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* "maps @NS\n" and the lines, appended to fd. */
static int put_section(int fd, uint64_t ns, const char *p, size_t n)
{
	char head[64], *q = head;

	memcpy(q, ZT_RAW_MAPS " ", sizeof ZT_RAW_MAPS);
	q += sizeof ZT_RAW_MAPS;
	*q++ = ZT_RAW_TIME_MARK;
	q = zt_fmt_u64(q, ns, 10);
	*q++ = '\n';
	if (zt_files_write_all(fd, head, (size_t)(q - head)) < 0)
		return -1;
	return zt_files_write_all(fd, p, n);
}

/* The side file, created on first use (it is removed at the end). */
static int side_fd(void)
{
	size_t len = strlen(zt_state.tmp);

	if (zt_files_ok(&zt_state.maps))
		return zt_state.maps.fd;
	if (zt_state.maps.fd >= 0) {
		/* The program closed it: the snapshots so far are gone. */
		zt_state.maps.fd = -1;
		zt_files_unlink_in_dir(zt_state.maps_tmp);
		__atomic_fetch_add(&zt_state.maps_lost, 1, __ATOMIC_RELAXED);
	}
	if (len + 6 >= sizeof zt_state.maps_tmp)
		return -1;
	memcpy(zt_state.maps_tmp, zt_state.tmp, len);
	memcpy(zt_state.maps_tmp + len, ".maps", 6);
	side_gen++;
	last_to = 0;
	return zt_files_own(&zt_state.maps, zt_files_open_in_dir(zt_state.maps_tmp, O_RDWR |
					    O_CREAT | O_EXCL | O_APPEND, 0600));
}

unsigned zt_snap_side_gen(void)
{
	return side_gen;
}

/* The side file's descriptor, made if need be; the caller holds the lock. */
int zt_snap_side_fd(void)
{
	return side_fd();
}

/* Write the last distinct snapshot out, if it is not yet. */
static void flush_last(void)
{
	char ref[40], *q = ref;
	const char *p = last.p;
	size_t n = last.len;
	struct stat st;
	int fd;

	if (!have_last || last_written)
		return;
	last_written = 1;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].len == last.len && memcmp(seen[i].p, last.p, last.len) == 0) {
			*q++ = ZT_RAW_SAME_MARK;
			*q++ = ' ';
			*q++ = ZT_RAW_TIME_MARK;
			q = zt_fmt_u64(q, seen_ns[i], 10);
			*q++ = '\n';
			p = ref;
			n = (size_t)(q - ref);
			break;
		}
	last_to = 0;
	/* (fstat, not lseek: a call the seccomp probe vets, seccomp.c.) */
	if (side_bytes + n > SNAP_BYTES_MAX || (fd = side_fd()) < 0 || fstat(fd, &st) < 0 ||
	    put_section(fd, last_ns, p, n) < 0) {
		__atomic_fetch_add(&zt_state.maps_lost, 1, __ATOMIC_RELAXED);
		return;
	}
	last_from = st.st_size;
	last_to = fstat(fd, &st) == 0 && st.st_size > last_from ? st.st_size : 0;
	side_bytes += n;
	zt_state.maps_snapshots++;
	if (p == ref)
		return;
	/* Remember it, in place of the oldest. */
	if (reserve(&seen[seen_next], last.len) == 0) {
		memcpy(seen[seen_next].p, last.p, last.len);
		seen[seen_next].len = last.len;
		seen_ns[seen_next] = last_ns;
		seen_next = (seen_next + 1) % SEEN_MAX;
		if (nseen < SEEN_MAX)
			nseen++;
	}
}

static uint64_t since_start(void)
{
	uint64_t t = zt_sys_clock_ns(CLOCK_MONOTONIC);

	return t > zt_state.start_ns ? t - zt_state.start_ns : 0;
}

static int same_as_last(void)
{
	return have_last && last.len == cur.len && memcmp(last.p, cur.p, cur.len) == 0;
}

/*
 * Read the maps now and keep them if they differ from the last snapshot
 * (which is then written out: it held from its time until now). The
 * caller holds the lock.
 */
static void take_locked(void)
{
	uint64_t ns = since_start();
	struct sbuf t;

	/* A signal handler of the program's, on this thread, that maps code
	 * while a snapshot is being taken: that snapshot goes on alone. */
	if (busy)
		return;
	busy = 1;
	stale = 0;
	if (read_maps(&now, 0) < 0 || filter(&now, &cur) < 0) {
		__atomic_fetch_add(&zt_state.maps_lost, 1, __ATOMIC_RELAXED);
		busy = 0;
		return;
	}
	if (!same_as_last()) {
		flush_last();
		t = last;
		last = cur;
		cur = t;
		last_ns = ns;
		have_last = 1;
		last_written = 0;
		flush_last();	/* now: the file holds the run as it goes */
	}
	busy = 0;
}

void zt_snap_lock(void)
{
	pthread_mutex_lock(&lock);
}

void zt_snap_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void zt_snap_take(void)
{
	if (!zt_state_owner())
		return;
	pthread_mutex_lock(&lock);
	take_locked();
	pthread_mutex_unlock(&lock);
}

/* A snapshot if the handler saw a pc outside every known executable range. */
void zt_snap_if_stale(void)
{
	static uint64_t last_try;
	uint64_t t;

	if (!__atomic_load_n(&stale, __ATOMIC_RELAXED))
		return;
	/* At most one such read per STALE_GAP_NS: code that stays unknown
	 * (memory the maps call executable only later) costs little. */
	t = zt_sys_clock_ns(CLOCK_MONOTONIC);
	if (t - __atomic_load_n(&last_try, __ATOMIC_RELAXED) < STALE_GAP_NS)
		return;
	__atomic_store_n(&last_try, t, __ATOMIC_RELAXED);
	zt_snap_take();
}

/*
 * Whether pc is in an executable range of the last snapshot; when it is
 * not, the next interposed call re-reads the maps. Async-signal-safe: the
 * table is read between two equal, even sequence counts, and a table being
 * rewritten counts as holding pc.
 */
int zt_snap_pc_known(uint64_t pc)
{
	uint32_t seq = __atomic_load_n(&xseq, __ATOMIC_SEQ_CST), lo = 0, hi;
	int found = 0;

	if ((seq & 1) || !__atomic_load_n(&xvalid, __ATOMIC_RELAXED))
		return 1;
	hi = __atomic_load_n(&nxr, __ATOMIC_RELAXED);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pc < xr[mid].lo) {
			hi = mid;
		} else if (pc >= xr[mid].hi) {
			lo = mid + 1;
		} else {
			found = 1;
			break;
		}
	}
	if (__atomic_load_n(&xseq, __ATOMIC_SEQ_CST) != seq)
		return 1;
	if (!found)
		__atomic_store_n(&stale, 1, __ATOMIC_RELAXED);
	return found;
}

/* The first range of the table that ends above addr; n if none. */
static uint32_t first_above(uint64_t addr, uint32_t n)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (xr[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * How [addr, addr + len) stands to the known executable ranges, read under
 * the table's sequence: X_UNKNOWN alone when the table cannot tell (it is
 * being rewritten, or it overflowed); else X_OVERLAPS when the first range
 * that ends above addr starts below addr + len, and X_INSIDE when that
 * range holds all of it.
 */
enum { X_OVERLAPS = 1, X_INSIDE = 2, X_UNKNOWN = 4 };

static int exec_relation(uint64_t addr, size_t len)
{
	uint32_t seq = __atomic_load_n(&xseq, __ATOMIC_SEQ_CST), n, i;
	int r = 0;

	if ((seq & 1) || !xvalid)
		return X_UNKNOWN;
	n = nxr;
	i = first_above(addr, n);
	if (i < n && xr[i].lo < addr + len)
		r |= X_OVERLAPS;
	if (i < n && xr[i].lo <= addr && addr + len <= xr[i].hi)
		r |= X_INSIDE;
	return __atomic_load_n(&xseq, __ATOMIC_SEQ_CST) != seq ? X_UNKNOWN : r;
}

/*
 * Whether [addr, addr + len) may hold executable code that a snapshot
 * knows of (or the table cannot tell). Not for signal handlers.
 */
int zt_snap_overlaps_exec(uint64_t addr, size_t len)
{
	return (exec_relation(addr, len) & (X_OVERLAPS | X_UNKNOWN)) != 0;
}

/* Whether [addr, addr + len) lies inside one known executable range. */
int zt_snap_covered_exec(uint64_t addr, size_t len)
{
	return (exec_relation(addr, len) & X_INSIDE) != 0;
}

/* The side file's bytes [from, to) (to -1: its end) appended to fd. */
static void copy_side(int fd, off_t from, off_t to)
{
	char buf[8192];
	off_t off = from;
	ssize_t n;

	while (to < 0 || off < to) {
		size_t want = to < 0 || to - off > (off_t)sizeof buf ? sizeof buf : (size_t)(to - off);

		n = pread(zt_state.maps.fd, buf, want, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || zt_files_write_all(fd, buf, (size_t)n) < 0)
			break;
		off += n;
	}
}

/*
 * The maps sections at the end of the dump, into fd: the snapshots kept
 * during the run, then the maps of now, verbatim. A fatal signal's handler
 * may be here while the interrupted thread holds the lock: it waits a
 * little, then goes on without it; if a snapshot was being taken, the
 * snapshot kept last is left out (it may be half made), and the end's maps
 * are read into buffers of their own.
 */
void zt_snap_finish(int fd)
{
	uint64_t ns = since_start();
	int locked = 0, cut = 0;
	struct sbuf *n_buf = &now, *c_buf = &cur;
	int ok;

	for (long spin = 0; spin < 2000000; spin++) {
		if (pthread_mutex_trylock(&lock) == 0) {
			locked = 1;
			break;
		}
		zt_arch_pause();
	}
	if (busy) {
		cut = 1;
		n_buf = &fin_now;
		c_buf = &fin_cur;
	}
	ok = read_maps(n_buf, cut) == 0 && filter(n_buf, c_buf) == 0;
	if (!cut && (!ok || !same_as_last()))
		flush_last();
	if (zt_files_ok(&zt_state.maps)) {
		/* The last snapshot, if the final maps repeat it, is left out:
		 * the end's maps stand for it, as when it was kept unwritten. */
		off_t skip_from = -1, skip_to = -1;

		if (!cut && ok && last_to > 0 && same_as_last()) {
			skip_from = last_from;
			skip_to = last_to;
			zt_state.maps_snapshots--;
		}
		copy_side(fd, 0, skip_from);
		if (skip_to >= 0)
			copy_side(fd, skip_to, -1);
	} else {
		side_gen++;	/* what was in a side file lost is not in the dump */
	}
	zt_files_close(&zt_state.maps);
	zt_files_unlink_in_dir(zt_state.maps_tmp);
	if (ok) {
		put_section(fd, ns, n_buf->p, n_buf->len);
		zt_state.maps_snapshots++;
	} else {
		__atomic_fetch_add(&zt_state.maps_lost, 1, __ATOMIC_RELAXED);
	}
	have_last = 0;
	last_to = 0;
	side_bytes = 0;
	nseen = seen_next = 0;
	if (locked)
		pthread_mutex_unlock(&lock);
}

/* A new dump (the start, a forked child's): no snapshot is carried over. */
void zt_snap_reset(void)
{
	nseen = seen_next = 0;
	have_last = 0;
	last_written = 0;
	last_to = 0;
	side_bytes = 0;
	stale = 0;
	zt_state.maps_snapshots = 0;
	zt_state.maps_lost = 0;
}

static void fork_lock(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/* The child's only thread has another id: the lock it inherited held is
 * made new, not unlocked (a recursive mutex knows its owner). */
static void fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	memcpy(&lock, &fresh, sizeof lock);
}

/* A fork must not happen halfway through a snapshot. */
void zt_snap_init(void)
{
	pthread_atfork(fork_lock, fork_unlock, fork_child);
}
