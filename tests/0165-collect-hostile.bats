#!/usr/bin/env bats
# What the profiled program controls cannot harm or forge the dump: it may
# close zt's descriptors and reuse their numbers, plant files at the
# temporary names, fill the disk, chroot, block every signal, and give its
# threads and paths any bytes. (Issue 9: each class has a test here.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Samples in a dump: the summary's count, and the sum of the sample lines.
summary_samples() { sed -n 's/^samples \([0-9][0-9]*\)$/\1/p' "$1"; }
line_samples() {
	awk '/^samples$/ { s = 1; next } /^(maps( @[0-9]+)?|buildids|threads|summary|end)$/ { s = 0 }
		s && NF >= 3 { n += $2 } END { print n + 0 }' "$1"
}

# A tmpfs of $1 bytes at ./small, or skip when mounting is not allowed here.
small_disk() {
	mkdir -p small
	mount -t tmpfs -o size="$1" tmpfs small 2>/dev/null || skip "cannot mount a tmpfs (not root?)"
}

teardown() {
	if mountpoint -q "$BATS_TEST_TMPDIR/small" 2>/dev/null; then
		umount "$BATS_TEST_TMPDIR/small"
	fi
}

@test "a daemon that close()s every descriptor keeps its log to itself and is still sampled" {
	zt-collect -o d.raw "$SAMPLES/daemon" log close 2> d.err
	cat d.err
	[ "$(cat log)" = "$(printf 'daemon log\ndaemon log\ndaemon log')" ]
	grep -qx end d.raw
	# Sampled on its CPU time after the close loop (about 0.2 CPU-s).
	read -r user sys < <(rusage_of d.err)
	near "$(summary_samples d.raw)" "$(awk -v u="$user" 'BEGIN { print u * 997 }')" 10
	[ "$(line_samples d.raw)" = "$(summary_samples d.raw)" ]
}

@test "close_range(3, ~0) through libc spares zt's descriptors too" {
	zt-collect -o d.raw "$SAMPLES/daemon" log range 2> d.err
	cat d.err
	[ "$(cat log)" = "$(printf 'daemon log\ndaemon log\ndaemon log')" ]
	read -r user sys < <(rusage_of d.err)
	near "$(summary_samples d.raw)" "$(awk -v u="$user" 'BEGIN { print u * 997 }')" 10
}

@test "a raw close_range and the log dup'd onto zt's old numbers: nothing written into the log, the loss reported" {
	run --separate-stderr zt-collect -o d.raw "$SAMPLES/daemon" log raw
	assert_success
	# Only the program's own lines: no maps, threads or summary of zt's.
	[ "$(cat log)" = "$(printf 'daemon log\ndaemon log\ndaemon log')" ]
	grep -qx end d.raw
	grep -qx 'dump-reopened 1' d.raw
	grep -qx 'timers-lost 1' d.raw
	[[ $stderr == *"closed the sampling counters of 1 threads"* ]]
	[[ $stderr == *"zt reopened its file and lost nothing"* ]]
}

@test "a symlink planted at the temporary name is not written through" {
	echo precious > target
	# The program's pid is the shell's ($$ survives exec): plant a link at
	# exactly the temporary name the collector will use, OUT.tmp.PID.
	run sh -c 'ln -s target "x.raw.tmp.$$" && exec env LD_PRELOAD="$1" ZT_OUT="$PWD/x.raw" \
		ZT_PID="$$" ZT_HZ=997 "$2" 20' sh "$ZT_TOP/collect/libzt-prof.so" "$SAMPLES/spin"
	assert_success
	[ "$(cat target)" = precious ]
	[ -L x.raw.tmp.* ]
	[ ! -e x.raw ]
}

@test "a full disk: the dump is not published, and zt-collect says why and how many samples were lost" {
	small_disk 65536
	run --separate-stderr zt-collect -o small/x.raw "$SAMPLES/manymaps"
	[ "$status" -eq 0 ]	# the program's
	[[ $stderr == *"cannot write the dump '$PWD/small/x.raw.tmp."*"': No space left on device: no dump was written, "*" samples lost"* ]]
	[[ $stderr != *"SIGKILL"* ]]
	[ ! -e small/x.raw ]
	[ -z "$(ls small)" ]
}

@test "-z on a disk that fits the dump but not its compressed copy keeps the whole dump uncompressed" {
	zt-collect -o big.raw "$SAMPLES/manymaps" 2>/dev/null
	size=$(stat -c %s big.raw)
	# Room for the dump and a page to spare, and for the 5 pages of its one
	# thread's buffer in x.raw.tmp.PID.bufs (collect/spill.h: 64 bytes and
	# 16 KiB, reserved, and held while the process lives), not for the gzip
	# copy as well.
	small_disk $(( (size / 4096 + 2 + 5) * 4096 ))
	run --separate-stderr zt-collect -z -o small/x.raw "$SAMPLES/manymaps"
	assert_success
	[[ $stderr == *"cannot compress '$PWD/small/x.raw': No space left on device: the dump was kept uncompressed"* ]]
	grep -qx end small/x.raw
	run zt-symbolize small/x.raw
	assert_success
}

@test "a program that chroots still gets its dump, named" {
	mkdir jail
	cat > c.c <<'C'
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void after_chroot(void)
{
	for (unsigned long i = 0; i < 300000000; i++)
		sink += i;
}
int main(void)
{
	if (chroot("jail") != 0 || chdir("/") != 0)
		return 3;
	after_chroot();
	return 0;
}
C
	cc -O0 -fno-omit-frame-pointer -o c c.c
	run zt-collect -o c.raw ./c
	assert_success
	grep -qx end c.raw
	zt-symbolize c.raw | zt-fold > c.folded
	grep -q ';main;after_chroot ' c.folded
}

@test "a program that blocks every signal everywhere is still sampled, and sees them blocked" {
	cat > b.c <<'C'
#include <signal.h>
#include <stdio.h>
static volatile unsigned long sink;
int main(void)
{
	sigset_t s, cur;

	sigfillset(&s);
	sigprocmask(SIG_BLOCK, &s, 0);
	for (unsigned long i = 0; i < 200000000; i++)
		sink += i;
	sigprocmask(SIG_BLOCK, 0, &cur);
	puts(sigismember(&cur, SIGPROF) == 1 && sigismember(&cur, SIGRTMAX) == 1 &&
	     sigismember(&cur, SIGRTMIN) == 1 ? "blocked" : "not blocked");
	return 0;
}
C
	cc -O0 -o b b.c
	run --separate-stderr zt-collect -o b.raw ./b
	assert_success
	assert_output blocked
	! grep -q '^sigprof-blocked' b.raw
	[ "$(summary_samples b.raw)" -ge 100 ]
}

@test "an output name too long for the temporary names is refused before the program runs" {
	name=$(printf 'n%.0s' $(seq 250))
	run --separate-stderr zt-collect -o "$name" sh -c 'echo ran > ran'
	[ "$status" -eq 2 ]
	[[ $stderr == *"is too long: at most "*" bytes"* ]]
	[ ! -e ran ]
}

@test "a thread name cannot forge samples, and control characters never reach the output raw" {
	cat > t.c <<'C'
#include <sys/prctl.h>
static volatile unsigned long sink;
__attribute__((noinline)) void spin_here(void)
{
	for (unsigned long i = 0; i < 200000000; i++)
		sink += i;
}
int main(void)
{
	prctl(PR_SET_NAME, "\nsamples\n1 99 1", 0, 0, 0);
	spin_here();
	prctl(PR_SET_NAME, "\033[2J;x\a", 0, 0, 0);
	spin_here();
	return 0;
}
C
	cc -O0 -fno-omit-frame-pointer -o t t.c
	zt-collect -o t.raw ./t 2>/dev/null
	n=$(summary_samples t.raw)
	[ "$(line_samples t.raw)" = "$n" ]
	# The name is escaped in the dump, and zt-symbolize writes it escaped.
	grep -q '\\033\[2J;x\\007' t.raw
	zt-symbolize t.raw > t.sym
	! grep -q $'\033' t.sym
	! grep -q $'\a' t.sym
	grep -q '^\\033\[2J\\073x\\007 ' t.sym
	zt-fold t.sym > t.folded
	[ "$(awk '{ s += $NF } END { print s }' t.folded)" = "$n" ]
	grep -q ';main;spin_here ' t.folded
}

@test "a program run from a path with newlines, spaces and parentheses folds to its functions" {
	dir=$'a b (c)\nd'
	mkdir "$dir"
	cp "$SAMPLES/spin" "$dir/spin"
	zt-collect -o p.raw "./$dir/spin" 60 >/dev/null 2>&1
	n=$(summary_samples p.raw)
	[ "$(line_samples p.raw)" = "$n" ]
	grep -q '^exe .*a b (c)\\012d/spin$' p.raw
	zt-symbolize p.raw > p.sym
	zt-fold p.sym > p.folded
	[ "$(awk '{ s += $NF } END { print s }' p.folded)" = "$n" ]
	# Named functions, not offsets into an unparsed module.
	grep -q ';main;work;hot_a ' p.folded
	! grep -q '+0x' p.folded
	grep -q '(/.*a\\040b\\040\\050c\\051\\012d/spin)$' p.sym
}

@test "a path from a dump with terminal escapes is quoted escaped in messages" {
	printf 'zt-prof 3\nsamples\n7 1 401136\nmaps\n00400000-00402000 r-xp 00000000 08:01 42   /tmp/no\\033[2Jsuch\nend\n' > e.raw
	run --separate-stderr zt-symbolize e.raw
	assert_success
	[[ $stderr == *'/tmp/no\033[2Jsuch'* ]]
	[[ $stderr != *$'\033'* ]]
	[[ $output != *$'\033'* ]]
}

@test "a program that clears its environment, then forks under -f: the child is profiled, not crashed" {
	cat > ce.c <<'C'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile unsigned long sink;
int main(void)
{
	int status;
	pid_t p;

	clearenv();
	p = fork();
	if (p == 0) {
		for (unsigned long i = 0; i < 100000000; i++)
			sink += i;
		_exit(7);
	}
	waitpid(p, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}
C
	cc -O0 -o ce ce.c
	run zt-collect -f -o ce.raw ./ce
	[ "$status" -eq 7 ]
	ls ce.raw.[0-9]* > kids
	[ "$(wc -l < kids)" -eq 1 ]
	grep -qx end "$(cat kids)"
}
