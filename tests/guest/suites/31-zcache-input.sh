#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 31-zcache-input: garbage to every zcache module parameter (at load and
# at run time) and every writable sysfs attribute of the block front end:
# negative, huge, non-numeric, empty, unknown compressor, missing and busy
# backing devices, double creation, disksize change while in use.  Each is
# refused with EINVAL (EBUSY where the object is busy) as the shell sees
# it, leaves a line in dmesg, and changes nothing; valid values still work
# afterwards; no oops (the harness checks the kernel log too).
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"

P=/sys/module/zcache/parameters
C=/sys/class/zcache-control
S=/sys/block/zcache0/zcache
W=$(mktemp -d /var/tmp/zc31.XXXXXX)
loops=()

cleanup() {
	exec 7>&- 2>/dev/null
	swapoff /dev/zcache0 2>/dev/null
	for r in /sys/block/zcache*/zcache/reset; do
		[ -e "$r" ] && echo 1 >"$r" 2>/dev/null
	done
	modprobe -r zcache 2>/dev/null
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT


# refuse WHAT ERRNO_TEXT FILE VALUE: writing VALUE (never empty: a write
# of no bytes never reaches the kernel; a lone newline is "empty") to FILE fails with
# ERRNO_TEXT ("Invalid argument", "Device or resource busy"), logs a line,
# and leaves the file's value as it was.  Returns 0 when all hold.
refuse() {
	local want=$2 f=$3 v=$4 before after err mark
	before=$(cat "$f" 2>/dev/null)
	mark=$(kmsg_mark)
	if err=$( (printf '%s' "$v" >"$f") 2>&1); then
		echo "  accepted '$v' > $f" >&2
		return 1
	fi
	after=$(cat "$f" 2>/dev/null)
	case $err in
	*"$want"*) ;;
	*) echo "  '$v' > $f: got '${err##*: }', want '$want'" >&2; return 1 ;;
	esac
	if ! zcache_said "$mark"; then
		echo "  '$v' > $f: refused without a zcache line in dmesg" >&2
		return 1
	fi
	if [ "$before" != "$after" ]; then
		echo "  '$v' > $f: value changed from '$before' to '$after'" >&2
		return 1
	fi
	echo "  '$v' > $f: $want; dmesg: $(dmesg | tail -n 1)" >&2
	return 0
}

# refuse_all WHAT ERRNO_TEXT FILE VALUE...: one test for a list of values.
refuse_all() {
	local what=$1 want=$2 f=$3 v bad=''
	shift 3
	echo "+ garbage > $f" >&2
	for v in "$@"; do
		refuse "$what" "$want" "$f" "$v" || bad="$bad '$v'"
	done
	if [ -z "$bad" ]; then
		ok "$what: refused with $want"
	else
		nok "$what: refused with $want # not refused properly:$bad"
	fi
}

NUMERIC_GARBAGE=("-1" "abc" $'\n' "99999999999999999999999" "1.5" "0x" "12abc" " ")
BOOL_GARBAGE=("2" "-1" "maybe" $'\n' "99999999999999999999999")

# writable_params: the module parameters writable at run time (by mode:
# test -w is always true for root).  Their number differs between kernels.
writable_params() {
	local f
	for f in "$P"/*; do
		[ "$(stat -c %A "$f" | cut -c3)" = w ] && echo "$f"
	done
}

tap_begin_package
# The plan comes first, so that the runner notices a test that never ran:
# 20 fixed tests and one per writable parameter, counted on a first load.
modprobe -r zcache 2>/dev/null
if ! modprobe zcache; then
	echo "Bail out! modprobe zcache failed: cannot count its parameters"
	exit 1
fi
mapfile -t params < <(writable_params)
modprobe -r zcache
echo "1..$((20 + ${#params[@]}))"

# --- module parameters at load time ---------------------------------------
bad=''
for arg in num_devices=-1 num_devices=abc num_devices= num_devices=65 \
	num_devices=99999999999999999999 max_pool_percent=-5 max_pool_percent=101 \
	max_pool_percent=abc compressor=no-such-compressor compressor= \
	enabled=maybe same_filled_pages=2; do
	mark=$(kmsg_mark)
	echo "+ modprobe zcache $arg" >&2
	if modprobe zcache "$arg" >"$W/mp" 2>&1; then
		bad="$bad $arg(loaded)"
		modprobe -r zcache 2>/dev/null
		continue
	fi
	cat "$W/mp" >&2
	zcache_said "$mark" || bad="$bad $arg(no-dmesg)"
	[ ! -d /sys/module/zcache ] || { bad="$bad $arg(still-loaded)"; modprobe -r zcache 2>/dev/null; }
done
if [ -z "$bad" ]; then ok "modprobe with garbage parameters fails, with a dmesg line"
else nok "modprobe with garbage parameters fails, with a dmesg line #$bad"; fi

check "modprobe zcache num_devices=2 (valid) works afterwards" \
	sh -c 'modprobe zcache num_devices=2 && udevadm settle; test -b /dev/zcache0 && test -b /dev/zcache1'

# Reading zcache-control/add creates a device (as zram's hot_add does), so
# it is root's alone (0600): a user reading every file there, or a grep -r
# over /sys, must create nothing.
echo "+ as nobody: cat and grep -r every file under $C" >&2
ndev0=$(find /sys/block -maxdepth 1 -name 'zcache*' | wc -l)
setpriv --reuid=65534 --regid=65534 --clear-groups \
	sh -c "for f in $C/*; do cat \"\$f\"; done; grep -r . $C/" >&2
ndev1=$(find /sys/block -maxdepth 1 -name 'zcache*' | wc -l)
if [ "$ndev0" = 2 ] && [ "$ndev1" = "$ndev0" ] && [ "$(stat -c %a "$C/add")" = 600 ]; then
	ok "an unprivileged user reading every file under $C creates no device (add is 0600)"
else
	nok "an unprivileged user reading every file under $C creates no device # devices $ndev0 -> $ndev1, add mode $(stat -c %a "$C/add")"
fi

# --- module parameters at run time ----------------------------------------
for f in "${params[@]}"; do
	name=${f##*/}
	case $name in
	compressor)
		refuse_all "parameter $name" "Invalid argument" "$f" \
			"no-such-compressor" $'\n' "lz4 lz4" "-1" "$(head -c 300 /dev/zero | tr '\0' a)" ;;
	enabled|same_filled_pages|frontswap|cleancache)
		refuse_all "parameter $name" "Invalid argument" "$f" "${BOOL_GARBAGE[@]}" ;;
	*percent*)
		refuse_all "parameter $name" "Invalid argument" "$f" "${NUMERIC_GARBAGE[@]}" "101" "1000" ;;
	*)
		refuse_all "parameter $name" "Invalid argument" "$f" "${NUMERIC_GARBAGE[@]}" ;;
	esac
done

# --- block device attributes -----------------------------------------------
refuse_all "zcache0 disksize" "Invalid argument" "$S/disksize" \
	"${NUMERIC_GARBAGE[@]}" "0" "1Q" "16E" "1G junk" "1GG" "-1G" "99999999999999999999G"
refuse_all "zcache0 writeback" "Invalid argument" "$S/writeback" "${BOOL_GARBAGE[@]}"
refuse_all "zcache0 keep_loaded" "Invalid argument" "$S/keep_loaded" "${BOOL_GARBAGE[@]}"
refuse_all "zcache0 reset" "Invalid argument" "$S/reset" "0" "abc" $'\n' "-1"
refuse_all "zcache0 writeback_pages" "Invalid argument" "$S/writeback_pages" \
	"${NUMERIC_GARBAGE[@]}" "0" "100"

truncate -s 64M "$W/b1.img" "$W/b2.img" "$W/tiny.img"
truncate -s 2K "$W/tiny.img"
l1=$(losetup -f --show "$W/b1.img") && loops+=("$l1")
l2=$(losetup -f --show "$W/b2.img") && loops+=("$l2")
refuse_all "zcache0 backing_dev: missing, relative, not a block device, itself" \
	"Invalid argument" "$S/backing_dev" \
	"/dev/no-such-device" "relative/path" "$W/b1.img" "/dev/null" "/dev/zcache0" \
	"$(head -c 5000 /dev/zero | tr '\0' a)"
check "zcache1 takes $l2 as its backing device" sh -c "echo $l2 >/sys/block/zcache1/zcache/backing_dev"
refuse_all "zcache0 backing_dev: held by zcache1" "Device or resource busy" "$S/backing_dev" "$l2"
echo "$l1" >"$S/backing_dev" 2>/dev/null
refuse_all "zcache0 disksize larger than its backing device $l1" "Invalid argument" "$S/disksize" "65M" "1G"

check "zcache0 disksize 32M (valid) works afterwards" sh -c "echo 32M >$S/disksize && grep -qx 33554432 $S/disksize"
refuse_all "zcache0 double creation / change in use" "Device or resource busy" "$S/disksize" "32M" "64M"
refuse_all "zcache0 backing_dev change in use" "Device or resource busy" "$S/backing_dev" "$l2" "none"

# Busy: open the device and try to reset and remove it.
exec 7<>/dev/zcache0
refuse_all "zcache0 reset while open" "Device or resource busy" "$S/reset" "1"
refuse_all "remove zcache0 while open" "Device or resource busy" "$C/remove" "0"
exec 7>&-
udevadm settle 2>/dev/null
refuse_all "zcache-control remove: garbage" "Invalid argument" "$C/remove" \
	"abc" "-1" $'\n' "99" "zcache99" "99999999999999999999"

check "valid values still work: data on zcache0 reads back, reset, remove zcache1" \
	sh -c "head -c 1M /dev/urandom >$W/data && dd if=$W/data of=/dev/zcache0 bs=4096 oflag=direct status=none && dd if=/dev/zcache0 bs=4096 count=256 iflag=direct status=none | cmp - $W/data && udevadm settle && echo 1 >$S/reset && echo 1 >/sys/block/zcache1/zcache/reset && echo 1 >$C/remove && ! test -e /sys/block/zcache1"
check "rmmod zcache" sh -c "modprobe -r zcache && ! test -d /sys/module/zcache"
exit $failed
