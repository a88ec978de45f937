#!/usr/bin/env bats
# Maps that change while the program runs: a dlopen/dlclose storm from many
# threads, and two libraries loaded in turn at one address. Every snapshot
# of the maps is whole, and every sample is named after the object that
# was mapped at its address when it was taken (formats/raw.md, version 4).

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The share of storm_a_hot among the samples in either hot function.
share_a() {
	zt-symbolize "$1" | zt-fold |
		awk '{ n = $NF } /;storm_a_hot / { a += n } /;storm_b_hot / { b += n }
		     END { if (a + b == 0) print "none"; else printf "%.3f\n", a / (a + b) }'
}

@test "a dlopen/dlclose storm from 2 and 8 threads: a whole dump and the program's own status" {
	for n in 2 8; do
		run --separate-stderr zt-collect -o s$n.raw "$SAMPLES/dlstorm" "$n" 10
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "same-address rounds "* ]]
		[ "${#lines[@]}" -eq 3 ]
		[[ "$stderr" == *"wrote '$PWD/s$n.raw'"* ]]
		# Every snapshot reads back whole: the dump symbolizes without a
		# word, and every maps section holds only maps lines.
		run --separate-stderr zt-symbolize s$n.raw
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		awk '/^maps( @[0-9]+)?$/ { m = 1; next } /^(buildids|threads|summary|samples|end)$/ { m = 0 }
		     m && !/^[0-9a-f]+-[0-9a-f]+ [-r][-w][-x][ps] [0-9a-f]+ [0-9a-f:]+ [0-9]+/ &&
		     !/^= @[0-9]+$/ { bad++ }
		     END { exit bad > 0 }' s$n.raw
		snaps=$(sed -n 's/^maps-snapshots //p' s$n.raw)
		[ "$snaps" -ge 2 ]
		[ "$snaps" -eq "$(grep -c '^maps @[0-9]*$' s$n.raw)" ]
		# The states come back again and again: most snapshots are a
		# reference to an earlier one.
		refs=$(grep -c '^= @[0-9]*$' s$n.raw)
		[ "$refs" -gt 0 ]
	done
}

@test "two libraries loaded in turn at one address: each sample is named after the one mapped then" {
	run --separate-stderr zt-collect -o s.raw "$SAMPLES/dlstorm" 4 40
	[ "$status" -eq 0 ]
	echo "$output"
	same=$(echo "$output" | sed -n 's/^same-address rounds \([0-9]*\) of .*/\1/p')
	want=$(echo "$output" | sed -n 's/^storm_a_hot //p')
	# The premise: the loader put a library where the other had been.
	[ "$same" -ge 5 ]
	got=$(share_a s.raw)
	echo "storm_a_hot: program $want, profile $got"
	[ "$got" != none ]
	# Each library's hot function lies where the other has a padding
	# function that nothing calls (samples/storma.c): a sample named after
	# the wrong library is a sample in storm_a_pad or storm_b_pad.
	run --separate-stderr zt-symbolize s.raw
	[ -z "$stderr" ]
	[ "$(grep -c ' storm_b_hot+' <<< "$output")" -gt 0 ]
	[ "$(grep -c ' storm_a_hot+' <<< "$output")" -gt 0 ]
	[ "$(grep -c ' storm_[ab]_pad+' <<< "$output")" -eq 0 ]
	# Neither library's frames fall back to its module name, and no build-id
	# is charged to the other library.
	[ "$(grep -c 'libstorm[ab]\.so\]' <<< "$output")" -eq 0 ]
	# The shares follow the program's own clock (loosely: the rounds of
	# storm_b_hot are short, and the sampling of short rounds varies).
	awk -v w="$want" -v g="$got" 'BEGIN { d = w - g; exit !(d < 0.15 && d > -0.15) }'
	# Each library's own build-id is in the dump, at the address it had.
	for l in a b; do
		id=$(readelf -n "$SAMPLES/libstorm$l.so" | sed -n 's/^ *Build ID: //p')
		grep -Eq "^[0-9a-f]+ @[0-9]+ $id " s.raw
	done
}

@test "a storm leaves only distinct snapshots: identical maps are written once" {
	zt-collect -o one.raw "$SAMPLES/spin" 20 2> /dev/null > /dev/null
	# Nothing was loaded or unloaded: the maps at the end, and no other.
	[ "$(grep -c '^maps @[0-9]*$' one.raw)" -eq 1 ]
	[ "$(sed -n 's/^maps-snapshots //p' one.raw)" -eq 1 ]
}
