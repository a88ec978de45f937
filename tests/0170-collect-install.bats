#!/usr/bin/env bats
# make install: the installed zt-collect finds its collector relative to
# itself, and make uninstall removes everything it put there.

load helper

@test "an installed zt-collect profiles with the installed collector" {
	dest="$BATS_TEST_TMPDIR/root"
	make -s -C "$ZT_TOP" install PREFIX=/opt/zt DESTDIR="$dest" > /dev/null
	[ -x "$dest/opt/zt/bin/zt-collect" ]
	[ -f "$dest/opt/zt/lib/zt/libzt-prof.so" ]
	[ -f "$dest/opt/zt/share/man/man1/zt-collect.1" ]
	[ -f "$dest/opt/zt/share/man/man5/zt-raw.5" ]
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "$dest/opt/zt/bin/zt-collect" -o i.raw "$SAMPLES/spin" 50
	[ "$status" -eq 0 ]
	grep -q "$dest/opt/zt/lib/zt/libzt-prof.so" i.raw
	"$dest/opt/zt/bin/zt-symbolize" i.raw | "$dest/opt/zt/bin/zt-fold" | grep -q 'main;work;hot_a '
	# --alloc's interposers are installed beside the collector, and found there.
	[ -f "$dest/opt/zt/lib/zt/libzt-alloc.so" ]
	run --separate-stderr "$dest/opt/zt/bin/zt-collect" --alloc -o a.raw "$SAMPLES/allocs" exact
	[ "$status" -eq 0 ]
	grep -q "$dest/opt/zt/lib/zt/libzt-alloc.so" a.raw
	"$dest/opt/zt/bin/zt-stat" --event=alloc_space a.raw | grep -q 'exact'
	make -s -C "$ZT_TOP" uninstall PREFIX=/opt/zt DESTDIR="$dest" > /dev/null
	[ -z "$(find "$dest" -type f)" ]
}
