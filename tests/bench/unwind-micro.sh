#!/bin/sh
# unwind-micro.sh — time zt_unwind itself in each mode on a real stack
# (tests/bench/unwind-micro.c), built -O2 as the collector is.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -D_GNU_SOURCE -Icollect -o "$tmp/micro" tests/bench/unwind-micro.c \
	collect/cfi.c collect/unwind.c -lpthread
"$tmp/micro"
