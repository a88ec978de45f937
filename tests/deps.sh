#!/bin/sh
# deps.sh PKG... — install the Debian packages zt needs that are missing.
# As root it runs apt-get (after one apt-get update, since a fresh machine
# has stale lists); otherwise it prints the exact command and fails.
missing=
for p in "$@"; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $s in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "zt: missing Debian packages:$missing" >&2
	echo "zt: run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "zt: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
apt-get install -y -qq --no-install-recommends $missing >&2
