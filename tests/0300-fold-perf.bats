# 0300-fold-perf.bats — zt-fold against stackcollapse-perf.pl's own output on
# seven real perf script captures (tests/data/perf-script/), for the default
# and each of --pid --tid --kernel --jit --all --addrs: 49 cases, byte for byte.
load helper
bats_require_minimum_version 1.5.0

fold_case() {
	local name=$1 opt=$2 expect
	if [ -n "$opt" ]; then
		expect="$DATA/perf-script/$name.$opt.folded"
		run --separate-stderr zt-fold "--$opt" "$DATA/perf-script/$name.txt"
	else
		expect="$DATA/perf-script/$name.folded"
		run --separate-stderr zt-fold "$DATA/perf-script/$name.txt"
	fi
	assert_success
	assert_output "$(cat "$expect")"
}

@test "fold perf-cycles-instructions-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 ""
}

@test "fold perf-cycles-instructions-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "pid"
}

@test "fold perf-cycles-instructions-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "tid"
}

@test "fold perf-cycles-instructions-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "kernel"
}

@test "fold perf-cycles-instructions-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "jit"
}

@test "fold perf-cycles-instructions-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "all"
}

@test "fold perf-cycles-instructions-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-cycles-instructions-01 "addrs"
}

@test "fold perf-dd-stacks-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 ""
}

@test "fold perf-dd-stacks-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "pid"
}

@test "fold perf-dd-stacks-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "tid"
}

@test "fold perf-dd-stacks-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "kernel"
}

@test "fold perf-dd-stacks-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "jit"
}

@test "fold perf-dd-stacks-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "all"
}

@test "fold perf-dd-stacks-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-dd-stacks-01 "addrs"
}

@test "fold perf-funcab-cmd-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 ""
}

@test "fold perf-funcab-cmd-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "pid"
}

@test "fold perf-funcab-cmd-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "tid"
}

@test "fold perf-funcab-cmd-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "kernel"
}

@test "fold perf-funcab-cmd-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "jit"
}

@test "fold perf-funcab-cmd-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "all"
}

@test "fold perf-funcab-cmd-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-funcab-cmd-01 "addrs"
}

@test "fold perf-java-stacks-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 ""
}

@test "fold perf-java-stacks-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "pid"
}

@test "fold perf-java-stacks-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "tid"
}

@test "fold perf-java-stacks-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "kernel"
}

@test "fold perf-java-stacks-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "jit"
}

@test "fold perf-java-stacks-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "all"
}

@test "fold perf-java-stacks-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-java-stacks-01 "addrs"
}

@test "fold perf-js-stacks-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 ""
}

@test "fold perf-js-stacks-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "pid"
}

@test "fold perf-js-stacks-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "tid"
}

@test "fold perf-js-stacks-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "kernel"
}

@test "fold perf-js-stacks-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "jit"
}

@test "fold perf-js-stacks-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "all"
}

@test "fold perf-js-stacks-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-js-stacks-01 "addrs"
}

@test "fold perf-numa-stacks-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 ""
}

@test "fold perf-numa-stacks-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "pid"
}

@test "fold perf-numa-stacks-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "tid"
}

@test "fold perf-numa-stacks-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "kernel"
}

@test "fold perf-numa-stacks-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "jit"
}

@test "fold perf-numa-stacks-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "all"
}

@test "fold perf-numa-stacks-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-numa-stacks-01 "addrs"
}

@test "fold perf-vertx-stacks-01 with default options matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 ""
}

@test "fold perf-vertx-stacks-01 with --pid matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "pid"
}

@test "fold perf-vertx-stacks-01 with --tid matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "tid"
}

@test "fold perf-vertx-stacks-01 with --kernel matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "kernel"
}

@test "fold perf-vertx-stacks-01 with --jit matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "jit"
}

@test "fold perf-vertx-stacks-01 with --all matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "all"
}

@test "fold perf-vertx-stacks-01 with --addrs matches stackcollapse-perf.pl" {
	fold_case perf-vertx-stacks-01 "addrs"
}
