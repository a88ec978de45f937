/*
 * test-symbolize.c — choosing among symbols (perf's rule at one address:
 * GLOBAL, then LOCAL, then WEAK, fewer leading underscores, the longer name;
 * symbol versions dropped; zero-size symbols, STT_GNU_IFUNC), PLT entries named
 * "func@plt" as objdump names them in the lazy, IBT (.plt.sec) and BIND_NOW
 * layouts, .gnu_debuglink, and the demangler.
 */
#include "unit.h"
#include "debugfile.h"
#include "demangle.h"
#include "elfread.h"

#include <inttypes.h>
#include <stdlib.h>

static const char aliases[] =
	"\t.text\n"
	"\t.globl gsym\n\t.weak wsym\n"
	"\t.type gsym,@function\n\t.type wsym,@function\n\t.type lsym,@function\n"
	"lsym:\nwsym:\ngsym:\n\tnop\n\tnop\n\tret\n"
	"\t.size gsym,3\n\t.size wsym,3\n\t.size lsym,3\n"
	"\t.weak w2\n\t.type w2,@function\n\t.type l2,@function\n"
	"l2:\nw2:\n\tnop\n\tret\n\t.size w2,2\n\t.size l2,2\n"
	"\t.globl zs\n\t.type zs,@function\n"
	"zs:\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
	"\t.globl ifn\n\t.type ifn,@gnu_indirect_function\n"
	"ifn:\n\tnop\n\tret\n\t.size ifn,2\n"
	"\t.globl last\n\t.type last,@function\nlast:\n\tret\n\t.size last,1\n";

static uint64_t addr_of(const struct zt_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (strcmp(e->syms[i].name, name) == 0)
			return e->syms[i].addr;
	return 0;
}

UNIT_TEST(symbols_global_weak_local_zero_size_ifunc)
{
	struct zt_elf e;
	char err[256], path[128];
	const struct zt_sym *s;
	uint64_t g, l2, zs, ifn;

	CHECK(unit_make("a.s", aliases, "gcc -shared -nostdlib -o a.so a.s") == 0);
	snprintf(path, sizeof path, "%s/a.so", unit_dir());
	CHECK(zt_elf_open(path, &e, err, sizeof err) == 0);
	g = addr_of(&e, "gsym");
	l2 = addr_of(&e, "l2");
	zs = addr_of(&e, "zs");
	ifn = addr_of(&e, "ifn");
	CHECK(g && l2 && zs && ifn);
	s = zt_elf_lookup(&e, g + 2);
	CHECK(s && strcmp(s->name, "gsym") == 0);	/* not wsym, not lsym */
	s = zt_elf_lookup(&e, l2 + 1);
	CHECK(s && strcmp(s->name, "l2") == 0);		/* not WEAK w2, as perf says */
	s = zt_elf_lookup(&e, zs + 4);
	CHECK(s && strcmp(s->name, "zs") == 0);		/* size 0: up to the next */
	CHECK(s && s->zero_size);
	s = zt_elf_lookup(&e, ifn + 1);
	CHECK(s && strcmp(s->name, "ifn") == 0);	/* an IFUNC counts */
	CHECK(zt_elf_lookup(&e, ifn + 2) == NULL ||
	      strcmp(zt_elf_lookup(&e, ifn + 2)->name, "last") == 0);
	zt_elf_close(&e);
}

static const char versioned[] =
	"\t.text\n"
	"\t.type first,@function\nfirst:\n\tret\n\t.size first,1\n"
	/* A LOCAL definition with two GLOBAL versioned names, as glibc's
	 * __libc_start_main_impl: the longer GLOBAL wins, version dropped. */
	"\t.type vfn_impl,@function\nvfn_impl:\n\tnop\n\tret\n\t.size vfn_impl,2\n"
	"\t.symver vfn_impl, vfn@@V1\n\t.symver vfn_impl, vfn@V0\n\t.globl \"vfn@@V1\"\n"
	/* All LOCAL: fewer leading underscores, then the longer name. */
	"\t.type __u0,@function\n\t.type _u1,@function\n\t.type u,@function\n"
	"__u0:\n_u1:\nu:\n\tret\n\t.size __u0,1\n\t.size _u1,1\n\t.size u,1\n"
	"\t.type ab,@function\n\t.type abc,@function\n\t.type _abcdef,@function\n"
	"_abcdef:\nab:\nabc:\n\tret\n\t.size ab,1\n\t.size abc,1\n\t.size _abcdef,1\n"
	/* A sized symbol over one of size zero, whatever its binding. */
	"\t.globl zg\n\t.type zg,@function\n\t.type sized,@function\n"
	"zg:\nsized:\n\tret\n\t.size sized,1\n"
	/* An '@' that starts no version stays. */
	"\t.type \"at@\",@function\n\"at@\":\n\tret\n\t.size \"at@\",1\n";

UNIT_TEST(symbols_perf_s_choice_among_aliases_and_no_versions)
{
	struct zt_elf e;
	char err[256], path[128];
	const struct zt_sym *s;

	CHECK(unit_make("v.s", versioned, "gcc -c -o v.o v.s") == 0);
	snprintf(path, sizeof path, "%s/v.o", unit_dir());
	CHECK(zt_elf_open(path, &e, err, sizeof err) == 0);
	s = zt_elf_lookup(&e, 1);
	CHECK(s && strcmp(s->name, "vfn") == 0);
	s = zt_elf_lookup(&e, 3);
	CHECK(s && strcmp(s->name, "u") == 0);
	s = zt_elf_lookup(&e, 4);
	CHECK(s && strcmp(s->name, "abc") == 0);
	s = zt_elf_lookup(&e, 5);
	CHECK(s && strcmp(s->name, "sized") == 0);
	s = zt_elf_lookup(&e, 6);
	CHECK(s && strcmp(s->name, "at@") == 0);
	for (size_t i = 0; i < e.nsyms; i++)
		CHECK(strcmp(e.syms[i].name, "vfn@@V1") != 0);
	zt_elf_close(&e);
}

static const char pltprog[] =
	"#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n"
	"int (*fp)(const char *) = puts;\n"
	"int main(int argc, char **argv) { char b[64]; strcpy(b, argv[0]); puts(b);\n"
	"  printf(\"%d\\n\", argc); fp(\"x\"); return (int)strlen(b) + abs(argc); }\n";

/* Every entry objdump names "<func@plt>" gets that name from us, and no other. */
static void check_plt(const char *bin)
{
	struct zt_elf e;
	char err[256], path[128], cmd[256], line[512];
	FILE *p;
	int n = 0;

	snprintf(path, sizeof path, "%s/%s", unit_dir(), bin);
	if (zt_elf_open(path, &e, err, sizeof err) < 0) {
		CHECK(0);
		return;
	}
	snprintf(cmd, sizeof cmd, "objdump -d -j .plt -j .plt.sec -j .plt.got '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof line, p)) {
		uint64_t a;
		char name[256];
		const struct zt_sym *s;

		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &a, name) != 2)
			continue;
		s = zt_elf_lookup_plt(&e, a + 4);
		if (!strstr(name, "@plt") || strchr(name, '-')) {
			CHECK(s == NULL);	/* the PLT header */
			continue;
		}
		CHECK(s && strcmp(s->name, name) == 0);
		n++;
	}
	if (p)
		pclose(p);
	CHECK(n >= 4);
	CHECK_EQ_U(e.nplt, (unsigned)n);
	zt_elf_close(&e);
}

UNIT_TEST(symbols_plt_entries_named_as_objdump_names_them)
{
	CHECK(unit_make("plt.c", pltprog,
			"gcc -O2 -o lazy plt.c && "
			"gcc -O2 -fcf-protection -Wl,-z,ibtplt -o ibt plt.c && "
			"gcc -O2 -fcf-protection -Wl,-z,ibtplt -Wl,-z,now -o now plt.c") == 0);
	check_plt("lazy");
	check_plt("ibt");
	check_plt("now");
}

UNIT_TEST(symbols_debuglink_name_and_crc)
{
	struct zt_elf e, d;
	char err[256], path[128], warn[512];

	CHECK(unit_make("d.c", "static int f(int x) { return x * 3; }\n"
			  "int main(int c, char **v) { (void)v; return f(c); }\n",
		   "gcc -g -o d d.c && objcopy --only-keep-debug d d.dbg && "
		   "strip d && objcopy --add-gnu-debuglink=d.dbg d") == 0);
	snprintf(path, sizeof path, "%s/d", unit_dir());
	CHECK(zt_elf_open(path, &e, err, sizeof err) == 0);
	CHECK_STR(e.debuglink, "d.dbg");
	CHECK(!e.symtab);
	CHECK(zt_debugfile_find(&e, path, NULL, NULL, 0, &d, warn, sizeof warn) == 0);
	CHECK_STR(d.buildid, e.buildid);
	CHECK(d.symtab && d.nobits_text);
	CHECK(zt_elf_lookup(&d, addr_of(&d, "f")) != NULL);
	zt_elf_close(&d);
	/* A byte more and the CRC no longer matches. */
	CHECK(unit_make("x", "", "printf x >> d.dbg") == 0);
	CHECK(zt_debugfile_find(&e, path, NULL, NULL, 0, &d, warn, sizeof warn) == -1);
	CHECK(strstr(warn, "fails its CRC check") != NULL);
	zt_elf_close(&e);
}

UNIT_TEST(symbols_crc32_is_zlibs)
{
	CHECK_EQ_U(zt_debugfile_crc32((const unsigned char *)"123456789", 9), 0xcbf43926);
}

UNIT_TEST(demangle_cxx_rust_and_plain)
{
	char *s;

	s = zt_demangle("_ZN2ns3AccIlE3addEl");
	CHECK_STR(s, "ns::Acc<long>::add(long)");
	free(s);
	s = zt_demangle("_Znwm@plt");
	CHECK_STR(s, "operator new(unsigned long)@plt");
	free(s);
	s = zt_demangle("_ZN3std2rt10lang_start17h0123456789abcdefE");
	CHECK_STR(s, "std::rt::lang_start");
	free(s);
	s = zt_demangle("_RNvCskwGfYPst2Cb_3foo16example_function");
	CHECK_STR(s, "foo::example_function");
	free(s);
	CHECK(zt_demangle("main") == NULL);
	CHECK(zt_demangle("_Zbogus") == NULL);
}
