# zt — a sampling-profiler toolkit for Linux. One non-recursive Makefile.
#
#   make            build the collector, the filters and the samples
#   make check      run the unit and bats tests (installs missing packages as root)
#   make check-busy the same with 4 CPU hogs beside it (tests/check-busy.sh)
#   make demo       profile samples/spin and show where its time went
#   make bench      benchmarks (tests/bench/), never part of check
#   make SANITIZE=address,undefined check
#
# Objects sit next to their sources: lib/*.o go into lib/libzt.a for the
# tools, collect/*.lo are built with -fPIC for the preloaded collector.

VERSION  = 0.1
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
LIBDIR   = $(PREFIX)/lib/zt
MANDIR   = $(PREFIX)/share/man
INCDIR   = $(PREFIX)/include

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes -Wwrite-strings
CPPFLAGS += -D_GNU_SOURCE -DZT_VERSION='"$(VERSION)"' -Ilib -I/usr/include/libdwarf
LDLIBS   = -ldwarf -ldeflate -lz -liberty
LDLIBS  += -lm

ifdef SANITIZE
SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

# Debian packages to build zt (all `make demo` needs), and those the tests
# add. `make deps` installs the missing ones of both.
BUILD_DEBS = libdwarf-dev libdebuginfod-dev libdeflate-dev zlib1g-dev libiberty-dev binutils gcc make \
	     libc6-dev libcurl4-openssl-dev
TEST_DEBS = bats bats-assert bats-support linux-perf procps util-linux python3-minimal clang \
	    perl xz-utils gzip libc6-dbg llvm chromium libxml2-utils golang-go \
	    gawk gdb g++ gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
	    libgoogle-perftools-dev strace groff-base debuginfod clickhouse-server clickhouse-client openssl \
	    libjemalloc2 heaptrack zstd sqlite3 git
DEBS = $(BUILD_DEBS) $(TEST_DEBS)
# Only for `make bench`: the collectors and the encoder zt is compared with,
# and the real programs of tests/bench/realprograms.sh (rustc is taken from
# PATH or rustup's ~/.cargo/bin; without it that row is skipped; redis-server
# is its wall-clock server, under redis-benchmark from redis-tools).
# FlameGraph's perl scripts (tests/bench/flame.sh, answers.sh) are not
# packaged: FLAMEGRAPH names a checkout of it (tests/bench/README.md).
BENCH_DEBS = google-perftools libprotobuf-c-dev protobuf-c-compiler \
	     zstd sqlite3 git nodejs ruby redis-server redis-tools

# The filters, one per line.
TOOLS = \
	tools/zt-symbolize \
	tools/zt-archive \
	tools/zt-fold \
	tools/zt-stat \
	tools/zt-diff \
	tools/zt-flame \
	tools/zt-pprof \
	tools/zt-ctl \
	tools/zt-ingest \

# The analysis library, one concern per file.
LIB_OBJ = \
	lib/util.o \
	lib/ctl.o \
	lib/input.o \
	lib/raw.o \
	lib/arch.o \
	lib/maps.o \
	lib/ranges.o \
	lib/elfread.o \
	lib/ehframe.o \
	lib/symbolize.o \
	lib/symstream.o \
	lib/stage.o \
	lib/debugfile.o \
	lib/debuginfod.o \
	lib/demangle.o \
	lib/archive.o \
	lib/srcline.o \
	lib/dwarfcompat.o \
	lib/hash.o \
	lib/strtab.o \
	lib/critbit.o \
	lib/perfscript.o \
	lib/framenames.o \
	lib/perfscriptfold.o \
	lib/folded.o \
	lib/foldedsort.o \
	lib/profile.o \
	lib/perfscriptprofile.o \
	lib/factlines.o \
	lib/chreply.o \
	lib/significance.o \
	lib/compare.o \
	lib/weight.o \
	lib/waitframes.o \
	lib/threadstates.o \
	lib/filter.o \
	lib/views.o \
	lib/json.o \
	lib/flame.o \
	lib/flamescript.o \
	lib/escape.o \
	lib/out.o \
	lib/progress.o \
	lib/pprof.o \
	lib/usage.o \
	lib/symargs.o \
	lib/event.o \

# The collector: libzt-prof.so (preloaded) and zt-collect (the launcher).
COLLECT_LO = \
	collect/sys.lo \
	collect/fmt.lo \
	collect/state.lo \
	collect/prof.lo \
	collect/unwind.lo \
	collect/cfi.lo \
	collect/tables.lo \
	collect/files.lo \
	collect/timer.lo \
	collect/spill.lo \
	collect/store.lo \
	collect/dump.lo \
	collect/snapshot.lo \
	collect/perfmap.lo \
	collect/vdso.lo \
	collect/labels.lo \
	collect/thread.lo \
	collect/intercept.lo \
	collect/sigmask.lo \
	collect/seccomp.lo \
	collect/control.lo \
	collect/offcpu.lo \
	collect/alloc.lo \

# zt-collect's own modules beside its launcher (never in the collector):
# the status pipe read back, the dumps it finishes, and the closing report.
ZTC_OBJ = \
	collect/status.o \
	collect/finish.o \
	collect/report.o \

# Unit tests for lib/ and collect/, linked into one runner.
UNIT_OBJ = \
	tests/unit/main.o \
	tests/unit/test-unwind.o \
	tests/unit/test-escape.o \
	tests/unit/test-out.o \
	tests/unit/test-usage.o \
	tests/unit/test-hex.o \
	tests/unit/test-hash.o \
	tests/unit/test-raw.o \
	tests/unit/test-elfread.o \
	tests/unit/test-symbolize.o \
	tests/unit/test-ehframe.o \
	tests/unit/test-input.o \
	tests/unit/test-strtab.o \
	tests/unit/test-critbit.o \
	tests/unit/test-ranges.o \
	tests/unit/test-perfscript.o \
	tests/unit/test-folded.o \
	tests/unit/test-symstream.o \
	tests/unit/test-significance.o \
	tests/unit/test-profile.o \
	tests/unit/test-cfi.o \
	tests/unit/test-weight.o \
	tests/unit/test-waitframes.o \
	tests/unit/test-compare.o \
	tests/unit/test-pprof.o \
	tests/unit/test-filter.o \
	tests/unit/test-factlines.o \
	tests/unit/test-alloc.o \
	tests/unit/test-symargs.o \
	tests/unit/test-debuginfod.o \
	tests/unit/test-status.o \
	tests/unit/test-report.o \
	tests/unit/test-finish.o \
	tests/unit/test-store.o \
	tests/unit/test-ehcursor.o \
	tests/unit/test-stage.o \

# The collector's objects the unit tests call (store.o: the sample-line
# writer, with what it stands on).
UNIT_EXTRA = collect/unwind.o collect/cfi.o collect/store.o collect/files.o collect/spill.o collect/state.o \
	     collect/fmt.o collect/sys.o $(ZTC_OBJ)

# Sample programs with known profiles. Frame pointers everywhere, leaves too.
SAMPLE_CFLAGS = -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
SAMPLES = \
	samples/spin \
	samples/threads \
	samples/forker \
	samples/dlopener \
	samples/libplugin.so \
	samples/dlstorm \
	samples/jitter \
	samples/libstorma.so \
	samples/libstormb.so \
	samples/forever \
	samples/sigprof \
	samples/blockio \
	samples/libearly.so \
	samples/earlythread \
	samples/libearlysmall.so \
	samples/earlystacks \
	samples/manyforks \
	samples/daemon \
	samples/manymaps \
	samples/omitfp \
	samples/sigframe \
	samples/vdso \
	samples/churn \
	samples/slower \
	samples/coroutine \
	samples/splitstack \
	samples/altstack \
	samples/libfdelib.so \
	samples/badfde \
	samples/shortthreads \
	samples/rawclone \
	samples/fdhostile \
	samples/dropper \
	samples/windows \
	samples/windowapi \
	samples/deeprec \
	samples/evloop \
	samples/bigcopy \
	samples/allocs \

# libFuzzer targets (make fuzz; never part of check): one per tests/fuzz/fuzz-*.c.
FUZZERS = $(patsubst tests/fuzz/%.c,tests/fuzz/bin/%,$(wildcard tests/fuzz/fuzz-*.c))

FUZZ_CC = clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined

MAN = $(wildcard man/*.1 man/*.5)

ifeq ($(V),1)
Q =
else
Q = @
endif

.PHONY: all check check-busy testbuild unit bats install uninstall clean deps demo bench fuzz cross
.DELETE_ON_ERROR:

all: lib/libzt.a $(TOOLS) collect/libzt-prof.so collect/libzt-alloc.so collect/zt-collect $(SAMPLES) tests/unit/run tests/cputime tests/noperf tests/cfidump tests/patchfde

lib/%.o: lib/%.c lib/*.h
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -c -o $@ $<

# The script every flame graph carries, kept as JavaScript in lib/flame.js.
lib/flamescript.c: lib/flame.js
	@echo "  GEN     $@"
	$(Q){ echo '/* Generated from lib/flame.js by the Makefile. */'; \
	  echo 'extern const char zt_flamescript[];'; \
	  echo 'const char zt_flamescript[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' lib/flame.js; \
	  echo ';'; } > $@

lib/libzt.a: $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $(LIB_OBJ)

# zt-ingest speaks HTTP to ClickHouse (libcurl).
tools/zt-ingest: LDLIBS += -lcurl

tools/%: tools/%.c lib/libzt.a lib/*.h
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -o $@ $< lib/libzt.a $(LDLIBS) $(LDFLAGS)

# The collector runs inside other programs: never sanitized, always -fPIC,
# and it exports only its constructor, destructor and interposed functions.
COLLECT_CFLAGS = -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
		 -fno-omit-frame-pointer -fno-stack-protector

collect/%.lo: collect/%.c collect/*.h lib/rawfmt.h lib/launch.h lib/hex.h lib/dwarfpe.h lib/ehcursor.h lib/ctl.h
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(COLLECT_CFLAGS) $(WARN) -c -o $@ $<
# The extent of zt's interposers (section zt_handover: collect/sys.h) is
# the library's own business: its __start_/__stop_ symbols are not exported.
COLLECT_LDFLAGS = -Wl,-z,nodelete -Wl,--no-undefined -Wl,-z,start-stop-visibility=hidden

collect/libzt-prof.so: $(COLLECT_LO)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -o $@ $(COLLECT_LO) $(COLLECT_LDFLAGS) -lz -lpthread -lm

# The allocator's interposers, preloaded only under zt-collect --alloc
# (collect/allocshim.c); they reach libzt-prof.so by weak references.
collect/libzt-alloc.so: collect/allocshim.lo
	@echo "  LD      $@"
	$(Q)$(CC) -shared -o $@ $< -Wl,-z,nodelete -ldl

collect/zt-collect: collect/zt-collect.c $(ZTC_OBJ) lib/libzt.a lib/*.h collect/*.h
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -o $@ $< $(ZTC_OBJ) lib/libzt.a $(LDLIBS) $(LDFLAGS)

# Collector sources built as ordinary objects, for the unit tests.
collect/%.o: collect/%.c collect/*.h lib/rawfmt.h lib/launch.h lib/hex.h lib/dwarfpe.h lib/ehcursor.h lib/ctl.h
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -c -o $@ $<

tests/unit/%.o: tests/unit/%.c tests/unit/unit.h lib/*.h collect/*.h
	@echo "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) -Icollect $(CFLAGS) $(WARN) -Wno-missing-prototypes $(SANFLAGS) -c -o $@ $<

tests/unit/run: $(UNIT_OBJ) $(UNIT_EXTRA) lib/libzt.a
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(UNIT_OBJ) $(UNIT_EXTRA) lib/libzt.a $(LDLIBS) $(LDFLAGS)

tests/cputime: tests/cputime.c
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $<

tests/noperf: tests/noperf.c
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $<

tests/cfidump: tests/cfidump.c collect/cfi.c collect/cfi.h collect/arch*.h lib/ehcursor.h lib/dwarfpe.h
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CPPFLAGS) -Icollect $(CFLAGS) $(WARN) $(SANFLAGS) -o $@ $< collect/cfi.c

samples/lib%.so: samples/%.c
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -shared -fPIC -o $@ $<

samples/earlythread: samples/earlythread.c samples/libearly.so
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -o $@ $< -Lsamples -learly -Wl,-rpath,'$$ORIGIN' -lpthread

samples/earlystacks: samples/earlystacks.c samples/libearlysmall.so
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -o $@ $< -Lsamples -learlysmall -Wl,-rpath,'$$ORIGIN' -lpthread

# Optimized and without frame pointers: only unwind tables find its callers.
samples/omitfp: samples/omitfp.c
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -o $@ $<

# A library whose lib_bad claims 2 GiB in its FDE, and a program using it.
samples/libfdelib.so: samples/fdelib.c tests/patchfde
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -shared -fPIC -o $@.tmp $<
	$(Q)tests/patchfde $@.tmp $@ $$(nm $@.tmp | sed -n 's/^\([0-9a-f]*\) T lib_bad$$/\1/p') 7ffff000
	$(Q)rm -f $@.tmp

samples/badfde: samples/badfde.c samples/libfdelib.so
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -o $@ $< -Lsamples -lfdelib -Wl,-rpath,'$$ORIGIN'

tests/patchfde: tests/patchfde.c
	@echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $<

# Split stacks: gcc's segmented stacks, __morestack and all.
samples/splitstack: samples/splitstack.c
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -fsplit-stack -o $@ $<

samples/windowapi: samples/windowapi.c collect/zt.h
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -Icollect -o $@ $<

samples/%: samples/%.c
	@echo "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -o $@ $< -lpthread -ldl

# A cross build of the collector, its launcher and the samples the aarch64
# suite runs (tests/08*): make CROSS=aarch64-linux-gnu-. Everything goes to
# build/aarch64-linux-gnu/, never beside the host's objects. Debian's cross
# sysroot has a libc but no zlib: the first cross build unpacks Debian's
# arm64 zlib1g and zlib1g-dev into build/aarch64-linux-gnu/sysroot through a
# private apt state (tests/sysroot.sh: the machine's dpkg architectures and
# package lists are left alone; it needs the Debian archive once). zt-collect
# links only the lib/ parts it uses (ZTC_LIB_OBJ: no libdwarf, no libiberty).
ZTC_LIB_OBJ = lib/util.o lib/usage.o lib/input.o lib/raw.o lib/arch.o lib/maps.o \
	lib/elfread.o lib/escape.o lib/ranges.o lib/strtab.o lib/hash.o lib/progress.o lib/out.o \
	lib/ctl.o
ifneq ($(CROSS),)
XDIR := build/$(patsubst %-,%,$(CROSS))
XCC := $(CROSS)gcc
XDEBARCH_aarch64-linux-gnu- = arm64
XDEBARCH := $(XDEBARCH_$(CROSS))
XSYSROOT := $(XDIR)/sysroot
XCPPFLAGS = $(filter-out -I/usr/include/libdwarf,$(CPPFLAGS)) -I$(XSYSROOT)/usr/include
XLDFLAGS = -L$(XSYSROOT)/usr/lib/$(patsubst %-,%,$(CROSS))
XSAMPLES = spin threads sigframe dlopener libplugin.so omitfp spin-pac plt libpltlib.so \
	   forker daemon
.DEFAULT_GOAL := cross
cross: $(XDIR)/collect/libzt-prof.so $(XDIR)/collect/zt-collect $(addprefix $(XDIR)/samples/,$(XSAMPLES))

$(XSYSROOT)/.done: tests/sysroot.sh
	$(Q)$(if $(XDEBARCH),sh tests/sysroot.sh $(XDEBARCH) $(XSYSROOT) zlib1g zlib1g-dev,\
	  echo "make: CROSS=$(CROSS): no Debian architecture known for it (XDEBARCH_$(CROSS) in the Makefile)" >&2; exit 1)

$(XDIR)/collect/%.lo: collect/%.c collect/*.h lib/rawfmt.h lib/launch.h lib/hex.h lib/dwarfpe.h lib/ehcursor.h lib/ctl.h | $(XSYSROOT)/.done
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(XCPPFLAGS) $(COLLECT_CFLAGS) $(WARN) -c -o $@ $<

$(XDIR)/collect/libzt-prof.so: $(COLLECT_LO:collect/%=$(XDIR)/collect/%)
	@echo "  LD      $@"
	$(Q)$(XCC) -shared -o $@ $^ $(COLLECT_LDFLAGS) $(XLDFLAGS) -lz -lpthread -lm

$(XDIR)/lib/%.o: lib/%.c lib/*.h | $(XSYSROOT)/.done
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(XCPPFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

$(XDIR)/collect/%.o: collect/%.c collect/*.h lib/*.h | $(XSYSROOT)/.done
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(XCPPFLAGS) $(CFLAGS) $(WARN) -c -o $@ $<

$(XDIR)/collect/zt-collect: collect/zt-collect.c $(ZTC_OBJ:collect/%=$(XDIR)/collect/%) \
			    $(ZTC_LIB_OBJ:lib/%=$(XDIR)/lib/%) lib/*.h collect/*.h
	@mkdir -p $(@D)
	@echo "  CCLD    $@"
	$(Q)$(XCC) $(XCPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(ZTC_OBJ:collect/%=$(XDIR)/collect/%) \
		$(ZTC_LIB_OBJ:lib/%=$(XDIR)/lib/%) $(XLDFLAGS) -lz

$(XDIR)/samples/lib%.so: samples/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(SAMPLE_CFLAGS) -shared -fPIC -o $@ $<

$(XDIR)/samples/omitfp: samples/omitfp.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) -O2 -g -fomit-frame-pointer -o $@ $<

# A hot loop through the PLT into libpltlib.so, found beside it.
$(XDIR)/samples/plt: samples/plt.c $(XDIR)/samples/libpltlib.so
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(SAMPLE_CFLAGS) -o $@ $< -L$(XDIR)/samples -lpltlib -Wl,-rpath,'$$ORIGIN'

# spin with its return addresses signed (pointer authentication: run it
# under qemu-aarch64 -cpu max).
$(XDIR)/samples/spin-pac: samples/spin.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(SAMPLE_CFLAGS) -mbranch-protection=pac-ret -o $@ $<

$(XDIR)/samples/%: samples/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(XCC) $(SAMPLE_CFLAGS) -o $@ $< -lpthread -ldl
endif

# Each fuzzer is built with clang from the library's sources.
tests/fuzz/bin/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_OBJ:.o=.c) lib/*.h
	@mkdir -p tests/fuzz/bin
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -o $@ $< $(LIB_OBJ:.o=.c) $(LDLIBS)

# The CFI compiler is the collector's, not the library's.
tests/fuzz/bin/fuzz-cfi: tests/fuzz/fuzz-cfi.c tests/fuzz/fuzz.h collect/cfi.c collect/cfi.h collect/arch*.h lib/ehcursor.h
	@mkdir -p tests/fuzz/bin
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -Icollect $(FUZZ_FLAGS) -o $@ $< collect/cfi.c

# The collector's reading of zt-collect's labels, with its files module stood in for.
tests/fuzz/bin/fuzz-collect-labels: tests/fuzz/fuzz-collect-labels.c tests/fuzz/fuzz.h collect/labels.c collect/labels.h lib/launch.h lib/rawfmt.h
	@mkdir -p tests/fuzz/bin
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -Icollect $(FUZZ_FLAGS) -o $@ $<

# zt-collect's finishing of a dead process's dump, the buffers it left above all.
tests/fuzz/bin/fuzz-finish: tests/fuzz/fuzz-finish.c tests/fuzz/fuzz.h collect/finish.c collect/finish.h collect/spill.h collect/status.c $(LIB_OBJ:.o=.c) lib/*.h
	@mkdir -p tests/fuzz/bin
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS) -Icollect $(FUZZ_FLAGS) -o $@ $< collect/finish.c collect/status.c $(LIB_OBJ:.o=.c) $(LDLIBS)

fuzz: $(FUZZERS)

deps:
	@sh tests/deps.sh $(DEBS)

# What the tests run: everything, and the aarch64 build where its compiler is.
testbuild:
	@$(MAKE) --no-print-directory all
	@if command -v aarch64-linux-gnu-gcc > /dev/null 2>&1; then \
		$(MAKE) --no-print-directory CROSS=aarch64-linux-gnu- cross; fi

check: deps
	@$(MAKE) --no-print-directory testbuild
	@sh tests/check.sh

check-busy: deps
	@$(MAKE) --no-print-directory testbuild
	@sh tests/check-busy.sh

unit: tests/unit/run
	tests/unit/run

bats: all
	bats --tap tests

demo:
	@sh tests/deps.sh $(BUILD_DEBS)
	@$(MAKE) --no-print-directory all
	@sh samples/demo.sh

bench: deps
	@sh tests/deps.sh $(BENCH_DEBS)
	@$(MAKE) --no-print-directory all
	@failed=; for b in tests/bench/*.sh; do echo "== $$b"; sh "$$b" || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "make bench: FAILED:$$failed" >&2; exit 1; fi

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(TOOLS) collect/zt-collect $(DESTDIR)$(BINDIR)/
	install -m 755 collect/libzt-prof.so collect/libzt-alloc.so $(DESTDIR)$(LIBDIR)/
	install -d $(DESTDIR)$(INCDIR)
	install -m 644 collect/zt.h $(DESTDIR)$(INCDIR)/
	for m in $(MAN); do \
		case $$m in *.1) d=man1;; *.5) d=man5;; esac; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/$$d/ || exit 1; done

uninstall:
	for t in $(TOOLS) collect/zt-collect; do rm -f $(DESTDIR)$(BINDIR)/$${t##*/}; done
	rm -f $(DESTDIR)$(LIBDIR)/libzt-prof.so $(DESTDIR)$(LIBDIR)/libzt-alloc.so $(DESTDIR)$(INCDIR)/zt.h
	-rmdir $(DESTDIR)$(LIBDIR)
	for m in $(MAN); do \
		case $$m in *.1) d=man1;; *.5) d=man5;; esac; \
		rm -f $(DESTDIR)$(MANDIR)/$$d/$${m##*/}; done

clean:
	rm -f lib/*.o lib/libzt.a lib/flamescript.c collect/*.lo collect/*.o collect/libzt-prof.so collect/libzt-alloc.so \
	      collect/zt-collect $(TOOLS) $(SAMPLES) tests/unit/*.o tests/unit/run tests/cputime tests/noperf tests/cfidump tests/patchfde
	rm -rf tests/fuzz/bin build
