#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 01-module: the modules load and unload cleanly, repeatedly, beside the
# kernel's own zram and zswap, and leave no warning taint behind.
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"
loaded() { [ -d "/sys/module/$1" ]; }

cleanup() { modprobe -r zcache zcsmalloc 2>/dev/null || true; }
trap cleanup EXIT

tap_begin_package
cycles=5
[ -z "${ZC_QUICK:-}" ] || cycles=2
echo "1..8"
taint_mark

check "modprobe zcsmalloc" modprobe zcsmalloc
check "modprobe zcache" modprobe zcache
check "zcache and zcsmalloc are live in /sys/module" \
	sh -c 'grep -qx live /sys/module/zcache/initstate && grep -qx live /sys/module/zcsmalloc/initstate'
echo "+ lsmod | grep zc" >&2; lsmod | grep -E '^zc' >&2
check "rmmod zcache zcsmalloc" sh -c 'rmmod zcache && rmmod zcsmalloc && ! test -d /sys/module/zcache && ! test -d /sys/module/zcsmalloc'

# udev probes each new /dev/zcache0 (blkid opens it): an unload in that
# moment is refused as "in use", rightly; wait for udev first.
echo "+ $cycles load/unload cycles" >&2
c=0 good=1
while [ $c -lt $cycles ]; do
	c=$((c + 1))
	modprobe zcache >&2 && loaded zcache && loaded zcsmalloc &&
		udevadm settle && modprobe -r zcache >&2 && ! loaded zcache && ! loaded zcsmalloc || { good=0; break; }
done
if [ $good = 1 ]; then ok "$cycles load/unload cycles"; else nok "$cycles load/unload cycles # failed in cycle $c"; fi

# Coexistence with the kernel's compressed-memory users.
if modinfo zram >/dev/null 2>&1; then
	check "zram loads beside zcache" sh -c 'modprobe zcache && modprobe zram num_devices=1 && test -b /dev/zram0 && udevadm settle && rmmod zram'
else
	skip "zram loads beside zcache" "no zram module in this kernel"
fi
if [ -e /sys/module/zswap/parameters/enabled ]; then
	check "zswap can be switched on and off beside zcache" sh -c '
		modprobe zcache &&
		old=$(cat /sys/module/zswap/parameters/enabled) &&
		echo Y >/sys/module/zswap/parameters/enabled &&
		grep -qx Y /sys/module/zswap/parameters/enabled &&
		echo "$old" >/sys/module/zswap/parameters/enabled'
else
	skip "zswap can be switched on and off beside zcache" "no zswap in this kernel"
fi
modprobe -r zcache >&2 2>/dev/null
check_taint
exit $failed
