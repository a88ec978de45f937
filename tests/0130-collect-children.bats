#!/usr/bin/env bats
# Children: unprofiled and unharmed by default; each with a dump of its own
# under --follow; exec, vfork and posix_spawn.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "by default only the launched process is profiled; its child runs unharmed" {
	run --separate-stderr zt-collect -o f.raw "$SAMPLES/forker"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'child done\nchild status 3')" ]
	[[ "$stderr" != *"Profiling timer expired"* ]]
	zt-symbolize f.raw | zt-fold > folded
	grep -q 'main;parent_work ' folded
	! grep -q 'child_work' folded
	# Nothing else was written beside the dump.
	[ "$(ls f.raw*)" = "f.raw" ]
}

@test "--follow gives each descendant its own dump, FILE.PID" {
	run --separate-stderr zt-collect -f -o f.raw "$SAMPLES/forker"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'child done\nchild status 3')" ]
	ls f.raw.[0-9]*
	[ "$(ls f.raw.[0-9]* | wc -l)" -eq 1 ]
	child=$(ls f.raw.[0-9]*)
	# The last line totals the tree and names both dumps.
	[[ "${stderr_lines[-1]}" == "zt-collect: with -f, 2 dumps: "*"; wrote '$PWD/f.raw' (forker, "*" samples), '$PWD/$child' (forker, "*" samples)" ]]
	zt-symbolize f.raw | zt-fold | grep -q 'main;parent_work '
	zt-symbolize "$child" | zt-fold > child.folded
	grep -q 'main;child_work ' child.folded
	! grep -q 'parent_work' child.folded
	grep -qx "pid ${child#f.raw.}" "$child"
}

@test "--follow profiles an exec'd child program" {
	run zt-collect -f -o f.raw "$SAMPLES/forker" exec "$SAMPLES/spin" 100
	[ "$status" -eq 0 ]
	child=$(ls f.raw.[0-9]*)
	zt-symbolize "$child" | zt-fold | grep -q 'main;work;hot_a '
}

@test "a program that execs another is profiled as the new program" {
	run zt-collect -o x.raw sh -c "exec '$SAMPLES/spin' 100"
	[ "$status" -eq 0 ]
	zt-symbolize x.raw | zt-fold | grep -q '^spin;.*main;work;hot_a '
}

@test "a program that execs a static binary is reported, not hung" {
	printf 'int main(void) { volatile unsigned long s = 0; for (unsigned long i = 0; i < 100000000; i++) s += i; return 5; }\n' > st.c
	gcc -static -o st st.c
	run --separate-stderr timeout 60 zt-collect -o x.raw sh -c 'exec ./st'
	[ "$status" -eq 5 ]
	[[ "$stderr" == *"'./st' (pid "*", exec'd by '"*"') was not profiled: it is statically linked: LD_PRELOAD cannot reach it; the dump covers the time before the exec"* ]]
	[ "$(tail -n 1 x.raw)" = "end" ]
}

@test "vfork, posix_spawn and blocking I/O work, with no new EINTR" {
	run --separate-stderr zt-collect -o b.raw "$SAMPLES/blockio"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'no EINTR\nspawned 0 0')" ]
	zt-symbolize b.raw | zt-fold | grep -q ';burner '
}

@test "a program with its own SIGPROF handler and timer keeps them: SIGPROF is not zt's, and both keep working" {
	"$SAMPLES/sigprof" > bare.out
	run --separate-stderr zt-collect -o s.raw "$SAMPLES/sigprof"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat bare.out)" ]
	[ "$output" = "ticks counted" ]
	# zt samples on a real-time signal of its own: nothing to share.
	[[ "$stderr" != *"SIGPROF itself"* ]]
	! grep -q '^program-sigprof\|^signal-taken' s.raw
	grep -qx 'signal [0-9]*' s.raw
	# zt went on sampling at its own rate after the program's timer started
	# (user time: the program's own ticks cost system time, which the perf
	# timer does not sample).
	zt-symbolize s.raw | zt-fold > folded
	n=$(awk '{ s += $NF } END { print s }' folded)
	printf '%s\n' "$stderr" > err
	user=$(sampled_user_of err s.raw)
	echo "samples $n, user $user s since sampling began"
	near "$n" "$(awk -v u="$user" 'BEGIN { print u * 997 }')" 5
}

@test "a foreign SIGPROF left at its default still kills, after the dump" {
	printf '#include <signal.h>\nvolatile unsigned long s;\nvoid burn(void) { for (unsigned long i = 0; i < 100000000; i++) s += i; }\nint main(void) { burn(); raise(SIGPROF); return 0; }\n' > kill.c
	gcc -O0 -fno-omit-frame-pointer -o kill kill.c
	status=0; ./kill || status=$?
	[ "$status" -eq 155 ]
	run zt-collect -o k.raw ./kill
	[ "$status" -eq 155 ]
	zt-symbolize k.raw | zt-fold | grep -q 'main;burn '
}

@test "where perf_event_open is refused, the POSIX fallback profiles and says so" {
	run --separate-stderr "$ZT_TOP/tests/noperf" zt-collect -o p.raw "$SAMPLES/spin" 200
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"timer posix-cpu (rate capped by the kernel tick)"* ]]
	grep -qx 'timer posix-cpu' p.raw
	zt-symbolize p.raw | zt-fold | grep -q 'main;work;hot_a '
	# --timer=perf refuses to fall back: the program runs, no dump (its status stays).
	run --separate-stderr "$ZT_TOP/tests/noperf" zt-collect --timer=perf -o q.raw "$SAMPLES/spin" 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"left no dump"* ]]
}
