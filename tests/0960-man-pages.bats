# 0960-man-pages.bats — the man pages keep the design's promises: a page in
# section 5 for each format of formats/, every page clean under groff's
# warnings, zt-collect(1) and zt-stat(1) with FIELDS, OVERHEAD and CAVEATS,
# and every reference to a zt page naming one that exists.
load helper
bats_require_minimum_version 1.5.0

setup() { cd "$ZT_TOP"; }

@test "each formats/NAME.md has a section 5 page, zt-NAME.5 or zt-NAME-format.5, that names it" {
	n=0
	for md in formats/*.md; do
		name=$(basename "$md" .md)
		page=
		for p in "man/zt-$name.5" "man/zt-$name-format.5"; do
			[ -f "$p" ] && page=$p
		done
		echo "$md: ${page:-no page}"
		[ -n "$page" ]
		# Its title is its file's name, in section 5 ...
		t=$(basename "$page" .5 | tr a-z A-Z)
		grep -qx "\.Dt $t 5" "$page"
		grep -qx "\.Nm $(basename "$page" .5)" "$page"
		# ... and it says which formats/ file it is the reference of.
		grep -q "formats/$name\.md" "$page"
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}

@test "every man page lints clean under groff -ww" {
	command -v groff > /dev/null || skip "groff is not installed (Debian: groff-base): the pages are not linted"
	for p in man/*.[15]; do
		out=$(groff -mdoc -ww -z -Tutf8 "$p" 2>&1)
		echo "$p: ${out:-clean}"
		[ -z "$out" ]
	done
}

@test "zt-collect(1) and zt-stat(1) have FIELDS, OVERHEAD and CAVEATS, FIELDS before EXIT STATUS" {
	for p in man/zt-collect.1 man/zt-stat.1; do
		secs=$(sed -n 's/^\.Sh //p' "$p" | tr '\n' '|')
		echo "$p: $secs"
		for s in FIELDS OVERHEAD CAVEATS; do
			grep -qx "\.Sh $s" "$p"
		done
		# mdoc's order: FIELDS with the description, before ENVIRONMENT
		# and EXIT STATUS; CAVEATS after SEE ALSO.
		[[ $secs == *"|DESCRIPTION|"*"FIELDS|"*"EXIT STATUS|"*"SEE ALSO|CAVEATS|"* ]]
		[[ $secs != *"ENVIRONMENT|"*"FIELDS|"* ]]
	done
}

@test "every .Xr of a zt page names a page in man/" {
	run grep -ho '^\.Xr zt-[a-z-]* [0-9]' man/*.[15]
	assert_success
	for ref in $(printf '%s\n' "${lines[@]}" | sed 's/^\.Xr //; s/ /./' | sort -u); do
		echo "$ref"
		[ -f "man/$ref" ]
	done
}
