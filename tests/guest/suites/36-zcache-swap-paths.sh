#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 36-zcache-swap-paths: the swap paths of /dev/zcache0's data path
# (docs/zcache-blk.md, "Data path"), every page verified by
# $ZC_BIN/swaptorture or memstress:
#   - the device is asynchronous: swapon does not mark it synchronous
#     (swap keeps read pages in the swap cache and reads ahead)
#   - pages shared by fork: parent and child read them after swap-out;
#     the child's copy-on-write rewrite leaves the parent's data intact
#   - swap readahead brings in pages nobody touched: the pool drops them
#     (exclusive loads, counted), they are dirty and must be written again
#     before reclaim drops them: they verify after a second swap-out
#   - swapoff with pages both in the pool and on the backing device
#   - keep_loaded=1: loads keep the pool copy and leave the page clean;
#     pages modified after such a load (memstress, fork's copy-on-write)
#     must never read the kept, older copy; no exclusive load counted
#   - write-back (writeback=1) racing overwrites and discards of its slots
#     (swapon --discard=pages, slots freed by exiting processes, forced
#     write-back every 0.2 s): no stale data resurrected; swap's discards
#     reach the backing device when it takes them
# A small pool (max_pool_percent=5) makes pages spill to the backing
# device ($ZC_SCRATCH_DEV, else a loop device).
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"

DEV=/dev/zcache0
S=/sys/block/zcache0/zcache
P=/sys/module/zcache/parameters
W=$(mktemp -d /var/tmp/zc36.XXXXXX)
TORTURE=$ZC_BIN/swaptorture
loopdev='' holder='' kicker='' old_enabled='' old_pool=''

st() { cat "$S/$1" 2>/dev/null || echo 0; }
log_stats() { echo "# $1: $(grep -r . "$S" 2>/dev/null | sed 's|.*/||' | tr '\n' ' ')" >&2; }

cleanup() {
	[ -z "$old_enabled" ] || echo "$old_enabled" >"$P/enabled" 2>/dev/null
	[ -z "$old_pool" ] || echo "$old_pool" >"$P/max_pool_percent" 2>/dev/null
	[ -z "$kicker" ] || kill "$kicker" 2>/dev/null
	[ -z "$holder" ] || kill -9 "$holder" 2>/dev/null
	swapoff "$DEV" 2>/dev/null
	echo 1 >"$S/reset" 2>/dev/null
	modprobe -r zcache 2>/dev/null
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

tap_begin_package
echo "1..21"
taint_mark

zc_backing_setup
bsize=$(blockdev --getsize64 "$backing")
swap_bytes=$(( bsize / PAGE * PAGE ))
[ "$swap_bytes" -le $((1 << 30)) ] || swap_bytes=$((1 << 30))
if [ -z "${ZC_QUICK:-}" ]; then size=$((MEM_MB * 4 / 10)); else size=$((MEM_MB / 4)); fi
[ "$size" -le 400 ] || size=400
echo "# backing $backing ($bsize bytes), swap $swap_bytes bytes, sets of $size MiB" >&2

# swapon_zcache [WRITEBACK]: a fresh zcache0 over the backing device.
swapon_zcache() {
	settle
	echo 1 >"$S/reset" &&
	echo "$backing" >"$S/backing_dev" &&
	echo "${1:-0}" >"$S/writeback" &&
	echo "$swap_bytes" >"$S/disksize" &&
	mkswap "$DEV" >/dev/null &&
	swapon --discard=pages -p 100 "$DEV"
}
zc_io_fn swapon_zcache
ZC_IO_FN="$ZC_IO_FN; backing=$backing swap_bytes=$swap_bytes"

modprobe -r zcache 2>/dev/null
if [ -d /sys/module/zcache ]; then
	# Pinned (5.10 after suite 32 registered frontswap): modprobe would
	# not apply parameters, and frontswap would take the swapped pages
	# before /dev/zcache0 sees them.  Set the pool limit at run time and
	# turn frontswap's intake off for this suite, as suite 40 does.
	old_enabled=$(cat "$P/enabled") old_pool=$(cat "$P/max_pool_percent")
	echo "# zcache is pinned (frontswap_active=$(cat /sys/kernel/zcache/frontswap_active 2>/dev/null)): max_pool_percent=5 and enabled=N at run time" >&2
	check "zcache (pinned): max_pool_percent=5, frontswap intake off; swapon --discard=pages $DEV over $backing" \
		sh -c "echo 5 >$P/max_pool_percent && echo N >$P/enabled && $ZC_IO_FN; swapon_zcache 0"
else
	check "modprobe zcache max_pool_percent=5; swapon --discard=pages $DEV over $backing" \
		sh -c "modprobe zcache max_pool_percent=5 && udevadm settle && $ZC_IO_FN; swapon_zcache 0"
fi
check_run() {	# check_run DESCRIPTION COMMAND...: a workload, output kept
	local d=$1; shift
	echo "+ $*" >&2
	if "$@" >"$W/out" 2>&1; then ok "$d: $(tail -n 1 "$W/out")"
	else nok "$d # $(tail -n 3 "$W/out" | tr '\n' ' ')"; fi
	cat "$W/out" >&2
}

[ -x "$TORTURE" ] || { nok "swaptorture built # $TORTURE missing"; exit 1; }

# --- fork-shared pages ---------------------------------------------------
zc_pressure "$size" $((size / 3))
check_run "fork: shared pages swapped out, read back by parent and child, COW rewrite" \
	"${ZC_PRESSURE[@]}" "$TORTURE" fork "$size"
log_stats "after fork"

# --- readahead into pages nobody touched --------------------------------
vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "" }' /proc/vmstat; }
x0=$(st exclusive_loads) w0=$(st writes) ra0=$(vmstat swap_ra)
check_run "readahead: untouched pages read ahead, pushed out again, verified" \
	"$TORTURE" readahead "$size"
x1=$(st exclusive_loads) w1=$(st writes) ra1=$(vmstat swap_ra)
# A synchronous device (->rw_page, BLK_FEAT_SYNCHRONOUS) would make
# do_swap_page() skip the swap cache and readahead for these pages.
if [ -z "$ra0" ]; then
	skip "swap reads ahead on $DEV (asynchronous device)" "no swap_ra in /proc/vmstat"
elif [ "$ra1" -gt "$ra0" ]; then
	ok "swap reads ahead on $DEV (asynchronous device): swap_ra +$((ra1 - ra0)), swap_ra_hit $(vmstat swap_ra_hit)"
else
	nok "swap reads ahead on $DEV (asynchronous device) # swap_ra $ra0 -> $ra1"
fi
if [ "$x1" -gt "$x0" ] && [ "$w1" -gt "$w0" ]; then
	ok "exclusive loads counted ($((x1 - x0))) and pages written again ($((w1 - w0)))"
else
	nok "exclusive loads counted and pages written again # exclusive_loads $x0 -> $x1, writes $w0 -> $w1"
fi
log_stats "after readahead"

# --- swapoff with pages in the pool and on the backing device -----------
rm -f "$W/ready"
"$TORTURE" hold "$size" "$W/ready" >"$W/hold.out" 2>&1 &
holder=$!
for _ in $(seq 1 600); do [ -e "$W/ready" ] || ! kill -0 "$holder" 2>/dev/null && break; sleep 0.5; done
stored=$(st stored_pages) onbacking=$(( $(st backing_writes_pool_full) + $(st backing_writes_incompressible) ))
if [ -e "$W/ready" ] && [ "$stored" -gt 0 ] && [ "$onbacking" -gt 0 ]; then
	ok "pages held both in the pool ($stored) and on the backing device ($onbacking written there)"
else
	nok "pages held both in the pool and on the backing device # ready $( [ -e "$W/ready" ] && echo yes || echo no), stored $stored, backing writes $onbacking"
fi
check "swapoff $DEV with the pages out: every page comes back" \
	sh -c "swapoff $DEV && ! grep -q '^$DEV ' /proc/swaps"
kill -USR1 "$holder" 2>/dev/null
if wait "$holder"; then ok "after swapoff: $(tail -n 1 "$W/hold.out")"
else nok "after swapoff: every page verified # $(tail -n 3 "$W/hold.out" | tr '\n' ' ')"; fi
holder=''
cat "$W/hold.out" >&2
# What stays is the swap header mkswap wrote (page 0).
check "after swapoff the pool holds at most the swap header (stored_pages <= 1)" test "$(st stored_pages)" -le 1

# --- keep_loaded=1: loads keep their pool copy ---------------------------
g=/sys/kernel/zcache
check "keep_loaded=1: a fresh zcache0, swapon --discard=pages" \
	sh -c "$ZC_IO_FN; swapon_zcache 0 && echo 1 >$S/keep_loaded && grep -qx 1 $S/keep_loaded"
x0=$(st exclusive_loads) l0=$(cat "$g/loads" 2>/dev/null || echo 0)
zc_pressure "$size" $((size / 3))
check_run "keep_loaded=1: pages rewritten after loads (memstress, 2 processes, 2 passes)" \
	"${ZC_PRESSURE[@]}" "$ZC_BIN/memstress" --size-mb "$size" --procs 2 --passes 2
check_run "keep_loaded=1: fork-shared pages, copy-on-write rewrite" \
	"${ZC_PRESSURE[@]}" "$TORTURE" fork "$size"
check_run "keep_loaded=1: untouched pages read ahead, pushed out again, verified" \
	"$TORTURE" readahead "$size"
x1=$(st exclusive_loads) l1=$(cat "$g/loads" 2>/dev/null || echo 0)
log_stats "after keep_loaded"
if [ "$l1" -gt "$l0" ] && [ "$x1" -eq "$x0" ]; then
	ok "keep_loaded=1: $((l1 - l0)) pool loads, none exclusive"
else
	nok "keep_loaded=1: pool loads, none exclusive # loads $l0 -> $l1, exclusive_loads $x0 -> $x1"
fi
check "keep_loaded: a reset puts it back to 0 (exclusive loads)" \
	sh -c "swapoff $DEV && echo 1 >$S/reset && grep -qx 0 $S/keep_loaded"

# --- write-back racing overwrites and discards ---------------------------
check "writeback=1: a fresh zcache0, swapon --discard=pages" \
	sh -c "$ZC_IO_FN; swapon_zcache 1 && grep -qx 1 $S/writeback"
(while :; do echo 256 >"$S/writeback_pages" 2>/dev/null; sleep 0.2; done) &
kicker=$!
zc_pressure "$size" $((size / 3))
check_run "write-back under overwrite (memstress, 2 processes, 2 passes)" \
	"${ZC_PRESSURE[@]}" "$ZC_BIN/memstress" --size-mb "$size" --procs 2 --passes 2
check_run "write-back under discard (readahead set, freed at exit)" \
	"$TORTURE" readahead $((size / 2))
kill "$kicker" 2>/dev/null; wait "$kicker" 2>/dev/null; kicker=''
log_stats "after write-back"
wb=$(st written_back_pages)
if [ "$wb" -gt 0 ]; then ok "write-back ran meanwhile: $wb pages written back, $(st discarded) discarded, $(st notify_free) slots freed"
else nok "write-back ran meanwhile # written_back_pages $wb"; fi
swapoff "$DEV" 2>/dev/null
# swapon --discard=pages discards freed clusters; zcache0 passes them down
# when the backing device takes discards.
bq=/sys/class/block/${backing##*/}
[ -e "$bq/partition" ] && bq=$(dirname "$(readlink -f "$bq")")
dmax=$(cat "$bq/queue/discard_max_bytes" 2>/dev/null || echo 0)
if [ "$dmax" -gt 0 ]; then
	if [ "$(st discarded)" -gt 0 ] && [ "$(st backing_discarded)" -gt 0 ]; then
		ok "discards reach the backing device: $(st discarded) pages discarded, $(st backing_discarded) passed down"
	else
		nok "discards reach the backing device # discarded $(st discarded), backing_discarded $(st backing_discarded)"
	fi
else
	skip "discards reach the backing device" "$backing takes no discards"
fi
check_taint
exit $failed
