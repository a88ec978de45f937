#!/usr/bin/env bats
# zt's own work on the program's threads is one frame, [zt] (formats/folded.md,
# "zt's own work"; zt-symbolize(1)): never internal names such as
# zt_snap_take. The collector writes its own extent into the dump (zt-code,
# zt-handover: formats/raw.md), and the readers cut each stack there. The
# rules are checked on stacks made from a real run's maps with the addresses
# of known functions (the same on every run and under any load); a live
# dlopen/dlclose storm then shows the same in every tool, and a program's own
# library named libzt-prof.so is not taken for zt's.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	mkdir -p fake
	# A library of the program's that happens to share zt's file name, and
	# the prefix of zt's function names.
	cat > fake.c <<'C'
#include <time.h>
static volatile unsigned long sink;
static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) void zt_fake_work(double s)
{
	double t0 = cpu();

	while (cpu() - t0 < s)
		for (int i = 0; i < 1000; i++)
			sink += i;
}
C
	cc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -shared -fPIC \
		-o fake/libzt-prof.so fake.c
	# prog SECONDS: SECONDS of CPU time in work, then as much in the fake
	# library's zt_fake_work; routine is a thread's start routine.
	cat > prog.c <<'C'
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) void work(double s)
{
	double t0 = cpu();

	while (cpu() - t0 < s)
		for (int i = 0; i < 1000; i++)
			sink += i;
}
__attribute__((noinline)) void *routine(void *arg)
{
	work(0.001);
	return arg;
}
int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.1;
	char path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", path, PATH_MAX);
	void (*fake)(double);
	pthread_t th;
	void *h;

	if (n <= 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "fake/libzt-prof.so");
	if (!(h = dlopen(path, RTLD_NOW)) || !(*(void **)&fake = dlsym(h, "zt_fake_work"))) {
		fprintf(stderr, "prog: %s\n", dlerror());
		return 1;
	}
	pthread_create(&th, NULL, routine, NULL);
	pthread_join(th, NULL);
	work(s);
	fake(s);
	return 0;
}
C
	cc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o prog prog.c -ldl -lpthread
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# addr FILE SYMBOL [EXTRA]: SYMBOL's address in FILE's mapping of dump d.raw,
# plus EXTRA bytes (4 if not given): inside the function, as a pc or a return
# address is. FILE is matched by its path's end.
addr() {
	local file=$1 sym=$2 extra=${3:-4} base value
	base=$(awk -v f="$file" 'BEGIN { if (substr(f, 1, 1) != "/") f = "/" f }
		$3 == "00000000" && substr($NF, length($NF) - length(f) + 1) == f { print $1; exit }' d.raw)
	base=${base%%-*}
	case $file in
	libzt-prof.so) value=$(nm "$ZT_TOP/collect/libzt-prof.so") ;;
	libc.so.6) value=$(nm -D "$(awk '$NF ~ /\/libc\.so\.6$/ { print $NF; exit }' d.raw)") ;;
	*) value=$(nm "$file") ;;
	esac
	value=$(printf '%s\n' "$value" |
		awk -v s="$sym" '($3 == s || index($3, s "@") == 1) && $2 ~ /^[TtWi]$/ { print $1; exit }')
	[ -n "$base" ] && [ -n "$value" ] || { echo "no address for $file $sym (base '$base', value '$value')" >&2; return 1; }
	printf '%x\n' $(( 0x$base + 0x$value + extra ))
}

# The dump of a short run of prog, whose header, maps and end the made
# stacks below use.
real_dump() {
	[ -f d.raw ] && return 0
	zt-collect -o d.raw ./prog 0.02 > /dev/null 2> d.err || { cat d.err; return 1; }
	grep -q '^zt-code [0-9a-f]*-[0-9a-f]*$' d.raw
	grep -q '^zt-handover [0-9a-f]*-[0-9a-f]*$' d.raw
}

# made.raw: d.raw with its samples replaced by the stacks on stdin, one a
# line, "TID ADDR..." leaf first (the first an exact pc), each counted once.
made_dump() {
	awk 'NR == FNR { add[++n] = $0; next }
	     /^samples$/ && !done { print; for (i = 1; i <= n; i++) { split(add[i], w, " ")
		printf "%s 1", w[1]; for (j = 2; j in w; j++) printf " %s", w[j]; print ""; delete w }
		skip = 1; done = 1; next }
	     skip && /^[a-z]/ { skip = 0 }
	     !skip' - d.raw > made.raw
}

@test "zt's own work is [zt] under the program's frames; interposers and the start trampoline hand over" {
	real_dump
	pid=$(sed -n 's/^pid //p' d.raw)
	tid=$((pid + 1))
	P=prog
	main=$(addr "$P" main) work=$(addr "$P" work) routine=$(addr "$P" routine)
	stop=$(addr libzt-prof.so zt_prof_stop) end=$(addr libzt-prof.so zt_control_end)
	snap=$(addr libzt-prof.so zt_snap_take) tstart=$(addr libzt-prof.so zt_timer_start)
	wrap=$(addr libzt-prof.so dlclose) tramp=$(addr libzt-prof.so trampoline)
	foreign=$(addr libzt-prof.so zt_intercept_foreign)
	exit=$(addr libc.so.6 exit) rdlclose=$(addr libc.so.6 dlclose) memset=$(addr libc.so.6 memset)
	{
		# 1. The exit path: libc's exit runs zt's destructor, which calls libc.
		echo "$pid $memset $end $stop $exit $main"
		# 2. dlclose's wrapper in the real dlclose: the program's work.
		echo "$pid $rdlclose $wrap $work $main"
		# 3. dlclose's wrapper in zt's work after it.
		echo "$pid $snap $wrap $work $main"
		# 4. The wrapper's own code, before it calls the real function.
		echo "$pid $wrap $work $main"
		# 5. A thread's start routine, reached through zt's trampoline.
		echo "$tid $routine $tramp $memset $memset"
		# 6. zt's set-up of the thread inside the trampoline.
		echo "$tid $tstart $tramp $memset $memset"
		# 7. zt's work in an interposer the thread's routine called.
		echo "$tid $snap $wrap $routine $tramp $memset $memset"
		# 8. The program's handler, called from zt's signal handler.
		echo "$pid $work $foreign $routine $main"
	} | made_dump
	run --separate-stderr zt-fold --tid made.raw
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > made.folded
	cat made.folded
	# The libc frames' names are libc's business: any one name each. The
	# root is the thread: M the main one, T the other.
	L='[^;]+' M="prog-$pid/$pid" T="prog-$pid/$tid"
	for want in "^$M;main;$L;\[zt\] 1\$" "^$M;main;work;$L 1\$" "^$M;main;work;\[zt\] 2\$" \
		    "^$T;$L;$L;routine 1\$" "^$T;$L;$L;\[zt\] 1\$" \
		    "^$T;$L;$L;routine;\[zt\] 1\$" "^$M;main;routine;work 1\$"; do
		grep -Eq "$want" made.folded || { echo "no line matches $want"; false; }
	done
	[ "$(wc -l < made.folded)" -eq 7 ]
	# Every sample is there, and no frame of zt's has its own name.
	[ "$(awk '{ n += $NF } END { print n }' made.folded)" -eq 8 ]
	! grep -E '(^|;)(zt_[a-z_]*|trampoline|dlclose;dlclose)( |;)' made.folded
	# Case 2's leaf is the real dlclose, named by libc: no [zt] in it.
	grep -E "^$M;main;work;$L 1\$" made.folded | grep -qv '\[zt\]'
	# zt-symbolize writes the frame; every reader agrees with zt-fold.
	zt-symbolize made.raw > made.sym
	grep -q $'^\t               0 \[zt\] (\[zt\])$' made.sym
	diff made.folded <(zt-fold --tid made.sym)
	diff made.folded <(zt-symbolize --merge made.raw | zt-fold --tid)
	# zt-stat: 5 of the 8 samples are zt's own (1, 3, 4, 6, 7), in its header.
	run zt-stat made.raw
	echo "$output"
	assert_line --regexp "^zt's own work: 5 samples \(62\.5%\), shown as \[zt\]"
	run zt-stat --json made.raw
	assert_output --partial '"zt_own": 5,'
	# zt-pprof reads the same stacks.
	zt-pprof -o made.pb.gz made.raw
	zcat made.pb.gz | grep -aq '\[zt\]'
}

@test "a dump without zt-code (older collectors) is read as before: zt's frames keep their names" {
	real_dump
	pid=$(sed -n 's/^pid //p' d.raw)
	main=$(addr prog main) work=$(addr prog work)
	snap=$(addr libzt-prof.so zt_snap_take) wrap=$(addr libzt-prof.so dlclose)
	echo "$pid $snap $wrap $work $main" | made_dump
	grep -v '^zt-code \|^zt-handover ' made.raw > old.raw
	run --separate-stderr zt-fold old.raw
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$output" = "prog;main;work;dlclose;zt_snap_take 1" ]
	run zt-stat old.raw
	refute_output --partial "zt's own work"
	# A damaged key is named with its line.
	sed 's/^zt-code .*/zt-code 5000-40/' made.raw > bad.raw
	run --separate-stderr zt-fold bad.raw
	[ "$status" -eq 1 ]
	echo "$stderr"
	[[ "$stderr" == "zt-fold: 'bad.raw': line "*": zt-code wants START-END, two hex addresses, START below END" ]]
}

@test "a dlopen/dlclose storm: zt's work in dlopen and dlclose is [zt], its share in zt-stat's header; threads still reach their routine" {
	# Until the run has enough samples (bounded): zt's share of a storm is
	# a fifth or so, and at least 5 samples of it are asked for.
	for rounds in 20 60 180; do
		zt-collect -o s.raw "$SAMPLES/dlstorm" 2 "$rounds" > s.out 2> s.err || { cat s.err; false; }
		zt-fold s.raw > s.folded
		total=$(awk '{ n += $NF } END { print n + 0 }' s.folded)
		own=$(awk '$1 ~ /;\[zt\]$/ { n += $NF } END { print n + 0 }' s.folded)
		echo "rounds $rounds: $total samples, $own in [zt]"
		[ "$total" -ge 200 ] && [ "$own" -ge 5 ] && break
	done
	[ "$own" -ge 5 ]
	# No frame of zt's own under its name, in any tool.
	! grep -E '(^|;)zt_[a-z_]*( |;)' s.folded
	! zt-symbolize s.raw | grep -E ' zt_[a-z_]*\+0x'
	# [zt] is always the leaf, under the program's frames.
	! grep -E '\[zt\];' s.folded
	# The storm threads' stacks reach their routine, storm: a [zt] straight
	# under start_thread is zt's set-up of a thread (its trampoline), rare.
	thread=$(awk '$1 ~ /;start_thread;/ { n += $NF } END { print n + 0 }' s.folded)
	viaroutine=$(awk '$1 ~ /;start_thread;storm(;| )/ || $1 ~ /;start_thread;storm$/ { n += $NF } END { print n + 0 }' s.folded)
	echo "thread samples $thread, through storm $viaroutine"
	[ "$thread" -gt 0 ]
	[ $((thread - viaroutine)) -le $(( thread / 20 + 2 )) ]
	# zt-stat's header gives the same count and share.
	run zt-stat s.raw
	want=$(awk -v o="$own" -v t="$total" 'BEGIN { printf "%d samples (%.1f%%)", o, 100 * o / t }')
	echo "want: $want"
	assert_line --regexp "^zt's own work: $(printf '%s' "$want" | sed 's/[().%]/\\&/g'), shown as \[zt\]"
	# Read as an older dump, the same samples show zt's functions by name.
	grep -v '^zt-code \|^zt-handover ' s.raw > s-old.raw
	zt-fold s-old.raw > s-old.folded
	[ "$(awk '{ n += $NF } END { print n + 0 }' s-old.folded)" -eq "$total" ]
	grep -qE ';zt_[a-z_]*( |;)' s-old.folded
}

@test "a program's own library named libzt-prof.so is the program's: its zt_fake_work keeps its samples" {
	for s in 0.2 0.5 1.5; do
		zt-collect -o f.raw ./prog "$s" > /dev/null 2> f.err || { cat f.err; false; }
		zt-fold f.raw > f.folded
		fake=$(awk '$1 ~ /;zt_fake_work$/ { n += $NF } END { print n + 0 }' f.folded)
		work=$(awk '$1 ~ /;main;work$/ { n += $NF } END { print n + 0 }' f.folded)
		echo "seconds $s: zt_fake_work $fake, work $work"
		[ $((fake + work)) -ge 100 ] && break
	done
	# zt knows its library by its address, not by its name: the extent
	# the dump gives for it holds none of the fake's mappings.
	awk '/^zt-code / { split($2, r, "-"); lo = r[1]; hi = r[2] }
	     /\/fake\/libzt-prof\.so$/ { split($1, m, "-"); n++
		# Same-length lowercase hex compares as text.
		if (length(m[1]) == length(lo) && m[1] >= lo && m[1] < hi) bad++ }
	     END { printf "zt-code %s-%s, %d mappings of the fake, %d inside\n", lo, hi, n, bad
		   exit !(lo != "" && n > 0 && bad == 0) }' f.raw
	[ $((fake + work)) -ge 100 ]
	# Both spin the same CPU time: the fake's share is a half, within 4
	# standard errors of the count and 5 points.
	awk -v a="$fake" -v b="$work" 'BEGIN { n = a + b; p = a / n; tol = 4 * sqrt(0.25 / n) + 0.05
		printf "share %.3f of %d, want 0.5 +- %.3f\n", p, n, tol; exit !(p > 0.5 - tol && p < 0.5 + tol) }'
}
