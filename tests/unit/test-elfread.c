/*
 * test-elfread.c — the ELF reader and the symbolizer on real files built by the
 * test with gcc: every function nm -S lists is found at its start and its
 * last byte, a return address just past a function's end (a call to a
 * noreturn function) is charged to the caller, not to the next function, and
 * a section cut off by the end of the file keeps the file's DWARF unread.
 */
#include "unit.h"
#include "elfread.h"
#include "input.h"
#include "raw.h"
#include "srcline.h"
#include "symbolize.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char program[] =
	"#include <stdlib.h>\n"
	"__attribute__((noreturn, noinline)) void die(void) { exit(3); }\n"
	"__attribute__((noinline)) int f(int x) { if (x > 100) return x; die(); }\n"
	"__attribute__((noinline)) int g(int x) { return x + 1; }\n"
	"static __attribute__((noinline)) int local_h(int x) { return x * 3; }\n"
	"int __attribute__((weak)) weak_k(int x) { return x - 1; }\n"
	"int main(int argc, char **argv) { (void)argv; return g(argc) + f(argc) + local_h(argc) + weak_k(argc); }\n";

/* Build the program once into unit_dir()/elf-prog; returns its path. */
static const char *build(void)
{
	static char path[128];

	if (path[0])
		return path;
	if (unit_make("elf-prog.c", program,
		      "gcc -O2 -fno-align-functions -fno-toplevel-reorder -fno-reorder-functions "
		      "-o elf-prog elf-prog.c") < 0)
		return NULL;
	snprintf(path, sizeof path, "%s/elf-prog", unit_dir());
	return path;
}

UNIT_TEST(elf_lookup_agrees_with_nm)
{
	const char *path = build();
	struct zt_elf e;
	char err[256], cmd[256], line[512];
	FILE *nm;
	int checked = 0;

	CHECK(path != NULL);
	if (!path)
		return;
	CHECK(zt_elf_open(path, &e, err, sizeof err) == 0);
	CHECK(e.symtab);
	CHECK(e.has_interp);
	CHECK(strlen(e.buildid) == 40);
	snprintf(cmd, sizeof cmd, "nm -S --defined-only %s", path);
	nm = popen(cmd, "r");
	while (nm && fgets(line, sizeof line, nm)) {
		uint64_t addr, size;
		char type, name[256];
		const struct zt_sym *s;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &addr, &size, &type, name) != 4)
			continue;
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		if (size == 0)
			continue;
		s = zt_elf_lookup(&e, addr);
		CHECK(s && strcmp(s->name, name) == 0);
		s = zt_elf_lookup(&e, addr + size - 1);
		CHECK(s && strcmp(s->name, name) == 0);
		checked++;
	}
	if (nm)
		pclose(nm);
	CHECK(checked >= 5);	/* die, f, g, local_h, weak_k, main at least */
	zt_elf_close(&e);
}

UNIT_TEST(elf_rejects_what_is_not_elf)
{
	struct zt_elf e;
	char err[256];
	static const unsigned char junk[16] = "\177ELF\001\001\001";
	unsigned char hdr[64] = "\177ELF\002\001\001";

	CHECK(zt_elf_parse((const unsigned char *)"hello", 5, &e, err, sizeof err) == -1);
	CHECK_STR(err, "not an ELF file");
	zt_elf_close(&e);
	memset(&e, 0, sizeof e);
	CHECK(zt_elf_parse(junk, sizeof junk, &e, err, sizeof err) == -1);
	CHECK_STR(err, "not a 64-bit little-endian ELF file");
	zt_elf_close(&e);
	memset(&e, 0, sizeof e);
	CHECK(zt_elf_parse(hdr, 20, &e, err, sizeof err) == -1);
	CHECK_STR(err, "truncated ELF header");
	zt_elf_close(&e);
	memset(&e, 0, sizeof e);
	/* Program headers said to lie past the end of the file. */
	hdr[32] = 0x40;	/* e_phoff */
	hdr[54] = 56;	/* e_phentsize */
	hdr[56] = 9;	/* e_phnum */
	CHECK(zt_elf_parse(hdr, sizeof hdr, &e, err, sizeof err) == -1);
	CHECK_STR(err, "truncated or corrupt program headers");
	zt_elf_close(&e);
	CHECK(zt_elf_open("/nonexistent/zt", &e, err, sizeof err) == -1);
	CHECK_STR(err, "cannot open: No such file or directory");
	zt_elf_close(&e);
}

UNIT_TEST(elf_truncated_file_is_refused_or_read_safely)
{
	const char *path = build();
	struct zt_elf whole, e;
	char err[256];

	if (!path || zt_elf_open(path, &whole, err, sizeof err) < 0) {
		CHECK(0);
		return;
	}
	/* Every prefix either fails cleanly or parses without reading past it. */
	for (size_t n = 0; n < whole.size; n += 97) {
		unsigned char *copy = malloc(n ? n : 1);

		memcpy(copy, whole.data, n);
		memset(&e, 0, sizeof e);
		if (zt_elf_parse(copy, n, &e, err, sizeof err) == 0)
			(void)zt_elf_lookup(&e, 0x1139);
		zt_elf_close(&e);
		free(copy);
	}
	zt_elf_close(&whole);
}

/* A dump that maps prog's PT_LOADs at base, as the loader would. */
static char *dump_for(const char *path, const struct zt_elf *e, uint64_t base,
		      const char *samples)
{
	static char text[8192];
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof text - n, "zt-prof 1\nhz 997\nmaps\n");
	for (size_t i = 0; i < e->nloads; i++) {
		uint64_t start = (base + e->loads[i].vaddr) & ~0xfffull;
		uint64_t end = (base + e->loads[i].vaddr + e->loads[i].filesz + 0xfff) & ~0xfffull;
		uint64_t off = e->loads[i].offset & ~0xfffull;

		n += (size_t)snprintf(text + n, sizeof text - n,
				      "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " 08:01 42 %s\n",
				      start, end, off, path);
	}
	snprintf(text + n, sizeof text - n, "samples\n%s", samples);
	return text;
}

UNIT_TEST(symbolize_return_address_past_function_end_names_the_caller)
{
	const char *path = build();
	struct zt_elf e;
	char err[256], line[128];
	const struct zt_sym *f, *g;
	uint64_t base = 0x555500000000ull, ret;
	struct zt_raw d;
	struct zt_input *in;
	struct zt_symbolizer *s;
	struct zt_symres r;
	int fd;
	const char *text;

	if (!path || zt_elf_open(path, &e, err, sizeof err) < 0) {
		CHECK(0);
		return;
	}
	f = NULL;
	g = NULL;
	for (size_t i = 0; i < e.nsyms; i++) {
		if (strcmp(e.syms[i].name, "f") == 0)
			f = &e.syms[i];
		if (strcmp(e.syms[i].name, "g") == 0)
			g = &e.syms[i];
	}
	CHECK(f && g);
	if (!f || !g)
		return;
	/* The test needs g right after f, which ends with "call die". */
	CHECK_EQ_U(f->addr + f->size, g->addr);
	ret = base + g->addr;
	snprintf(line, sizeof line, "%" PRIx64 " %" PRIx64 "\n", base + f->addr, ret);
	text = dump_for(path, &e, base, line);
	fd = memfd_create("dump", 0);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	lseek(fd, 0, SEEK_SET);
	in = zt_input_fdopen(fd, "<test>");
	memset(&d, 0, sizeof d);
	CHECK(zt_raw_read(in, &d, err, sizeof err) == 0);
	zt_input_close(in);
	s = zt_symbolizer_new(&d, NULL);
	zt_symbolize_gen(s, ret, 0, ZT_RAW_GEN_ANY, &r);	/* as a return address */
	CHECK(r.have_sym);
	CHECK_STR(r.name, "f");
	CHECK_EQ_U(r.offset, f->size);
	zt_symbolize_gen(s, ret, 1, ZT_RAW_GEN_ANY, &r);	/* as an exact pc */
	CHECK_STR(r.name, "g");
	CHECK_EQ_U(r.offset, 0);
	zt_symbolize_gen(s, base + f->addr, 1, ZT_RAW_GEN_ANY, &r);
	CHECK_STR(r.name, "f");
	zt_symbolize_gen(s, 0x10, 1, ZT_RAW_GEN_ANY, &r);	/* in no mapping */
	CHECK_STR(r.name, "[unknown]");
	CHECK_STR(r.module, "[unknown]");
	zt_symbolizer_free(s);
	zt_raw_free(&d);
	zt_elf_close(&e);
}

/*
 * A section header whose size runs past the end of the file: the ELF
 * reader reads the section as empty and counts it, and the DWARF reader
 * refuses the file with a message instead of handing it to libdwarf,
 * which would believe the size and ask for that much memory.
 */
UNIT_TEST(dwarf_refuses_sections_past_the_end_of_the_file)
{
	const char *path = build();
	char copy[160], err[256];
	struct zt_elf e;
	struct zt_dwarf *dw;
	FILE *f;
	Elf64_Ehdr h;
	Elf64_Shdr s;
	const struct zt_section *info;

	if (!path) {
		CHECK(0);
		return;
	}
	snprintf(copy, sizeof copy, "%s/elf-prog-g", unit_dir());
	CHECK(unit_make("elf-prog-g.c", program, "gcc -g -O2 -o elf-prog-g elf-prog-g.c") == 0);
	CHECK(zt_elf_open(copy, &e, err, sizeof err) == 0);
	CHECK(e.sections_cut == 0);
	dw = zt_dwarf_open(copy, &e, err, sizeof err);
	CHECK(dw != NULL);
	if (dw)
		zt_dwarf_close(dw);
	info = zt_elf_section(&e, ".debug_info");
	CHECK(info != NULL);
	if (!info) {
		zt_elf_close(&e);
		return;
	}
	/* Patch .debug_info's sh_size in place to 1 TiB. */
	f = fopen(copy, "r+b");
	CHECK(f && fread(&h, sizeof h, 1, f) == 1);
	for (unsigned i = 0; f && i < h.e_shnum; i++) {
		long at = (long)(h.e_shoff + i * sizeof s);

		CHECK(fseek(f, at, SEEK_SET) == 0 && fread(&s, sizeof s, 1, f) == 1);
		if (s.sh_offset == info->offset && s.sh_type == SHT_PROGBITS) {
			s.sh_size = (uint64_t)1 << 40;
			CHECK(fseek(f, at, SEEK_SET) == 0 && fwrite(&s, sizeof s, 1, f) == 1);
		}
	}
	if (f)
		fclose(f);
	zt_elf_close(&e);
	CHECK(zt_elf_open(copy, &e, err, sizeof err) == 0);
	CHECK(e.sections_cut == 1);
	CHECK(zt_dwarf_open(copy, &e, err, sizeof err) == NULL);
	CHECK_STR(err, "1 section past the end of the file: DWARF not read");
	zt_elf_close(&e);
}

/*
 * A file opened again shares its first open's parse, each open with its own
 * path; one closed is still parsed for the next open; a file changed since
 * (its times) is parsed anew, and the opens before keep theirs.
 */
UNIT_TEST(elf_open_again_shares_the_parse)
{
	const char *path = build();
	char err[256], copy[160], cmd[1024];
	struct zt_elf a, b, c;

	CHECK(path != NULL);
	if (!path)
		return;
	snprintf(copy, sizeof copy, "%s/elf-prog-again", unit_dir());
	snprintf(cmd, sizeof cmd, "cp %s %s", path, copy);
	CHECK(system(cmd) == 0);
	CHECK(zt_elf_open(copy, &a, err, sizeof err) == 0);
	CHECK(zt_elf_open_in("/", copy, &b, err, sizeof err) == 0);
	CHECK(a.kept != NULL && a.kept == b.kept);
	CHECK(a.syms == b.syms && a.data == b.data && a.nsyms == b.nsyms);
	CHECK(strcmp(a.path, copy) == 0 && a.root == NULL);
	CHECK(b.root && strcmp(b.root, "/") == 0 && b.rootlen == 1);
	zt_elf_close(&a);
	CHECK(zt_elf_lookup(&b, b.syms[0].addr) == &b.syms[0]);
	zt_elf_close(&b);
	CHECK(zt_elf_open(copy, &c, err, sizeof err) == 0);
	CHECK(c.nsyms > 0 && c.kept != NULL);
	/* The same bytes written over it (the same inode and size): new
	   times, so a new parse. */
	snprintf(cmd, sizeof cmd, "sleep 0.05; cp %s %s", path, copy);
	CHECK(system(cmd) == 0);
	CHECK(zt_elf_open(copy, &a, err, sizeof err) == 0);
	CHECK(a.kept != c.kept && a.data != c.data);
	CHECK(a.nsyms == c.nsyms && strcmp(a.buildid, c.buildid) == 0);
	zt_elf_close(&c);
	zt_elf_close(&a);
	unlink(copy);
}
