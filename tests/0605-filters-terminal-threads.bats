#!/usr/bin/env bats
# What a user meets first with the filters: one started with no file on a
# terminal says that it is reading standard input (and nothing of the kind
# from a pipe or a file), and a thread whose name holds spaces and numbers
# (`io worker 1`) keeps its own thread id through zt-fold --tid and zt-stat
# --by=thread, where stackcollapse-perf.pl's split of the header takes the
# name's number for the id.
load helper
bats_require_minimum_version 1.5.0

NOTE="reading standard input from the terminal (name a file, or end the input with Ctrl-D)"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# on_tty COMMAND: COMMAND run with its stdin, stdout and stderr on a
# terminal (script(1)'s pseudo-terminal; the input ends at once), its output
# without the terminal's carriage returns.
on_tty() {
	timeout 20 script -q -e -c "$1" /dev/null < /dev/null | tr -d '\r'
}

@test "every filter started with no file on a terminal says it reads standard input" {
	for t in zt-fold zt-stat zt-flame zt-symbolize "zt-pprof -o p.pb.gz" "zt-archive -d arch"; do
		out=$(on_tty "$t") || true
		echo "$t: $out"
		[[ $out == "${t%% *}: $NOTE"$'\n'* ]]
	done
}

@test "a filter reading a pipe, a file or '-' says nothing of standard input" {
	for t in zt-fold zt-stat zt-flame zt-symbolize; do
		run --separate-stderr $t < /dev/null
		[[ $stderr != *"standard input"* ]]
		run --separate-stderr $t - < /dev/null
		[[ $stderr != *"standard input"* ]]
		# '-' on a terminal was asked for: no note either
		out=$(on_tty "$t -") || true
		[[ $out != *"standard input"* ]]
	done
	printf 'prog 10/12 5.000000: 1 cycles:\n\t1 f+0x1 (/x)\n\n' > x.txt
	out=$(on_tty "zt-fold x.txt")
	[ "$out" = "prog;f 1" ]
}

@test "threads named 'io worker 1' and 'io worker 22' keep their ids in zt-fold --tid and zt-stat --by=thread" {
	cat > tn.c <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
static volatile unsigned long sink;
static void *burn(void *name)
{
	pthread_setname_np(pthread_self(), name);
	for (unsigned long i = 0; i < 150000000UL; i++)
		sink += i;
	return 0;
}
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, burn, "io worker 1");
	pthread_create(&b, 0, burn, "io worker 22");
	pthread_join(a, 0);
	pthread_join(b, 0);
	return 0;
}
EOF
	gcc -O1 -g -o tn tn.c -lpthread
	zt-collect -o tn.raw ./tn 2> /dev/null
	pid=$(sed -n 's/^pid //p' tn.raw)
	t1=$(sed -n 's/^\([0-9]*\) io worker 1$/\1/p' tn.raw)
	t22=$(sed -n 's/^\([0-9]*\) io worker 22$/\1/p' tn.raw)
	[ -n "$pid" ] && [ -n "$t1" ] && [ -n "$t22" ]
	zt-symbolize tn.raw > tn.sym
	zt-fold --tid tn.sym > tid.folded
	cat tid.folded
	grep -q "^io_worker_1-$pid/$t1;[^ ]*;burn [0-9]*\$" tid.folded
	grep -q "^io_worker_22-$pid/$t22;[^ ]*;burn [0-9]*\$" tid.folded
	! grep -q -- '-?/' tid.folded
	run --separate-stderr zt-stat --by=thread tn.sym
	assert_success
	assert_line --regexp " io_worker_1-$pid/$t1\$"
	assert_line --regexp " io_worker_22-$pid/$t22\$"
	# The counts per thread are the dump's.
	for t in "$t1" "$t22"; do
		want=$(awk -v t="$t" '/^samples$/ { s = 1; next } /^[a-z]/ { s = 0 } s && $1 == t { n += $2 } END { print n + 0 }' tn.raw)
		got=$(awk -v t="$t" '{ split($1, r, ";"); if (r[1] ~ ("/" t "$")) n += $NF } END { print n + 0 }' tid.folded)
		echo "thread $t: dump $want, folded $got"
		[ "$want" -gt 0 ] && [ "$want" = "$got" ]
	done
}

@test "a perf script header whose command has ' N ' splits as stackcollapse-perf.pl's only without a CPU or time after the ids" {
	# With the time after the ids, the whole name is the command.
	printf 'io worker 1 10/12 5.000000: 1 cycles:\n\t1 f+0x1 (/x)\n\n' > a.txt
	run --separate-stderr zt-fold --tid a.txt
	assert_output "io_worker_1-10/12;f 1"
	printf 'io worker 1 12 [001] 5.000000: 1 cycles:\n\t1 f+0x1 (/x)\n\n' > b.txt
	run --separate-stderr zt-fold --tid b.txt
	assert_output "io_worker_1-?/12;f 1"
	# Without one, Perl's shortest command stays (its answer, whatever it means).
	printf 'io worker 1 10/12 cycles:\n\t1 f+0x1 (/x)\n\n' > c.txt
	run --separate-stderr zt-fold --tid c.txt
	assert_output "io_worker-?/1;f 1"
}
