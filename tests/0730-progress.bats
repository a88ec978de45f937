#!/usr/bin/env bats
# Long work shows progress on a terminal, and never anywhere else
# (lib/progress.h): what was read, and for a raw dump how many distinct
# addresses are resolved, one line redrawn in place and cleared at the end.
# ZT_PROGRESS_MS=0 redraws at every report, so that small inputs show it;
# `script` gives the tool a pseudo-terminal as its stderr.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	zt-collect -o spin.raw "$SAMPLES/spin" 20 2>/dev/null
	zt-symbolize spin.raw > spin.sym
	zt-fold spin.sym > spin.folded
	cp "$DATA/perf-script/perf-js-stacks-01.txt" js.txt
}

setup() {
	cd "$BATS_FILE_TMPDIR"
	export ZT_PROGRESS_MS=0
}

# on_tty CMD: run CMD (a shell line) with a pseudo-terminal as its stderr and
# stdout to out; what reached the terminal, CRs as they are, in tty.
on_tty() {
	script -q -e -c "$1 > out" tty.raw > /dev/null
	# The typescript's first and last lines are script's own.
	sed -e '1d' -e '/^Script done/d' tty.raw > tty
}

# The last bytes of tty, a newline script adds left out, as od -c writes them.
tty_ends() { printf '%s' "$(cat tty)" | tail -c "$1" | od -An -c | tr -d ' \n'; }

@test "on a terminal zt-symbolize shows the dump read and its distinct addresses resolved" {
	on_tty "zt-symbolize spin.raw"
	cmp out spin.sym
	grep -q "zt-symbolize: 'spin.raw': 0 MiB read" tty
	grep -Eq "zt-symbolize: 0 of [1-9][0-9]* distinct addresses located" tty
	grep -Eq "zt-symbolize: 0 of [1-9][0-9]* distinct addresses resolved" tty
	# Each report starts the line again; the last one is cleared.
	[ "$(head -c 1 tty | od -An -c | tr -d ' \n')" = '\r' ]
	[ "$(tty_ends 4)" = '\r033[K' ]
}

@test "on a terminal zt-stat, zt-fold, zt-flame, zt-pprof and zt-diff --report show what they read" {
	for cmd in "zt-stat js.txt" "zt-fold js.txt" "zt-flame js.txt" "zt-pprof -o p.pb.gz spin.raw" \
		   "zt-diff --report spin.folded js.txt" "zt-stat spin.raw" "zt-fold spin.raw"; do
		on_tty "$cmd"
		tool=${cmd%% *}
		file=${cmd##* }
		echo "$cmd"
		cat -v tty
		grep -q "$tool: '$file': 0 MiB read" tty
		[ "$(tty_ends 4)" = '\r033[K' ]
	done
	on_tty "zt-stat spin.raw"
	grep -Eq "zt-stat: 0 of [1-9][0-9]* distinct addresses resolved" tty
}

@test "a message on a terminal gets a line of its own, the progress line cleared first" {
	sed "s|$SAMPLES/spin|$PWD/gone|" spin.raw > gone.raw
	on_tty "zt-symbolize gone.raw"
	# The warning follows a clear, not the progress text.
	tr '\r' '\n' < tty | grep -q "^"$'\033'"\[Kzt-symbolize: '$PWD/gone': cannot open"
}

@test "stderr a pipe or a file gets no progress bytes, and the output is the same" {
	for cmd in "zt-symbolize spin.raw" "zt-stat js.txt" "zt-fold js.txt" "zt-flame js.txt" \
		   "zt-stat spin.raw" "zt-diff --report spin.folded js.txt"; do
		$cmd > with 2> err
		[ "$(grep -c 'MiB read\|distinct addresses' err)" = 0 ]
		[ "$(tr -cd '\r' < err | wc -c)" = 0 ]
		$cmd 2>&1 | cmp - with
		ZT_PROGRESS_MS= $cmd > without 2> /dev/null
		cmp with without
	done
	zt-pprof -o p.pb.gz spin.raw 2> err
	[ "$(tr -cd '\r' < err | wc -c)" = 0 ]
}
