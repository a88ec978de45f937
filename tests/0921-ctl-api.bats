#!/usr/bin/env bats
# zt-ctl's errors and usage, the C API of collect/zt.h (zt_start, zt_stop,
# zt_snapshot) with and without zt, and what a program that asks for no
# control pays: nothing (issue 20, item 6).

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p s
	# The socket's directory is then /tmp/zt-UID.
	unset XDG_RUNTIME_DIR
	me=$(id -u)
	sdir=$BATS_TEST_TMPDIR/s
}

# A test that failed halfway leaves no daemon behind: it is told to end,
# then killed.
teardown() {
	[ -d "$sdir" ] || return 0
	touch "$sdir/go" "$sdir/stop" "$sdir/end"
	if [ -s "$sdir/pid" ]; then
		sleep 0.2
		kill "$(cat "$sdir/pid")" 2> /dev/null || true
	fi
	if [ "$sdir" != "$BATS_TEST_TMPDIR/s" ]; then
		rm -rf "${sdir%/s}"
	fi
}

wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ "$i" -lt 400 ] || { echo "no '$1' after 20 s" >&2; return 1; }
		sleep 0.05
	done
}

@test "a program built with zt.h runs without zt, each call returning -1" {
	run "$SAMPLES/windowapi"
	assert_success
	assert_output "zt_stop -1 zt_start -1 zt_snapshot -1 zt_stop -1"
	# Nothing of zt's is linked in.
	! readelf -d "$SAMPLES/windowapi" | grep -q 'zt'
}

@test "under zt-collect the API marks the window and writes a snapshot" {
	run --separate-stderr zt-collect -o a.raw "$SAMPLES/windowapi"
	echo "$stderr"
	assert_success
	assert_output "zt_stop 0 zt_start 0 zt_snapshot 1 zt_stop 0"
	for f in a.raw.1 a.raw; do
		tail -1 "$f" | grep -qx end
		zt-fold "$f" > "$f.folded"
		cat "$f.folded"
		grep -q ';window_work ' "$f.folded"
		! grep -q 'before_work\|after_work' "$f.folded"
	done
	grep -qx 'snapshot 1' a.raw.1
	grep -qx 'snapshots 1' a.raw
	[[ "$stderr" == *"sampling windows: 1 in '$BATS_TEST_TMPDIR/a.raw'"* ]]
}

@test "the API works in a program built without -fPIE too (found by dlsym)" {
	cc -O0 -g -no-pie -fno-pie -I"$ZT_TOP/collect" -o api "$SAMPLES/windowapi.c"
	run ./api
	assert_output "zt_stop -1 zt_start -1 zt_snapshot -1 zt_stop -1"
	run --separate-stderr zt-collect -o b.raw ./api
	assert_success
	assert_output "zt_stop 0 zt_start 0 zt_snapshot 1 zt_stop 0"
	zt-fold b.raw > b.folded
	grep -q ';window_work ' b.folded
	! grep -q 'before_work\|after_work' b.folded
}

@test "zt-ctl on a process without zt says so and exits 1" {
	sleep 30 &
	pid=$!
	run -1 --separate-stderr zt-ctl "$pid" start
	kill "$pid"
	assert_output ''
	[[ "$stderr" == "zt-ctl: pid $pid: no zt control channel (the process is not sampled by zt, or was started without 'zt-collect --paused' or --control): no '/tmp/zt-$me/$pid.sock'" ]]
}

@test "zt-ctl on a process that does not exist says so and exits 1" {
	run -1 --separate-stderr zt-ctl 4194303 snapshot
	[ "$stderr" = "zt-ctl: pid 4194303: no such process" ]
}

@test "zt-ctl usage errors exit 2 with the usage" {
	run -2 --separate-stderr zt-ctl
	[[ "$stderr" == *"zt-ctl: a PID and a request are needed"*"usage: zt-ctl PID start|stop|snapshot"* ]]
	run -2 --separate-stderr zt-ctl 12 pause
	[[ "$stderr" == *"zt-ctl: 'pause' is not start, stop or snapshot"* ]]
	run -2 --separate-stderr zt-ctl x12 start
	[[ "$stderr" == *"zt-ctl: 'x12' is not a process id"* ]]
	run -2 --separate-stderr zt-ctl 0 start
	[[ "$stderr" == *"zt-ctl: '0' is not a process id"* ]]
	run -2 --separate-stderr zt-ctl 12 start extra
	[[ "$stderr" == *"zt-ctl: too many arguments"* ]]
	run -2 --separate-stderr zt-ctl --bogus
	run -0 zt-ctl --help
	assert_output --partial "usage: zt-ctl PID start|stop|snapshot"
}

@test "a program that asks for no control pays nothing: no thread, no descriptor, no socket" {
	zt-collect -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	# main and its sleeper thread only; no socket among its descriptors.
	[ "$(ls /proc/$pid/task | wc -l)" -eq 2 ]
	! ls -l /proc/$pid/fd | grep -q socket
	[ ! -e "/tmp/zt-$me/$pid.sock" ]
	run -1 zt-ctl "$pid" start
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	! grep -q '^windows' w.raw
}

@test "with --control the channel is one more thread, named, and one socket" {
	zt-collect --control -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	[ "$(ls /proc/$pid/task | wc -l)" -eq 3 ]
	grep -qx zt-control /proc/$pid/task/*/comm
	[ "$(ls -l /proc/$pid/fd | grep -c socket)" -eq 1 ]
	[ -S "/tmp/zt-$me/$pid.sock" ]
	[ "$(stat -c %a /tmp/zt-$me)" = 700 ]
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	[ ! -e "/tmp/zt-$me/$pid.sock" ]
	grep -qx 'windows 1' w.raw
	# Sampling was on from the start: both kinds of work.
	zt-fold w.raw | grep -q ';outside_work '
}

@test "make install puts zt.h in PREFIX/include, zt-ctl in bin, its page in man1" {
	dest="$BATS_TEST_TMPDIR/root"
	make -s -C "$ZT_TOP" install PREFIX=/opt/zt DESTDIR="$dest" > /dev/null
	[ -f "$dest/opt/zt/include/zt.h" ]
	[ -x "$dest/opt/zt/bin/zt-ctl" ]
	[ -f "$dest/opt/zt/share/man/man1/zt-ctl.1" ]
	cc -O0 -I"$dest/opt/zt/include" -o api "$SAMPLES/windowapi.c"
	run ./api
	assert_output "zt_stop -1 zt_start -1 zt_snapshot -1 zt_stop -1"
	make -s -C "$ZT_TOP" uninstall PREFIX=/opt/zt DESTDIR="$dest" > /dev/null
	[ -z "$(find "$dest" -type f)" ]
}

@test "the channel lives under \$XDG_RUNTIME_DIR/zt, and not in one open to others" {
	mkdir -m 700 xdg
	export XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/xdg
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	[ -S "xdg/zt/$pid.sock" ]
	[ "$(stat -c %a xdg/zt)" = 700 ]
	run zt-ctl "$pid" start
	assert_success
	assert_output "sampling on"
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
	grep -qx 'windows 1' w.raw
	# A zt directory that others may enter is not used: /tmp/zt-UID is.
	rm -rf xdg/zt s/*
	mkdir -m 755 xdg/zt
	zt-collect --paused -o w.raw "$SAMPLES/windows" s > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	[ ! -e "xdg/zt/$pid.sock" ]
	[ -S "/tmp/zt-$me/$pid.sock" ]
	run zt-ctl "$pid" start
	assert_success
	touch s/go s/stop s/end
	st=0
	wait "$zc" || st=$?
	[ "$st" -eq 3 ]
}

@test "a seccomp filter the program installs ends the channel first, and the program is unharmed" {
	cat > sc.c <<'C'
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	/* getsockopt, which the channel's thread makes for each client, kills
	 * the process; the filter applies to every thread (TSYNC). */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof f / sizeof f[0], f };
	struct stat st;
	FILE *o = fopen("s/pid.tmp", "w");

	fprintf(o, "%d\n", (int)getpid());
	fclose(o);
	rename("s/pid.tmp", "s/pid");
	while (stat("s/go", &st) != 0)
		usleep(10000);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &p)) {
		perror("seccomp");
		return 1;
	}
	o = fopen("s/in.tmp", "w");
	fclose(o);
	rename("s/in.tmp", "s/in");
	while (stat("s/end", &st) != 0)
		usleep(10000);
	puts("sandboxed");
	return 3;
}
C
	cc -O1 -o sc sc.c
	zt-collect --control -o w.raw ./sc > out 2> err &
	zc=$!
	wait_for s/pid
	pid=$(cat s/pid)
	run zt-ctl "$pid" stop
	assert_success
	touch s/go
	wait_for s/in
	run -1 --separate-stderr zt-ctl "$pid" start
	echo "$stderr"
	[[ "$stderr" == "zt-ctl: pid $pid: no zt control channel"* ]]
	touch s/end
	st=0
	wait "$zc" || st=$?
	cat err
	[ "$st" -eq 3 ]
	[ "$(cat out)" = sandboxed ]
	grep -qx end w.raw
}
