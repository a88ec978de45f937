# 0303-fold-readers.bats — what zt-fold and stackcollapse-perf.pl write,
# zt-stat and zt-diff read: every folded file of the shared cases, whose
# frames include odd ones such as a frame named " ".
load helper
bats_require_minimum_version 1.5.0

@test "zt-stat reads every shared folded file and counts all its samples" {
	for f in "$DATA"/perf-script/*.folded; do
		want=$(awk '{ n += $NF } END { print n }' "$f")
		run zt-stat -n 1 "$f"
		assert_success
		assert_line --index 0 --regexp "^samples: $want "
	done
}

@test "zt-diff of a shared folded file with itself keeps every stack and count" {
	for f in "$DATA"/perf-script/*.folded; do
		run zt-diff "$f" "$f"
		assert_success
		assert_output "$(awk '{ c = $NF; sub(/ [0-9]+$/, ""); print $0, c, c }' "$f")"
	done
}
