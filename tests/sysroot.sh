#!/bin/sh
# sysroot.sh ARCH DIR PKG... — unpack the Debian packages PKG of architecture
# ARCH (arm64) into DIR, for a cross build (the Makefile's CROSS=): Debian's
# cross sysroot has a libc but no zlib. apt runs on a private state under
# DIR/.apt (its own package lists and cache, only ARCH's): the machine's
# dpkg architectures, package lists and installed packages are never
# touched, and any user can run it. It needs the Debian archive once; DIR/.done
# marks a finished sysroot. Absolute symbolic links in the packages
# (libz.so -> /lib/...) are made relative, inside DIR.
if [ "$#" -lt 3 ]; then
	echo "usage: sysroot.sh ARCH DIR PKG..." >&2
	exit 2
fi
arch=$1 dir=$2
shift 2
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
apt=$dir/.apt
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" || exit 1
fail() {
	echo "zt: cannot fetch the $arch packages $* for the cross build into '$dir'" \
	     "(apt-get, the Debian archive): see above" >&2
	exit 1
}
aptget() {
	sandbox=
	[ "$(id -u)" -eq 0 ] && sandbox="-o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	(cd "$apt" && apt-get -q $sandbox -o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" -o APT::Architecture="$arch" \
		-o APT::Architectures="$arch" "$@")
}
echo "  APT     $dir ($arch: $*)"
aptget update > "$apt/log" 2>&1 || { cat "$apt/log" >&2; fail "$@"; }
aptget download "$@" > "$apt/log" 2>&1 || { cat "$apt/log" >&2; fail "$@"; }
for deb in "$apt"/*.deb; do
	dpkg-deb -x "$deb" "$dir" || fail "$@"
done
find "$dir" -type l | while read -r link; do
	to=$(readlink "$link")
	case $to in
	/*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dir$to")" "$link" ;;
	esac
done
rm -rf "$apt"
touch "$dir/.done"
