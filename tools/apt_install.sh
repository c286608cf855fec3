#!/bin/sh
# apt_install.sh WHAT PACKAGE...: install Debian packages as root, without starting any service they ship
# (a server package's own cluster on 5432/3306 is never started: the suite starts throwaway ones).
# Not root: say which packages to install, and fail.
set -eu
what="$1"; shift
if [ "$(id -u)" != 0 ]; then
	echo "install $* ($what) as root: sudo apt-get install $*" >&2
	exit 1
fi
policy=/usr/sbin/policy-rc.d
ours=""
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; ours=1
fi
export DEBIAN_FRONTEND=noninteractive
status=0
apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || \
	(apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "$@" >/dev/null) || status=$?
[ -n "$ours" ] && rm -f "$policy"
exit $status
