#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/guest-prebuilt.sh: a machine without dkms, a compiler or
# kernel headers installs the prebuilt module package for its kernel
# (tests/dist/prebuilt.sh) from the signed repository (issue 21).  Base
# image (vm/run.sh --install none --apt-repo DIR):
#  1. the workloads are built first (the suites need memstress), then gcc,
#     cpp, make, dkms and every linux-headers/linux-kbuild package are
#     purged: none of them is left
#  2. `apt-get install zcache-modules-$(uname -r) zcache-utils` by name
#  3. `modinfo -F signer` names the maintainer key; zcache loads
# then the runner's suites of ZC_ONLY (e.g. '30*', the block device).
. "$ZC_TESTS/dist/guest-lib.sh"
cur=$(cat "$REPO/current")
kver=$(uname -r)
signer_want=${ZC_DIST_SIGNER:-zcache-dkms test maintainer key}

# 1. workloads, then no toolchain (ZC_BIN: the runner's default, which it
# sets only after this script hands over)
export ZC_BIN=${ZC_BIN:-/var/tmp/zc-bin}
mkdir -p "$ZC_BIN"
for c in "$ZC_TESTS"/workloads/*.c; do
	drun gcc -O2 -g -Wall -pthread -o "$ZC_BIN/$(basename "$c" .c)" "$c" -lm
done
toolchain() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null |
		awk '$1 ~ /^ii/ && $2 ~ /^(dkms|sparse|gcc|gcc-[0-9]+|cpp|cpp-[0-9]+|make|linux-headers-.*|linux-kbuild-.*)$/ { print $2 }'
}
# shellcheck disable=SC2046
drun apt-get -y purge $(toolchain)
drun apt-get -y autoremove --purge
left=$(toolchain | tr '\n' ' ')
# This shell ran gcc above: forget its remembered path, or command -v
# would still name /usr/bin/gcc after the purge.
hash -r
if [ -z "$left" ] && ! command -v gcc cc dkms make >/dev/null && [ ! -e "/lib/modules/$kver/build" ]; then
	dok "no dkms, gcc, cpp, make or kernel headers on the machine"
else
	dnok "no dkms, gcc or headers # left: $left $(command -v gcc cc dkms make | tr '\n' ' ')"
fi

# 2. the prebuilt package by name
use_snapshot "$cur"
drun "${APT_Y[@]}" install --no-install-recommends "zcache-modules-$kver" zcache-utils
v=$(dpkg-query -W -f='${Version}' "zcache-modules-$kver" 2>/dev/null)
drun dpkg -L "zcache-modules-$kver"
case $v in
"$cur"+*) dok "apt-get install zcache-modules-$kver zcache-utils: $v" ;;
*) dnok "apt-get install zcache-modules-$kver # version '$v'" ;;
esac

# 3. signer, load
signer=$(modinfo -F signer zcache 2>/dev/null)
drun modinfo zcache
drun modprobe zcache
if [ "$signer" = "$signer_want" ] && [ "$(cat /sys/module/zcache/version 2>/dev/null)" = "$cur" ] &&
	modinfo -n zcache | grep -q "/updates/zcache/zcache.ko"; then
	dok "modinfo -F signer zcache: '$signer'; zcache $cur loads from the package's /lib/modules/$kver/updates/zcache"
else
	dnok "the prebuilt zcache: signer and load # signer '$signer', file $(modinfo -n zcache 2>&1), version $(cat /sys/module/zcache/version 2>&1)"
fi
drun modprobe -r zcache zcsmalloc
ZC_DIST_INSTALL=prebuilt
dist_finish
