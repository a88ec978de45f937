# helper.bash — loaded by every bats file: assertions, PATH to the built
# tools, and the directory of third-party test inputs.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# Tests run in the C locale wherever they are started (as git's test-lib
# does): awk, sed, grep and sort then read bytes, and sort in byte order.
export LC_ALL=C
# Nothing is fetched over the network unless a test asks for it (a user's
# DEBUGINFOD_URLS would make every symbolizing tool ask its servers).
unset DEBUGINFOD_URLS

ZT_TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export PATH="$ZT_TOP/tools:$ZT_TOP/collect:$PATH"
# Third-party inputs live in the tree (tests/data/README.md names each
# file's source, version and licence), so a clone anywhere has them.
DATA=$ZT_TOP/tests/data
SAMPLES="$ZT_TOP/samples"
bats_require_minimum_version 1.5.0

# near N WANT PCT: whether a count N is within PCT percent of WANT, plus
# three standard errors of a count of WANT (its square root): on a busy
# machine a run's samples stray from its CPU time by more than a fixed share
# allows when the run is short. Prints the values it compares.
near() {
	awk -v n="$1" -v w="$2" -v p="$3" 'BEGIN { tol = w * p / 100 + 3 * sqrt(w)
		d = n - w; if (d < 0) d = -d
		printf "count %d, expected %.1f, %.1f apart, tolerance %.1f (%s%% and 3 errors)\n",
			n, w, d, tol, p
		exit !(w > 0 && d <= tol) }'
}

# The program's CPU time as the kernel accounts it (wait4's rusage of the
# profiled process, which zt-collect prints at the end of its summary line):
# "USER SYSTEM" seconds, from zt-collect's stderr in file $1.
rusage_of() {
	sed -n 's/^zt-collect: .*; rusage: user \([0-9.]*\) s, system \([0-9.]*\) s$/\1 \2/p' "$1"
}

# The user CPU time the program ran while zt sampled it, as the kernel
# accounts it: wait4's user time (from zt-collect's stderr in file $1) less
# the user time before sampling began (the loader, constructors run before
# zt's; the dump's cpu-user-start-ns, file $2), in seconds.
sampled_user_of() {
	local user sys
	read -r user sys < <(rusage_of "$1")
	awk -v u="$user" '$1 == "cpu-user-start-ns" { s = $2 }
		END { printf "%.3f\n", u - s / 1e9 }' "$2"
}

# Whether zt was built with a sanitizer (make SANITIZE=...): the runtime
# makes system calls of its own, LeakSanitizer stops a process traced by
# strace, and AddressSanitizer keeps freed memory in quarantine, so tests
# that count zt-collect's calls or weigh a tool's memory skip then.
sanitized() {
	readelf -d "$1" 2> /dev/null | grep -q 'NEEDED.*lib\(asan\|ubsan\|tsan\|lsan\)'
}
sanitized_launcher() {
	sanitized "$ZT_TOP/collect/zt-collect"
}
