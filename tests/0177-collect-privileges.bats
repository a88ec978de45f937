#!/usr/bin/env bats
# Privileges: a set-user-ID, set-group-ID or set-capability program, which
# the loader runs without LD_PRELOAD, is refused before it runs, with the
# reason; a program that drops root with its output in root's directory
# still gets its dump, published by zt-collect; with -f a descendant whose
# dump could not be published is named, and zt-collect exits 1.
# (Issue 17, item 6.)

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	[ "$(id -u)" = 0 ] || skip "needs root (chown, setuid, setcap)"
	chmod 755 "$BATS_TEST_TMPDIR"
}

@test "a set-user-ID program of another user is refused before it runs, naming why" {
	cp "$SAMPLES/spin" suid
	chown nobody suid
	chmod u+s suid
	run --separate-stderr zt-collect -o s.raw ./suid 1
	assert_failure 1
	[ -z "$output" ]	# it never ran
	[[ $stderr == *"'./suid' cannot be profiled: it is set-user-ID to another user, and the loader ignores LD_PRELOAD there"* ]]
	[ ! -e s.raw ]
}

@test "a set-group-ID program of another group is refused too" {
	cp "$SAMPLES/spin" sgid
	chgrp nogroup sgid
	chmod g+s sgid
	run --separate-stderr zt-collect -o s.raw ./sgid 1
	assert_failure 1
	[ -z "$output" ]	# refused before it ran
	[[ $stderr == *"'./sgid' cannot be profiled: it is set-group-ID to another group"* ]]
}

@test "a program with file capabilities, run by another user than root, is refused" {
	command -v setcap > /dev/null || skip "no setcap"
	# Somewhere nobody can reach (the test's own directory is root's alone).
	dir=$(mktemp -d /tmp/zt-cap.XXXXXX)
	chmod 755 "$dir"
	cp "$SAMPLES/spin" "$dir/capp"
	setcap cap_net_raw+ep "$dir/capp"
	mkdir -m 777 "$dir/out"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ZT_TOP/collect/zt-collect" -o "$dir/out/c.raw" "$dir/capp" 1
	rm -rf "$dir"
	assert_failure 1
	[[ $stderr == *"'$dir/capp' cannot be profiled: it has file capabilities"* ]]
	# Root gains nothing from them: the loader preloads, and it is profiled.
	cp "$SAMPLES/spin" capp
	setcap cap_net_raw+ep capp
	run --separate-stderr zt-collect -o c.raw ./capp 1
	assert_success
	grep -qx end c.raw
}

@test "a program that drops root, its output in root's directory: zt-collect publishes the dump" {
	run --separate-stderr zt-collect -o d.raw "$SAMPLES/dropper"
	assert_success
	assert_output "dropper: worked as 65534"
	[[ $stderr == *"the program could not rename its dump '$BATS_TEST_TMPDIR/d.raw.tmp."*"zt-collect published it"* ]]
	grep -qx end d.raw
	[ "$(sed -n 's/^samples //p' d.raw)" -ge 100 ]
	! ls d.raw.tmp.* 2> /dev/null
}

@test "with -f, a descendant whose dump could not be written is named with the cause; the status stays the program's" {
	run --separate-stderr zt-collect -f -o t.raw "$SAMPLES/dropper" child "$SAMPLES/spin" 1
	assert_success
	assert_line "dropper: child exited 0"
	echo "$stderr"
	# The child's own dump (before its exec) is published for it ...
	[[ $stderr == *"could not rename its dump '$BATS_TEST_TMPDIR/t.raw."*"zt-collect published it"* ]]
	# ... and the exec'd image, which could not create one, is named with the cause.
	re="cannot create '[^']*/t\.raw\.[0-9]+\.tmp\.[0-9]+': [A-Z][a-z ]+: the program ran unsampled"
	[[ $stderr =~ $re ]]
	grep -qx end t.raw
}
