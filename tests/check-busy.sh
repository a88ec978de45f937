#!/bin/sh
# check-busy.sh — the whole suite (tests/check.sh) with 4 CPU hogs running
# beside it, on a machine of 2 cores: a user's machine is often busy, and a
# test that judges a rate or a count must judge it against the CPU time the
# program really got. The hogs run at the suite's own priority, are started
# here and always ended here; the closing line is check.sh's.
cd "$(dirname "$0")/.." || exit 1
hogs=
trap 'kill $hogs 2>/dev/null; wait 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
for i in 1 2 3 4; do
	# A plain loop (no fork, no output) in a shell of its own.
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
echo "check-busy: 4 CPU hogs beside the suite (pids$hogs)"
sh tests/check.sh
