# 0761-collect-labels.bats — zt-collect --label KEY=VALUE and the host name
# (issue 30, item 2): written in every dump's header, carried through the
# stream as facts, refused by name when they break the label rules.
load helper

setup() { cd "$BATS_TEST_TMPDIR"; }

@test "--label pairs and the host name are in the dump, in order, and in the stream as facts" {
	run --separate-stderr zt-collect --label service=web --label version=1.2-rc.3 --label 'note=a b; c' -o l.raw "$SAMPLES/spin" 1
	echo "status $status; stderr: $stderr"
	assert_success
	run sed -n '/^samples$/q; /^host /p; /^label /p' l.raw
	assert_output "$(printf 'host %s\nlabel service web\nlabel version 1.2-rc.3\nlabel note a b; c' "$(uname -n)")"
	run zt-symbolize l.raw
	assert_line "# zt host $(uname -n)"
	assert_line "# zt label service web"
	assert_line "# zt label note a b; c"
	# Readers take the dump as before.
	zt-fold l.raw > /dev/null
	zt-stat l.raw > /dev/null
}

@test "every dump of -f has them; a run without --label has the host alone" {
	zt-collect -f --label role=builder -o f.raw sh -c "$SAMPLES/spin 1; $SAMPLES/spin 1" > /dev/null 2>&1
	for f in f.raw f.raw.*; do
		echo "$f"
		! grep -qx 'label role=builder' "$f"
		grep -qx 'label role builder' "$f"
		grep -qx "host $(uname -n)" "$f"
	done
	zt-collect -o n.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
	! grep -q '^label ' n.raw
	grep -qx "host $(uname -n)" n.raw
}

# The host and label lines of dump $1's header, on one line.
header_labels() { sed -n '/^samples$/q; /^host /p; /^label /p' "$1" | tr '\n' ' '; }

@test "a program that rewrites or unsets ZT_LABELS before it execs or forks gets zt-collect's labels in every dump" {
	# The labels come from zt-collect's sealed descriptor, never from the
	# environment: rewritten, set where zt-collect set none, or unset.
	run --separate-stderr zt-collect -f --label role=builder --label v=1 -o e.raw sh -c '
		ZT_LABELS="role=evil" "$1" 1
		export ZT_LABELS="$(printf "role=evil\nv=2")"; "$1" 1
		unset ZT_LABELS; "$1" 1
		export ZT_LABELS=role=evil; exec "$1" 1' sh "$SAMPLES/spin"
	echo "status $status; stderr: $stderr"
	assert_success
	[[ "$stderr" != *"no host name"* ]]
	want="host $(uname -n) label role builder label v 1 "
	n=0
	for f in e.raw e.raw.*; do
		echo "$f: $(header_labels "$f")"
		[ "$(header_labels "$f")" = "$want" ]
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
	# Without --label, a ZT_LABELS of the program's own gives no labels.
	ZT_LABELS=role=evil zt-collect -f -o n.raw sh -c 'ZT_LABELS=role=evil "$1" 1' sh "$SAMPLES/spin" > /dev/null 2>&1
	ls n.raw.*
	for f in n.raw n.raw.*; do
		[ "$(header_labels "$f")" = "host $(uname -n) " ]
	done
}

@test "a program that closes every descriptor before it execs (Python's subprocess) keeps the labels" {
	py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || skip "no python3"
	run --separate-stderr zt-collect -f --label role=builder -o p.raw "$py" -c '
import os, subprocess, sys
os.environ["ZT_LABELS"] = "role=evil"
subprocess.run([sys.argv[1], "1"], close_fds=True, check=True)' "$SAMPLES/spin"
	echo "status $status; stderr: $stderr"
	assert_success
	for f in p.raw p.raw.*; do
		echo "$f: $(header_labels "$f")"
		[ "$(header_labels "$f")" = "host $(uname -n) label role builder " ]
	done
	grep -qx "exe $SAMPLES/spin" p.raw.*
}

@test "a program that changes ZT_LABELS_FD or ZT_LABELS_INO leaves its child's dump without host and labels, and zt-collect names it" {
	run --separate-stderr zt-collect -f --label role=builder -o t.raw sh -c '
		ZT_LABELS_INO=1 "$1" 1
		env -u ZT_LABELS_FD "$1" 1
		"$1" 1' sh "$SAMPLES/spin"
	echo "status $status; stderr: $stderr"
	assert_success
	[ "$(header_labels t.raw)" = "host $(uname -n) label role builder " ]
	lost=0 kept=0
	for f in t.raw.*; do
		echo "$f: $(header_labels "$f")"
		if [ "$(header_labels "$f")" = "" ]; then
			[[ "$stderr" == *"zt-collect: the dump '$PWD/$f' of descendant ${f##*.} has no host name and no labels: the descriptor zt-collect passed them in was gone"* ]]
			lost=$((lost + 1))
		else
			[ "$(header_labels "$f")" = "host $(uname -n) label role builder " ]
			kept=$((kept + 1))
		fi
	done
	[ "$lost" -eq 2 ] && [ "$kept" -ge 1 ]
	# The program's own dump: exec'd with ZT_LABELS_FD gone.
	run --separate-stderr zt-collect -f --label role=builder -o r.raw sh -c 'exec env -u ZT_LABELS_FD "$1" 1' sh "$SAMPLES/spin"
	echo "status $status; stderr: $stderr"
	[ "$(header_labels r.raw)" = "" ]
	[[ "$stderr" == *"zt-collect: the dump '$PWD/r.raw' has no host name and no labels"* ]]
	# Readers take such a dump as one without labels.
	run zt-stat --by=label:role r.raw t.raw
	assert_success
	assert_line --regexp "  \[no role\]$"
}

@test "labels that break the rules are usage errors that name them" {
	run zt-collect --label 'bad key=1' true
	assert_failure 2
	assert_output --partial "--label: 'bad key=1' is not KEY=VALUE"
	run zt-collect --label noequals true
	assert_failure 2
	run zt-collect --label 1st=x true
	assert_failure 2
	run zt-collect --label a=1 --label a=2 true
	assert_failure 2
	assert_output --partial "a is given twice"
	run zt-collect --label "a=$(printf 'x\ty')" true
	assert_failure 2
	assert_output --partial "holds a control character or a backslash"
	run zt-collect --label "a=$(head -c 257 /dev/zero | tr '\0' x)" true
	assert_failure 2
	args=()
	for i in $(seq 1 33); do args+=(--label "k$i=v"); done
	run zt-collect "${args[@]}" true
	assert_failure 2
	assert_output --partial "more than 32 labels"
}

@test "a dump's label lines that break the rules are refused by readers, naming the line" {
	zt-collect -o ok.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
	sed 's/^arch /label bad\\key v\narch /' ok.raw > bad.raw
	run zt-fold bad.raw
	assert_failure 1
	assert_output --partial "line 3: label: 'bad\\key' is not a label key"
	sed 's/^arch /label k v\nlabel k w\narch /' ok.raw > twice.raw
	run zt-fold twice.raw
	assert_failure 1
	assert_output --partial "label k: given twice"
}

# Four dumps: service web (versions 1 and 2), db, and one without labels.
labelled() {
	zt-collect --label service=web --label version=1 -o a.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
	zt-collect --label service=web --label version=2 -o b.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
	zt-collect --label service=db -o c.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
	zt-collect -o d.raw "$SAMPLES/spin" 1 > /dev/null 2>&1
}

# The samples of dump $1.
n_of() { sed -n 's/^samples \([0-9]*\)$/\1/p' "$1"; }

@test "zt-stat --by=label:NAME counts each input's samples under its label's value, [no NAME] without" {
	labelled
	run --separate-stderr zt-stat -n 0 --by=label:service a.raw b.raw c.raw d.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_line --regexp "^ +$(( $(n_of a.raw) + $(n_of b.raw) )) .*  web$"
	assert_line --regexp "^ +$(n_of c.raw) .*  db$"
	assert_line --regexp "^ +$(n_of d.raw) .*  \[no service\]$"
	assert_line --regexp "  label:service$"
	run zt-stat --by=label:host a.raw d.raw
	assert_line --regexp "^ +$(( $(n_of a.raw) + $(n_of d.raw) )) .*  $(uname -n)$"
}

@test "zt-stat --label NAME=VALUE reads only the inputs that have it, facts too, and names the others" {
	labelled
	run --separate-stderr zt-stat --label service=web a.raw b.raw c.raw d.raw
	echo "status $status; stderr: $stderr"
	assert_success
	assert_line --regexp "^samples: $(( $(n_of a.raw) + $(n_of b.raw) )) "
	[[ "$stderr" == *"--label: left out 2 of 4 inputs, whose labels differ: 'c.raw', 'd.raw'"* ]]
	# The CPU time is the kept inputs' alone.
	want=$(zt-stat a.raw b.raw | sed -n 's/^cpu time: \([0-9.]*\) s.*/\1/p')
	assert_line --regexp "^cpu time: $want s"
	# A stream carries the labels as facts; all must match.
	zt-symbolize b.raw > b.txt
	run --separate-stderr zt-stat --label service=web --label version=2 a.raw b.txt
	assert_success
	assert_line --regexp "^samples: $(n_of b.raw) "
	run --separate-stderr zt-stat --label service=none a.raw b.raw
	assert_failure 1
	[[ "$stderr" == *"--label: no input has the labels asked for (2 left out: 'a.raw', 'b.raw')"* ]]
	run zt-stat --label 'bad key=1' a.raw
	assert_failure 2
	run zt-stat --by=label:'x y' a.raw
	assert_failure 2
}

@test "zt-fold --root=label:NAME puts each input's value of its label in the root frame" {
	labelled
	run --separate-stderr zt-fold --root=label:service a.raw b.raw c.raw d.raw
	echo "status $status; stderr: $stderr"
	assert_success
	roots=$(printf '%s\n' "${lines[@]}" | cut -d';' -f1 | sort -u | tr '\n' ' ')
	[ "$roots" = "[no service] db web " ]
	# The counts are the inputs' own.
	[ "$(printf '%s\n' "${lines[@]}" | awk '/^web;/ { s += $NF } END { print s }')" -eq $(( $(n_of a.raw) + $(n_of b.raw) )) ]
	zt-symbolize c.raw | zt-fold --root=label:service | grep -q '^db;'
	zt-fold a.raw > a.folded
	run zt-fold --root=label:service a.folded
	assert_failure 1
	assert_output --partial "folded stacks carry no labels"
}
