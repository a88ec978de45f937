# 0303-fold-readers.bats — what zt-fold and stackcollapse-perf.pl write,
# zt-stat and zt-diff read: every folded file of the stackcollapse-perf.pl cases, whose
# frames include odd ones such as a frame named " ".
load helper
bats_require_minimum_version 1.5.0

@test "zt-stat reads every folded file of the stackcollapse-perf.pl cases and counts all its samples" {
	# The dd case's counts are perf's periods (each a multiple of 10101010):
	# undeclared, they are shown as a sum of periods, never as samples.
	for f in "$DATA"/perf-script/*.folded; do
		read -r want g <<< "$(awk 'function gcd(a, b) { while (b) { t = a % b; a = b; b = t } return a }
			{ n += $NF; g = gcd(g, $NF) } END { print n, g }' "$f")"
		run zt-stat -n 1 "$f"
		assert_success
		if [ "$g" -ge 1000 ]; then
			assert_line --index 0 --regexp "^weight: $want units, the sum of the periods; not samples: every count is a multiple of $g"
		else
			assert_line --index 0 --regexp "^samples: $want "
		fi
	done
}

@test "zt-diff of a stackcollapse-perf.pl folded file with itself keeps every stack and count" {
	for f in "$DATA"/perf-script/*.folded; do
		run zt-diff "$f" "$f"
		assert_success
		assert_output "$(awk '{ c = $NF; sub(/ [0-9]+$/, ""); print $0, c, c }' "$f")"
	done
}
