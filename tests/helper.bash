# helper.bash — loaded by every bats file: assertions, PATH to the built
# tools, and the shared data directory.
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

ZT_TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export PATH="$ZT_TOP/tools:$ZT_TOP/collect:$PATH"
# ../shared beside the checkout holds third-party inputs (DESIGN.md).
DATA=$(cd "$ZT_TOP/../shared/data" 2>/dev/null && pwd)
SAMPLES="$ZT_TOP/samples"
FIXTURES="$ZT_TOP/tests/fixtures"
bats_require_minimum_version 1.5.0
