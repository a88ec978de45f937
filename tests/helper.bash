# helper.bash — loaded by every bats file: assertions, PATH to the built
# tools, and the directory of third-party test inputs.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# Tests run in the C locale wherever they are started (as git's test-lib
# does): awk, sed, grep and sort then read bytes, and sort in byte order.
export LC_ALL=C

ZT_TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export PATH="$ZT_TOP/tools:$ZT_TOP/collect:$PATH"
# Third-party inputs live in the tree (tests/data/README.md names each
# file's source, version and licence), so a clone anywhere has them.
DATA=$ZT_TOP/tests/data
SAMPLES="$ZT_TOP/samples"
bats_require_minimum_version 1.5.0

# The program's CPU time as the kernel accounts it (wait4's rusage of the
# profiled process, which zt-collect prints at the end of its summary line):
# "USER SYSTEM" seconds, from zt-collect's stderr in file $1.
rusage_of() {
	sed -n 's/^zt-collect: .*; rusage: user \([0-9.]*\) s, system \([0-9.]*\) s$/\1 \2/p' "$1"
}
