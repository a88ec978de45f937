#!/usr/bin/env bats
# Libraries loaded and unloaded during the run, build-ids read from memory,
# and gzip dumps.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The build-id of an ELF file, as readelf prints it.
buildid() {
	readelf -n "$1" | sed -n 's/^ *Build ID: //p'
}

@test "a library opened with dlopen and closed before exit still has its frames named" {
	run --separate-stderr zt-collect -o d.raw "$SAMPLES/dlopener"
	[ "$status" -eq 0 ]
	[ "$output" = "done" ]
	# Its mapping is kept from before dlclose.
	grep -q "$SAMPLES/libplugin.so$" d.raw
	zt-symbolize d.raw | zt-fold > folded
	grep -q 'main;plugin_work ' folded
	grep -q 'main;main_work ' folded
	! grep -q 'libplugin.so\]' folded
}

@test "the dump carries the build-id of every mapped ELF file, as readelf reads it" {
	zt-collect -o d.raw "$SAMPLES/dlopener" > /dev/null
	libc=$(sed -n 's|^[0-9a-f]*-[0-9a-f]* r-xp .* \(/.*libc\.so\.6\)$|\1|p' d.raw | head -n 1)
	[ -n "$libc" ]
	for f in "$SAMPLES/dlopener" "$SAMPLES/libplugin.so" "$libc"; do
		id=$(buildid "$f")
		[ -n "$id" ]
		# "ADDR @NS ID PATH" (version 4)
		ID=$id awk '$3 == ENVIRON["ID"] { found = 1 } END { exit !found }' \
			<(sed -n '/^buildids$/,/^threads$/p' d.raw)
	done
}

@test "-z writes a gzip dump that every filter reads" {
	run zt-collect -z -o s.raw "$SAMPLES/spin" 100
	[ "$status" -eq 0 ]
	[ "$(head -c 2 s.raw | od -An -tx1 | tr -d ' ')" = "1f8b" ]
	[ "$(zcat s.raw | tail -n 1)" = "end" ]
	zt-symbolize s.raw | zt-fold | grep -q 'main;work;hot_a '
	zcat s.raw > plain.raw
	zt-symbolize plain.raw | cmp - <(zt-symbolize s.raw)
}

@test "an output name ending in .gz is compressed" {
	run zt-collect -o s.raw.gz "$SAMPLES/spin" 100
	[ "$status" -eq 0 ]
	gzip -t s.raw.gz
	zt-symbolize s.raw.gz | zt-fold | grep -q 'main;work;hot_a '
}

@test "a gzip dump is written even when the program dies of a signal" {
	zt-collect -z -o f.raw "$SAMPLES/forever" > out 2> err &
	pid=$!
	for i in $(seq 50); do grep -q started out && break; sleep 0.1; done
	sleep 0.2	# some CPU time, so that the dump holds samples
	pkill -TERM -P "$pid" -x forever
	status=0; wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	gzip -t f.raw
	zt-symbolize f.raw | zt-fold | grep -q 'main;loop_forever '
}
