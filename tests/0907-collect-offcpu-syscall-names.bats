#!/usr/bin/env bats
# --clock=wall names the system call a thread waits in by the kernel's name
# for its number on the architecture (collect/syscalls.h, generated from the
# kernel's headers), not as `syscall N`, for calls beyond those zt describes
# further (descriptors, fds): here msgsnd(2) blocked on a full System V
# message queue, x86-64's call 69 (asm/unistd_64.h), which zt showed as
# [syscall 69]. truncate(2) was [syscall 76] the same way.

load helper

OFFCPU="python3 $ZT_TOP/tests/offcpu.py"

setup() {
	cd "$BATS_TEST_TMPDIR"
	cat > msgwait.c <<'C'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <unistd.h>
static int q;
static struct { long type; char text[1024]; } m = { 1, "x" };
static void *sender(void *arg)
{
	(void)arg;
	/* Blocks: the queue is full, until main removes it. */
	if (msgsnd(q, &m, sizeof m.text, 0) == 0 || errno != EIDRM)
		printf("msgsnd: %s\n", strerror(errno));
	return NULL;
}
int main(void)
{
	pthread_t t;
	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0)
		return 1;
	while (msgsnd(q, &m, sizeof m.text, IPC_NOWAIT) == 0)
		;
	pthread_create(&t, NULL, sender, NULL);
	sleep(1);
	msgctl(q, IPC_RMID, NULL);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
C
	gcc -O1 -pthread -o msgwait msgwait.c
}

@test "a thread blocked in msgsnd waits in [msgsnd], the kernel's name for its number" {
	[ "$(uname -m)" = x86_64 ] || skip "the number is x86-64's"
	nr=$(awk '$2 == "__NR_msgsnd" { print $3 }' /usr/include/x86_64-linux-gnu/asm/unistd_64.h)
	echo "the kernel's header: msgsnd is $nr"
	[ -n "$nr" ]
	run zt-collect --clock=wall -o m.raw ./msgwait
	echo "$output"
	assert_success
	assert_line done
	run $OFFCPU waits m.raw
	echo "$output"
	ns=$(echo "$output" | awk '$2 == "msgsnd" { s += $3 } END { print s + 0 }')
	echo "ns waited in msgsnd: $ns"
	[ "$ns" -ge 800000000 ]
	# No wait named by its number.
	run grep -c "!syscall" m.raw
	[ "$output" = 0 ]
}
