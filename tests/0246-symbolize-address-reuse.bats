#!/usr/bin/env bats
# Libraries that reuse one address (issue 26, item 8): lib0..lib7 are
# opened, called and closed in turn by one thread, lib k doing k+1 units of
# the same work at the same addresses. Every sample must be charged to the
# library mapped at its address when it was taken (the dump's maps
# snapshots and sample times, formats/raw.md): inner_k's share of the
# samples in the libraries is (k+1)/36, the program's own ratio of work.
# zt-symbolize, zt-fold, zt-stat and zt-pprof wrote the text of an address
# once and reused it for the next library at that address: all of it was
# inner_0's.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	for k in 0 1 2 3 4 5 6 7; do
		cat > lib$k.c <<C
volatile unsigned long sink;
__attribute__((noinline)) void inner_$k(unsigned long n)
{
	unsigned long x = $k + 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}
void work(unsigned long units)
{
	for (unsigned long u = 0; u < units; u++)
		inner_$k(1000000);
}
C
		gcc -O1 -fno-omit-frame-pointer -shared -fPIC -o lib$k.so lib$k.c
	done
	cat > reuse.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	unsigned long rounds = strtoul(argv[1], 0, 10);
	char path[4096];
	for (unsigned long r = 0; r < rounds; r++)
		for (int k = 0; k < 8; k++) {
			void (*work)(unsigned long);
			void *h;
			snprintf(path, sizeof path, "%s/lib%d.so", argv[2], k);
			if (!(h = dlopen(path, RTLD_NOW)))
				return 1;
			*(void **)&work = dlsym(h, "work");
			work((unsigned long)(k + 1) * 2);
			dlclose(h);
		}
	return 0;
}
C
	gcc -O1 -fno-omit-frame-pointer -o reuse reuse.c -ldl
	zt-collect -o reuse.raw ./reuse 40 "$PWD" 2> collect.err || { cat collect.err; return 1; }
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# inner_k's samples from folded stacks on stdin, then the check of each
# share against (k+1)/36: within 2 points, or 3 binomial standard
# deviations of the count where that is wider.
check_shares() {
	awk '{ if (match($1, /inner_[0-7]/)) n[substr($1, RSTART + 6, 1)] += $NF }
	     END {
		for (k = 0; k < 8; k++) t += n[k]
		bad = 0
		for (k = 0; k < 8; k++) {
			p = (k + 1) / 36; got = t ? 100 * n[k] / t : 0
			tol = 300 * sqrt(p * (1 - p) / (t ? t : 1)); if (tol < 2) tol = 2
			printf "inner_%d: %d samples, %.1f%% (want %.1f%% +- %.1f)\n", k, n[k], got, 100 * p, tol
			if (got - 100 * p > tol || 100 * p - got > tol) bad = 1
		}
		printf "in the libraries: %d samples\n", t
		exit bad || t < 1000
	     }'
}

@test "the eight libraries were mapped at one address in turn (the dump's maps)" {
	run awk '$NF ~ /\/lib[0-7]\.so$/ && $2 ~ /x/ { sub(/.*\//, "", $NF); print $1, $NF }' reuse.raw
	starts=$(printf '%s\n' "$output" | awk '{ print $1 }' | sort -u | wc -l)
	libs=$(printf '%s\n' "$output" | awk '{ print $2 }' | sort -u | wc -l)
	echo "code mappings of the libraries: $libs libraries at $starts distinct ranges"
	[ "$libs" = 8 ]
	[ "$starts" = 1 ]
}

@test "zt-fold charges each sample to the library mapped at its time: shares as the work" {
	zt-fold reuse.raw | check_shares
}

@test "zt-symbolize, then zt-fold, gives the same shares" {
	zt-symbolize reuse.raw | zt-fold | check_shares
}

@test "zt-stat and zt-pprof (read by go tool pprof) give the same counts as zt-fold" {
	want=$(zt-fold reuse.raw | awk '{ if (match($1, /inner_[0-7]$/)) n[substr($1, RSTART, 7)] += $NF }
		END { for (k in n) print k, n[k] }' | sort)
	got=$(zt-stat reuse.raw | awk '$NF ~ /^inner_[0-7]$/ { print $NF, $1 }' | sort)
	echo "zt-fold: $want"
	echo "zt-stat: $got"
	[ "$got" = "$want" ]
	command -v go > /dev/null || skip "go is not installed (go tool pprof reads zt-pprof's file)"
	zt-pprof -o reuse.pb.gz reuse.raw
	got=$(go tool pprof -top -nodecount=100 -sample_index=0 reuse.pb.gz 2> /dev/null |
		awk '$NF ~ /^inner_[0-7]$/ { print $NF, $1 }' | sort)
	echo "zt-pprof: $got"
	[ "$got" = "$want" ]
}
