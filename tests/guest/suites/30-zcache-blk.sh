#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 30-zcache-blk: the block-device front end, /dev/zcacheN.
#   - devices from num_devices and /sys/class/zcache-control/{add,remove};
#     queue limits (non-rotational, page-sized blocks, discard)
#   - data written through /dev/zcache0 reads back byte for byte: same-filled,
#     compressible and incompressible pages; RAM-only, an incompressible
#     page is kept uncompressed; a RAM-only device whose pool is at its
#     limit fails the write with EIO (never a silent loss)
#   - discard frees pool entries (stats drop, the range reads as zeroes)
#   - a backing device ($ZC_SCRATCH_DEV, else a loop device): incompressible
#     pages and written-back cold pages reach it and read back verified
#   - swap on /dev/zcache0 over the backing device under a verified memory
#     workload ($ZC_BIN/memstress, in a memory cgroup: ktap-lib.sh zc_pressure)
#     with max_pool_percent=10: the pool, sampled during the run, never
#     exceeds 10% of RAM and the rest reaches the backing device
# KTAP on stdout; commands and their output on stderr.
set -u
. "$ZC_TESTS/guest/ktap-lib.sh"

DEV=/dev/zcache0
S=/sys/block/zcache0/zcache
G=/sys/kernel/zcache
P=/sys/module/zcache/parameters
W=$(mktemp -d /var/tmp/zc30.XXXXXX)
zc_io_fn
loopdev='' sampler=''

st() { cat "$S/$1" 2>/dev/null || echo 0; }
log_stats() { echo "# $1: $(cat "$S/summary" 2>/dev/null)" >&2; }

cleanup() {
	[ -z "$sampler" ] || kill "$sampler" 2>/dev/null
	swapoff "$DEV" 2>/dev/null
	for r in /sys/block/zcache*/zcache/reset; do
		[ -e "$r" ] && echo 1 >"$r" 2>/dev/null
	done
	[ -z "${old_pool_percent:-}" ] || echo "$old_pool_percent" >"$P/max_pool_percent" 2>/dev/null
	modprobe -r zcache 2>/dev/null
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

tap_begin_package
echo "1..25"

# --- devices and queue ---------------------------------------------------
modprobe -r zcache 2>/dev/null
check "modprobe zcache num_devices=2 creates zcache0 and zcache1" \
	sh -c 'modprobe zcache num_devices=2 && udevadm settle; test -b /dev/zcache0 && test -b /dev/zcache1 && test -d /sys/block/zcache1/zcache'
check "queue: non-rotational, ${PAGE}-byte blocks, discard granularity $PAGE" \
	sh -c "q=/sys/block/zcache0/queue; grep -qx 0 \$q/rotational && grep -qx $PAGE \$q/logical_block_size && grep -qx $PAGE \$q/physical_block_size && grep -qx $PAGE \$q/discard_granularity"
check "disksize 64M: the device is 64 MiB" \
	sh -c "echo 64M >$S/disksize && grep -qx 67108864 $S/disksize && test \$(blockdev --getsize64 $DEV) = 67108864"

# --- data, RAM only --------------------------------------------------------
head -c $((64 * PAGE)) /dev/zero >"$W/zero"
head -c $((64 * PAGE)) /dev/zero | tr '\0' '\245' >"$W/same"
text_file 64 "$W/text"
head -c $((256 * PAGE)) /dev/urandom >"$W/random"

check "same-filled pages (zeroes, 0xa5) read back" \
	sh -c "$ZC_IO_FN; wpages $W/zero 0 && wpages $W/same 64 && verify $W/zero 0 && verify $W/same 64"
check "compressible pages read back" \
	sh -c "$ZC_IO_FN; wpages $W/text 128 && verify $W/text 128"
log_stats "after RAM-only writes"
check "stats: stored, same-filled and compressed bytes counted" \
	sh -c "test $(st stored_pages) -ge 192 && test $(st same_filled_pages) -ge 64 && test $(st compressed_bytes) -gt 0 && test $(st pool_pages) -gt 0"
# Without a backing device an incompressible page has nowhere else to go:
# it is kept as it is.
check "RAM only: incompressible pages are kept uncompressed and read back" \
	sh -c "$ZC_IO_FN; wpages $W/random 1024 && verify $W/random 1024 && test \$(cat $S/raw_pages) -ge 200"
# A pool at its limit refuses the page, and RAM only, the write must fail,
# not vanish: max_pool_percent=1 is about 10 MiB of a 1 GiB guest.
old_pool_percent=$(cat "$P/max_pool_percent" 2>/dev/null)
echo 1 >"$P/max_pool_percent"
head -c $((4096 * PAGE)) /dev/urandom >"$W/big"
if wpages "$W/big" 4096 2>"$W/err"; then
	nok "RAM only, pool at its limit: the write fails with EIO # it succeeded"
else
	cat "$W/err" >&2
	if grep -q "Input/output error" "$W/err" && [ "$(st failed_writes)" -gt 0 ]; then
		ok "RAM only, pool at its limit: the write fails with EIO ($(st failed_writes) pages refused)"
	else
		nok "RAM only, pool at its limit: the write fails with EIO # failed_writes=$(st failed_writes)"
	fi
fi
blkdiscard -f -o $((4096 * PAGE)) -l $((4096 * PAGE)) "$DEV" || echo "# discarding pages 4096.. failed" >&2
echo "$old_pool_percent" >"$P/max_pool_percent"
rm -f "$W/big"
before=$(st stored_pages)
check "discard frees pool entries and the range reads as zeroes" \
	sh -c "blkdiscard -f -o $((128 * PAGE)) -l $((64 * PAGE)) $DEV && test \$(cat $S/stored_pages) -le $((before - 64)) && dd if=$DEV bs=$PAGE skip=128 count=64 iflag=direct status=none | cmp - $W/zero"
log_stats "after discard"

# --- backing device --------------------------------------------------------
zc_backing_setup
bsize=$(blockdev --getsize64 "$backing")
echo "# backing device $backing, $bsize bytes" >&2
check "backing_dev $backing, disksize 128M" \
	sh -c "$ZC_IO_FN; setup 128M $backing && grep -qx $backing $S/backing_dev"
check "incompressible pages go to the backing device and read back" \
	sh -c "$ZC_IO_FN; wpages $W/random 0 && verify $W/random 0 && test \$(cat $S/backing_writes_incompressible) -ge 200 && test \$(cat $S/backing_reads) -ge 200"
check "compressible pages stay in the pool" \
	sh -c "$ZC_IO_FN; wpages $W/text 512 && wpages $W/same 576 && verify $W/text 512 && test \$(cat $S/stored_pages) -ge 128"
# Write-back is off by default (a full pool writes new pages through) and
# is chosen before disksize: both refusals are what an admin would see.
check "writeback=0 (default): writeback_pages is refused with EINVAL" \
	sh -c "grep -qx 0 $S/writeback && ! echo 64 2>/dev/null >$S/writeback_pages"
check "writeback cannot change once disksize is set (EBUSY)" \
	sh -c "! echo 1 2>/dev/null >$S/writeback && grep -qx 0 $S/writeback"
check "writeback=1: backing_dev, writeback, disksize 128M" \
	sh -c "$ZC_IO_FN; setup 128M $backing 1 && grep -qx 1 $S/writeback"
check "writeback_pages: cold pages are written back and read back from the backing device" \
	sh -c "$ZC_IO_FN; wpages $W/random 0 && wpages $W/text 512 && wpages $W/same 576 && echo 4096 >$S/writeback_pages && test \$(cat $S/written_back_pages) -gt 0 && test \$(cat $S/backing_writes_writeback) -gt 0 && verify $W/text 512 && verify $W/same 576 && verify $W/random 0"
log_stats "after write-back"
settle
check "reset frees the device (disksize 0, backing none)" \
	sh -c "echo 1 >$S/reset && grep -qx 0 $S/disksize && grep -qx none $S/backing_dev && test \$(blockdev --getsize64 $DEV) = 0"

# --- swap over the backing device under a verified workload ----------------
mem_pages=$((MEM_KB * 1024 / PAGE))
# About 0.5x (quick: 0.35x) RAM swapped: more than the pool's 10% of RAM
# holds even compressed, so the rest must reach the backing device.
if [ -z "${ZC_QUICK:-}" ]; then
	zc_pressure $((MEM_MB * 8 / 10)) $((MEM_MB * 3 / 10)); passes=2
else
	zc_pressure $((MEM_MB * 6 / 10)) $((MEM_MB * 25 / 100)); passes=1
fi
size_mb=$ZC_PRESSURE_MB
swap_bytes=$(( bsize / PAGE * PAGE ))
[ "$swap_bytes" -le $((2 << 30)) ] || swap_bytes=$((2 << 30))
check "swap: mkswap + swapon -p 100 on $DEV over $backing" \
	sh -c "$ZC_IO_FN; setup $swap_bytes $backing && mkswap $DEV >/dev/null && swapon -p 100 $DEV && grep -q '^$DEV ' /proc/swaps"
old_pool_percent=$(cat "$P/max_pool_percent" 2>/dev/null)
check "max_pool_percent=10" sh -c "echo 10 >$P/max_pool_percent && grep -qx 10 $P/max_pool_percent"

pool_file=$G/pool_pages
[ -r "$pool_file" ] || pool_file=$S/pool_pages
: >"$W/samples"
(while :; do cat "$pool_file" >>"$W/samples" 2>/dev/null; sleep 0.5; done) &
sampler=$!
if [ ! -x "$ZC_BIN/memstress" ]; then
	nok "memstress --size-mb $size_mb --passes $passes: verified workload # $ZC_BIN/memstress is missing"
else
	echo "+ ${ZC_PRESSURE[*]} $ZC_BIN/memstress --size-mb $size_mb --passes $passes" >&2
	if "${ZC_PRESSURE[@]}" "$ZC_BIN/memstress" --size-mb "$size_mb" --passes "$passes" >"$W/memstress.out" 2>&1; then
		ok "memstress --size-mb $size_mb --passes $passes: every page verified"
	else
		nok "memstress --size-mb $size_mb --passes $passes: every page verified # $(tail -n 3 "$W/memstress.out" | tr '\n' ' ')"
	fi
	cat "$W/memstress.out" >&2
	cp "$W/memstress.out" "$ZC_OUT/" 2>/dev/null
fi
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; sampler=''
log_stats "after the workload"
cp "$W/samples" "$ZC_OUT/pool-samples.txt" 2>/dev/null
for f in "$S"/*; do [ -f "$f" ] && [ -r "$f" ] && echo "# ${f##*/}: $(cat "$f")" >&2; done

max=$(sort -n "$W/samples" | tail -n 1)
limit=$((mem_pages / 10))
nsamples=$(wc -l <"$W/samples")
# Fewer than 10 samples: the workload did not run (it takes minutes).
if [ "$nsamples" -ge 10 ] && [ "${max:-0}" -le "$limit" ]; then
	ok "pool stayed within 10% of RAM: max $max of $limit pages over $nsamples samples"
else
	nok "pool stayed within 10% of RAM: max ${max:-?} of $limit pages over $nsamples samples"
fi
bw=$(( $(st backing_writes_incompressible) + $(st backing_writes_pool_full) + $(st backing_writes_writeback) ))
if [ "$bw" -gt 0 ] && [ "${max:-0}" -gt 0 ]; then
	ok "the pool held pages and the rest reached the backing device: $bw pages written there"
else
	nok "the pool held pages and the rest reached the backing device # pool max ${max:-0}, backing writes $bw"
fi
check "swapoff, reset" sh -c "swapoff $DEV && udevadm settle; echo 1 >$S/reset"

# --- run-time devices ------------------------------------------------------
id=$(cat /sys/class/zcache-control/add 2>/dev/null)
echo "# control/add: '$id'" >&2
check "zcache-control: add prints a new id, remove deletes it" \
	sh -c "test -n '$id' && udevadm settle; test -b /dev/zcache$id && echo $id >/sys/class/zcache-control/remove && ! test -e /sys/block/zcache$id"
settle
check "rmmod zcache" sh -c "echo 1 >$S/reset; modprobe -r zcache && ! test -d /sys/module/zcache"
exit $failed
