/*
 * vdso.c — the vDSO's image, for the dump (formats/raw.md, "The vDSO").
 *
 * The kernel maps the vDSO into every process (clock_gettime, gettimeofday,
 * getcpu, ... run there without a system call). It is no file: a
 * symbolizer reading the dump later, on this machine or another, has no
 * copy of it, so its frames would stay "[vdso]" where perf names them
 * (perf copies the image out of the process). The dump carries the image
 * itself, a few KiB, rather than a symbol table made here: the readers then
 * name its frames with the ELF reader and the alias rules they use for
 * every file (lib/elfread.c, perf's choice between clock_gettime and
 * __vdso_clock_gettime), and the collector parses no symbol table.
 *
 * The image is found at getauxval(AT_SYSINFO_EHDR) and checked against its
 * mapping in /proc/self/maps before anything past the ELF header is read:
 * the header must be an ELF object of this machine, and its program
 * headers, its section headers, every PT_LOAD's bytes and every section's
 * bytes must lie inside the mapping. Anything else (no vDSO, as under
 * qemu-user; no such mapping; a header that does not hold) writes nothing,
 * and the frames stay "[vdso]". Once found, the image is written after the
 * header keys of each dump, in hex, with write(2) only.
 */
#include "vdso.h"
#include "files.h"
#include "fmt.h"
#include "hex.h"
#include "rawfmt.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#if defined(__x86_64__)
#define VDSO_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define VDSO_MACHINE EM_AARCH64
#else
#error "vdso.c: which e_machine is this machine's vDSO?"
#endif

static int state;		/* 0 not looked for yet, 1 found, -1 none */
static uintptr_t base;		/* the image, at the start of its mapping */
static size_t size;		/* its bytes: up to its last header or section */

/* Whether [off, off + n) lies inside len bytes. */
static int inside(uint64_t off, uint64_t n, uint64_t len)
{
	return off <= len && n <= len - off;
}

/*
 * If the maps line [p, nl) is the mapping "[vdso]" that starts at start,
 * readable, its end into *end.
 */
static void vdso_line(const char *p, const char *nl, uint64_t start, uint64_t *end)
{
	uint64_t lo, hi;
	const char *q;

	if (nl - p < 8 || memcmp(nl - 7, " [vdso]", 7) != 0)
		return;
	q = zt_hex(p, nl, &lo);
	if (!q || *q != '-' || lo != start)
		return;
	q = zt_hex(q + 1, nl, &hi);
	if (!q || *q != ' ' || q[1] != 'r' || hi <= lo)
		return;
	*end = hi;
}

/*
 * The end of the readable mapping "[vdso]" that starts at start, from
 * /proc/self/maps read in pieces of whole lines; 0 if there is none. A line
 * longer than the buffer (a long path) is skipped.
 */
static uint64_t mapping_end(uint64_t start)
{
	static char buf[8192];
	size_t have = 0;
	uint64_t end = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), skipping = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - have);
		char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(p, '\n', (size_t)(buf + have - p)))) {
			if (!skipping)
				vdso_line(p, nl, start, &end);
			skipping = 0;
			p = nl + 1;
		}
		if (p == buf && have == sizeof buf) {
			skipping = 1;	/* the rest of this line is not a line's start */
			have = 0;
			continue;
		}
		memmove(buf, p, (size_t)(buf + have - p));
		have = (size_t)(buf + have - p);
	}
	zt_sys_close(fd);
	return end;
}

/*
 * The size of the ELF image of len bytes at img up to its last header or
 * section, every one checked to lie inside it; 0 if it is not a whole ELF
 * object of this machine.
 */
static size_t image_size(const unsigned char *img, uint64_t len)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
	uint64_t top;

	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != VDSO_MACHINE ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum == 0 ||
	    !inside(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr)), len) ||
	    eh->e_phoff % sizeof(ElfW(Addr)))
		return 0;
	top = eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr));
	if (top < sizeof *eh)
		top = sizeof *eh;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(img + eh->e_phoff) + i;

		if (ph->p_type != PT_LOAD)
			continue;
		if (!inside(ph->p_offset, ph->p_filesz, len))
			return 0;
		if (ph->p_offset + ph->p_filesz > top)
			top = ph->p_offset + ph->p_filesz;
	}
	if (eh->e_shnum) {
		if (eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff % sizeof(ElfW(Addr)) ||
		    !inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)), len))
			return 0;
		if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)) > top)
			top = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr));
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(img + eh->e_shoff) + i;

			if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
				continue;
			if (!inside(sh->sh_offset, sh->sh_size, len))
				return 0;
			if (sh->sh_offset + sh->sh_size > top)
				top = sh->sh_offset + sh->sh_size;
		}
	}
	return top <= ZT_RAW_VDSO_MAX ? (size_t)top : 0;
}

/* Find the vDSO and check it, once. */
static void find(void)
{
	uint64_t end;

	state = -1;
	base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return;
	end = mapping_end(base);
	if (!end)
		return;
	/* The header is read only now that the mapping is known to hold it. */
	size = image_size((const unsigned char *)base, end - base);
	if (size)
		state = 1;
}

void zt_vdso_put(int fd)
{
	char buf[4096], *p;
	size_t off = 0;
	int saved = errno;

	if (state == 0)
		find();
	errno = saved;
	if (state < 0)
		return;
	zt_files_puts(fd, ZT_RAW_VDSO "\n");
	p = zt_fmt_u64(buf, base, 16);
	*p++ = ' ';
	p = zt_fmt_u64(p, size, 16);
	*p++ = '\n';
	zt_files_write_all(fd, buf, (size_t)(p - buf));
	p = buf;
	while (off < size) {
		const unsigned char *b = (const unsigned char *)base + off;
		size_t n = size - off < ZT_RAW_VDSO_LINE ? size - off : ZT_RAW_VDSO_LINE;

		if ((size_t)(buf + sizeof buf - p) < 2 * ZT_RAW_VDSO_LINE + 1) {
			zt_files_write_all(fd, buf, (size_t)(p - buf));
			p = buf;
		}
		for (size_t i = 0; i < n; i++) {
			*p++ = "0123456789abcdef"[b[i] >> 4];
			*p++ = "0123456789abcdef"[b[i] & 15];
		}
		*p++ = '\n';
		off += n;
	}
	zt_files_write_all(fd, buf, (size_t)(p - buf));
}
