#!/usr/bin/env bats
# zt-symbolize --lines: source lines and inlined frames from DWARF, checked
# against addr2line -C -f -i and llvm-symbolizer on the same addresses (libc
# with libc6-dbg's debug file, and a C++ program built with -O2 -g), and
# corrupt DWARF.

load helper

COMPARE="$BATS_TEST_DIRNAME/symcompare.py"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	cat > inl.c <<'C'
#include <stdlib.h>
static inline __attribute__((always_inline)) long sq(long x) { return x * x + 1; }
static inline __attribute__((always_inline)) long twice(long x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) long work(long n)
{ long s = 0; for (long i = 0; i < n; i++) s += twice(i) ^ s; return s; }
int main(int argc, char **argv) { return work(argc > 1 ? atol(argv[1]) : 100) == 42; }
C
	gcc -O2 -g -o inl inl.c
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "--lines: inlined calls are frames of their own, innermost first, each with its line" {
	# The first pc of work that addr2line puts three calls deep.
	read -r lo size < <(nm -S inl | awk '$4 == "work" { print $1, $2 }')
	for ((a = 0x$lo; a < 0x$lo + 0x$size; a++)); do
		[ "$(addr2line -f -i -e inl "$(printf '%x' $a)" | sed -n 1p)" = sq ] && break
	done
	pc=$(printf '%x' $a)
	addr2line -f -i -e inl "$pc" > want
	[ "$(sed -n '1p;3p;5p' want | tr '\n' ' ')" = "sq twice work " ]
	python3 "$COMPARE" onepc inl "$PWD/inl" "$pc" > one.raw
	run --separate-stderr zt-symbolize --lines one.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	expected=$(printf '\t%16s sq (inlined)\n  %s\n\t%16s twice (inlined)\n  %s\n\t%16s work+0x%x (%s)\n  %s' \
		"$pc" "$(sed -n 2p want)" "$pc" "$(sed -n 4p want)" "$pc" $((a - 0x$lo)) "$PWD/inl" "$(sed -n 6p want)")
	[ "$(printf '%s\n' "$output" | grep -v '^#' | sed 1d)" = "$expected" ]
	# zt-fold reads the inlined frames as frames of their own.
	[ "$(zt-symbolize --lines one.raw | zt-fold)" = "inl;work;twice;sq 1" ]
	# Without --lines: the same frame, alone, with no line.
	run zt-symbolize one.raw
	[ "$(printf '%s\n' "$output" | grep -v '^#' | sed 1d)" = "$(printf '\t%16s work+0x%x (%s)' "$pc" $((a - 0x$lo)) "$PWD/inl")" ]
}

@test "--lines: a function no symbol names gets its DWARF name, also where no call is inlined" {
	# Two files, one CU each: plain.c inlines nothing (zt reads its DIEs
	# only when a name is wanted), nosym.c inlines; .symtab stripped, the
	# DWARF kept, so that the static functions have no symbol (their FDEs
	# name them without --lines).
	cat > plain.c <<'C'
static __attribute__((noinline)) long quiet(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ s; return s; }
long plain(long n) { return quiet(n) + 1; }
C
	cat > nosym.c <<'C'
#include <stdlib.h>
long plain(long n);
static inline __attribute__((always_inline)) long sq(long x) { return x * x + 1; }
static __attribute__((noinline)) long loud(long n) { long s = 0; for (long i = 0; i < n; i++) s += sq(i) ^ s; return s; }
int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 100; return (loud(n) + plain(n)) == 42; }
C
	gcc -O2 -g -o withsym nosym.c plain.c
	[ "$(readelf -wi withsym | grep -c DW_TAG_inlined_subroutine)" -gt 0 ]
	objcopy --strip-all --keep-section='.debug_*' withsym nosym
	[ "$(readelf -SW nosym | grep -c ' \.debug_info ')" = 1 ]
	! readelf -sW nosym | grep -q quiet
	for fn in quiet loud; do
		# A pc inside the function, from DWARF's own view (addr2line).
		lo=$(readelf -wi nosym | awk -v f="$fn" '
			/DW_AT_name/ && $NF == f { hit = 1; next }
			hit && /DW_AT_low_pc/ { print $NF; exit }')
		[ -n "$lo" ]
		pc=$(printf '%x' $((lo + 4)))
		[ "$(addr2line -f -e nosym "$pc" | sed -n 1p)" = "$fn" ]
		python3 "$COMPARE" onepc nosym "$PWD/nosym" "$pc" > "$fn.raw"
		run --separate-stderr zt-symbolize --lines "$fn.raw"
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" | grep -v '^#' | sed -n 2p | grep -q " $fn+0x4 (.*/nosym)$"
		[ "$(printf '%s\n' "$output" | grep -v '^#' | sed -n 3p)" = "  $(addr2line -e nosym "$pc")" ]
		# Without --lines, its FDE's name.
		zt-symbolize "$fn.raw" 2> /dev/null | grep -v '^#' | sed -n 2p | grep -q ' \[nosym+0x[0-9a-f]*\]+0x'
	done
}

@test "without --lines no DWARF is read; corrupt DWARF is one warning, names stay" {
	cp inl bad
	off=$(readelf -SW bad | awk '$2 == ".debug_info" { print $5 }')
	printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of=bad bs=1 seek=$((0x$off)) conv=notrunc 2>/dev/null
	pc=$(printf '%x' $((0x$(nm inl | awk '$3 == "work" { print $1 }') + 4)))
	python3 "$COMPARE" onepc inl "$PWD/bad" "$pc" > bad.raw
	run --separate-stderr zt-symbolize bad.raw
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *" work+0x4 ($PWD/bad)"* ]]
	run --separate-stderr zt-symbolize -l bad.raw
	[ "$status" -eq 0 ]
	[[ "$stderr" == "zt-symbolize: '$PWD/bad': corrupt DWARF: "*"; no source lines from it" ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$output" == *" work+0x4 ($PWD/bad)"* ]]
	[[ "$output" == *"# zt warning '$PWD/bad': corrupt DWARF: "* ]]
}

@test "a truncated file: one warning, names from its debug file by build-id" {
	head -c $(( $(stat -c %s inl) * 3 / 4 )) inl > cut
	pc=$(printf '%x' $((0x$(nm inl | awk '$3 == "work" { print $1 }') + 4)))
	python3 "$COMPARE" onepc inl "$PWD/cut" "$pc" > cut.raw
	run --separate-stderr zt-symbolize -l cut.raw
	[ "$status" -eq 0 ]
	[ "$stderr" = "zt-symbolize: '$PWD/cut': truncated or corrupt section headers; no symbols read from it" ]
	[[ "$output" == *" [cut] ($PWD/cut)"* ]]
	# Its program headers and build-id are whole: its debug file names it.
	b=$(readelf -n inl | awk '/Build ID/ { print $3 }')
	mkdir -p "dbg/.build-id/${b:0:2}"
	objcopy --only-keep-debug inl "dbg/.build-id/${b:0:2}/${b:2}.debug"
	run --separate-stderr zt-symbolize -l --debug-dir=dbg cut.raw
	[ "$status" -eq 0 ]
	[[ "$output" == *" work+0x4 ($PWD/cut)"*"inl.c:5"* ]]
}

# addr2line's lines are compared by number only ("nofiles"): binutils 2.40
# names the wrong file for DWARF 5 rows that never set one (symcompare.py).
@test "libc: --lines agrees with addr2line and llvm-symbolizer on 20000 random pcs" {
	libc=/usr/lib/x86_64-linux-gnu/libc.so.6
	b=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	dbg="/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug"
	python3 "$COMPARE" dump "$libc" "$dbg" 20000 7 > libc.raw
	zt-symbolize --lines libc.raw > zt.sym
	addr2line -a -C -f -i -e "$dbg" < pcs.txt > a2l.txt
	llvm-symbolizer --output-style=GNU -a -C -f -i --obj="$dbg" < pcs.txt > llvm.txt
	python3 "$COMPARE" compare zt.sym a2l.txt llvm.txt "$dbg" nofiles > score 2>/dev/null
	cat score
	awk '{ if ($4 < 0.98) bad = 1 } END { exit bad }' score
	[ "$(wc -l < score)" -eq 2 ]
}

@test "C++ at -O2 -g: --lines agrees with addr2line and llvm-symbolizer" {
	cat > big.cc <<'C'
#include <algorithm>
#include <map>
#include <string>
#include <vector>
#include <cstdio>
namespace geo {
struct Point { double x, y; };
static inline double dot(const Point &a, const Point &b) { return a.x * b.x + a.y * b.y; }
template <typename T> struct Grid {
	std::vector<T> cells;
	size_t w;
	T &at(size_t i, size_t j) { return cells[i * w + j]; }
	T sum() const { T s{}; for (const T &c : cells) s += c; return s; }
};
double norm(const std::vector<Point> &v) { double s = 0; for (auto &p : v) s += dot(p, p); return s; }
}
static std::map<std::string, int> count_words(const std::vector<std::string> &ws)
{ std::map<std::string, int> m; for (auto &w : ws) ++m[w]; return m; }
int main(int argc, char **argv)
{
	std::vector<geo::Point> pts;
	for (int i = 0; i < argc * 1000; i++) pts.push_back({i * 0.5, i * 0.25});
	std::sort(pts.begin(), pts.end(), [](const geo::Point &a, const geo::Point &b) { return a.y > b.y; });
	geo::Grid<long> g{std::vector<long>(100, 1), 10};
	g.at(2, 3) = argc;
	std::vector<std::string> ws;
	for (int i = 1; i < argc; i++) ws.push_back(argv[i]);
	auto m = count_words(ws);
	std::printf("%f %ld %zu\n", geo::norm(pts), g.sum(), m.size());
	return 0;
}
C
	g++ -O2 -g -o big big.cc
	python3 "$COMPARE" dump "$PWD/big" "$PWD/big" 20000 3 > big.raw
	zt-symbolize --lines big.raw > zt.sym
	addr2line -a -C -f -i -e big < pcs.txt > a2l.txt
	llvm-symbolizer --output-style=GNU -a -C -f -i --obj=big < pcs.txt > llvm.txt
	python3 "$COMPARE" compare zt.sym a2l.txt llvm.txt big nofiles > score 2>/dev/null
	cat score
	awk '{ if ($4 < 0.98) bad = 1 } END { exit bad }' score
	[ "$(wc -l < score)" -eq 2 ]
	# Inlined frames are there: some pc is three calls deep or more.
	awk '/^\t/ { if ($1 == last) n++; else n = 1; last = $1; if (n >= 3) deep = 1 } END { exit !deep }' zt.sym
	# The file of every line is llvm-symbolizer's (readelf -wL's), not
	# addr2line's, where they differ.
	python3 "$COMPARE" compare zt.sym a2l.txt llvm.txt big > full 2>/dev/null
	awk '$1 == "llvm-symbolizer" && $4 < 0.98 { exit 1 }' full
}

@test "clang's DWARF 5 (file 0, no aranges, rnglistx): --lines agrees with llvm-symbolizer" {
	command -v clang > /dev/null || skip "clang is not installed"
	printf '#include <vector>\n#include <algorithm>\nint main(int c, char **) { std::vector<int> v(c * 100, 3);\n  std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });\n  return v[0]; }\n' > c.cc
	clang++ -O2 -g -o cbig c.cc
	python3 "$COMPARE" dump "$PWD/cbig" "$PWD/cbig" 5000 5 > cbig.raw
	zt-symbolize --lines cbig.raw > zt.sym
	: > a2l.txt
	llvm-symbolizer --output-style=GNU -a -C -f -i --obj=cbig < pcs.txt > llvm.txt
	python3 "$COMPARE" compare zt.sym a2l.txt llvm.txt cbig > score 2>/dev/null
	cat score
	awk '$1 == "llvm-symbolizer" { found = 1; if ($4 < 0.98) exit 1 } END { exit !found }' score
}
